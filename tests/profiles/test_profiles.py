"""The interface the general core calls (deepread/profiles/profile.py): every profile
asked in turn, and a kind added by adding its profile."""

from __future__ import annotations

import re

import pytest
from support.library import plain

from deepread.corpus.library import titles
from deepread.corpus.library.titles import Banners, card_of
from deepread.profiles import PROFILES
from deepread.profiles.kinds.sec_filing.names import PERIODS as FILING_PERIODS
from deepread.profiles.kinds.syllabus import PERIODS as TERMS
from deepread.profiles.profile import Period, Profile, Profiles

PATENT = Profile(
    name="patent",
    kinds=("patent",),
    periods=(
        Period(
            re.compile(r"\bfiled:?\s+(\w+ \d{1,2}, \d{4})", re.I),
            lambda m: f"filed {m[1]}",
            stated=True,
        ),
    ),
)


def test_periods_stated_with_what_ends_them_are_read_before_periods_named_alone():
    stated = [p for p in FILING_PERIODS if p.stated]
    named = [p for p in FILING_PERIODS if not p.stated]

    assert list(PROFILES.periods) == [*stated, *TERMS, *named]


def test_a_kind_is_added_by_adding_its_profile(monkeypatch: pytest.MonkeyPatch):
    doc = plain(1, "Widget hinge", "US-1234567.pdf", ("Widget hinge", "Filed: March 3, 2020"))
    assert card_of(doc, Banners.of([doc])).title == "Widget hinge — March 3, 2020"

    monkeypatch.setattr(titles, "PROFILES", Profiles((PATENT, *PROFILES.profiles)))
    doc = plain(1, "Widget hinge", "US-1234567 patent.pdf", doc.front.lines)

    assert card_of(doc, Banners.of([doc])).title == "Widget hinge — patent, filed March 3, 2020"


def test_no_profile_means_no_cover_and_no_first_reads():
    none = Profiles(())

    assert none.cover_pages({1: "securities and exchange commission form 10 k"}, set()) == set()
    assert none.first_reads("What is the quick ratio?", {}, lambda d, s: 0, lambda d, s: False) == (
        [],
        [],
    )
    assert none.quote_order("What was revenue in 2022?")("Revenue 2022: 1,234 5,678 9,012") == ()
