"""The pace of a long ingest (corpus/ingest_pace.py): work weighed in pages, the rate
of this run's pages, and time left from the pages still to do — never from files
(filings run from 20 to 400 pages). A clock moved by hand: nothing here is timing."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pdf_builder import Doc, filler

from deepread.corpus.ingest_pace import (
    BUILD_S,
    PAGE_BYTES,
    TABLE_S,
    TEACH_S,
    Pace,
    duration,
    pages_of,
)


def pdf(path: Path, pages: int) -> Path:
    doc = Doc()
    for page in range(pages):
        doc.page()
        doc.para(filler(20, seed=page))
    return doc.save(path)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_pdf_weighs_its_pages_and_a_text_file_its_size(tmp_path: Path) -> None:
    assert pages_of(pdf(tmp_path / "f.pdf", 7)) == 7
    (tmp_path / "n.md").write_text("x" * (PAGE_BYTES * 2 + 1), encoding="utf-8")
    assert pages_of(tmp_path / "n.md") == 3
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert pages_of(tmp_path / "empty.txt") == 1
    # a damaged PDF is weighed by its size; its parse says what is wrong with it
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.7 not really" * 400)
    assert pages_of(tmp_path / "bad.pdf") == 3
    assert pages_of(tmp_path / "gone.pdf") == 1


def test_time_left_comes_from_pages_not_files(tmp_path: Path) -> None:
    """A 2-page file done in 4 s leaves a 20-page one: 40 s left, not 4 s."""
    small, big = pdf(tmp_path / "small.pdf", 2), pdf(tmp_path / "big.pdf", 20)
    clock = Clock()
    pace = Pace([small, big], clock=clock)
    assert (pace.files_total, pace.pages_total) == (2, 22)
    assert pace.rate is None and pace.seconds_left is None
    assert pace.summary() == "0/2 files, 0/22 pages"

    pace.event("parsing", small, 0, 2)
    clock.now += 20
    pace.event("stored", small, 1, 2)
    assert pace.rate == pytest.approx(0.1)
    assert pace.seconds_left == pytest.approx(200)
    assert pace.summary() == "1/2 files, 2/22 pages, 0.1 pages/s, ~3 min 20 s left"

    # inside the big one, the page its embedding reached counts
    pace.event("embedding", big, 0, 20)
    clock.now += 80
    pace.event("page", big, 10, 20)
    assert pace.pages_done == 12
    assert pace.summary() == "1/2 files, 12/22 pages, 0.1 pages/s, ~1 min 23 s left"

    clock.now += 100
    pace.event("stored", big, 2, 2)
    assert pace.summary() == "2/2 files, 22/22 pages, 0.1 pages/s"


def test_files_found_unchanged_count_as_in_but_not_in_the_rate(tmp_path: Path) -> None:
    """A re-run after an interruption: what was stored is skipped at no cost, and the
    time left is that of the files still missing, at the rate of those done."""
    files = [pdf(tmp_path / f"f{i}.pdf", 5) for i in range(4)]
    clock = Clock()
    pace = Pace(files, clock=clock)
    pace.event("skip", files[0], 1, 4)
    pace.event("skip", files[1], 2, 4)
    assert pace.summary() == "2/4 files, 10/20 pages"  # no rate yet: nothing worked
    pace.event("parsing", files[2], 0, 2)
    clock.now += 10
    pace.event("stored", files[2], 1, 2)
    assert pace.rate == pytest.approx(0.5)  # 5 pages in 10 s, the skipped ones cost 0
    assert pace.summary() == "3/4 files, 15/20 pages, 0.5 pages/s, ~10 s left"
    pace.event("failed", files[3], 2, 2)  # a failure is done too (its line says why)
    assert (pace.files_done, pace.pages_done) == (4, 20)


def test_pages_done_never_go_back_when_several_files_are_at_work(tmp_path: Path) -> None:
    """One embedding call takes every document already parsed: the next one's pages
    begin while the first is not stored yet, and the count only grows."""
    a, b = pdf(tmp_path / "a.pdf", 10), pdf(tmp_path / "b.pdf", 30)
    clock = Clock()
    pace = Pace([a, b], clock=clock)
    seen = []
    for event, path, done, total in [
        ("parsing", a, 0, 2), ("embedding", a, 0, 10), ("page", a, 8, 10),
        ("parsing", b, 1, 2), ("embedding", b, 0, 30), ("page", b, 3, 30),
        ("stored", a, 1, 2), ("page", b, 20, 30), ("page", b, 12, 30), ("stored", b, 2, 2),
    ]:  # fmt: skip
        clock.now += 1
        pace.event(event, path, done, total)
        seen.append(pace.pages_done)
    assert seen == sorted(seen) and seen[-1] == 40
    assert seen[5] == 8 + 3  # both files' pages while both are at work


def test_time_left_waits_for_the_pace_after_the_table_is_taught_then_follows_it(
    tmp_path: Path,
) -> None:
    """Teaching its table makes a long ingest several times faster: the time left is
    not said until the new pace has been seen, then comes from it, not the old one."""
    files = [pdf(tmp_path / f"f{i}.pdf", 10) for i in range(20)]
    clock = Clock()
    pace = Pace(files, clock=clock)
    pace.event("parsing", files[0], 0, 20)
    for f in files[:5]:  # slowly: 10 pages in 10 s
        clock.now += 10
        pace.event("stored", f)
    assert pace.seconds_left == pytest.approx(150)
    pace.event("teach", files[5], 20_000, 0)
    clock.now += 30  # teaching
    assert pace.rate is None and pace.seconds_left is None
    for f in files[5:10]:  # four times faster
        clock.now += 2.5
        pace.event("stored", f)
    assert pace.rate == pytest.approx(40 / 10)  # the first file after it opens the window
    assert pace.seconds_left == pytest.approx(100 / 4)


@pytest.mark.parametrize(
    "seconds, said",
    [
        (0, "0 s"),
        (42.4, "42 s"),
        (200, "3 min 20 s"),
        (600, "10 min"),
        (754, "13 min"),
        (3600, "1 h"),
        (6720, "1 h 52 min"),
        (7190, "2 h"),
    ],
)
def test_durations_read_as_a_person_says_them(seconds: float, said: str) -> None:
    assert duration(seconds) == said


def planned(tmp_path: Path, files: int, teach_at: int) -> tuple[list[Path], Clock, Pace]:
    """A run over ``files`` 10-page PDFs that plans a table after ``teach_at`` paragraphs
    (0: none) and builds every 1,000, its first file being parsed."""
    paths = [pdf(tmp_path / f"f{i}.pdf", 10) for i in range(files)]
    clock = Clock()
    pace = Pace(paths, clock=clock)
    pace.event("plan", tmp_path, teach_at, 1_000)
    pace.event("parsing", paths[0], 0, files)
    return paths, clock, pace


def stored_after(
    pace: Pace, clock: Clock, files: list[Path], seconds: float, parse_ms: int
) -> None:
    """Each of ``files`` parsed (50 paragraphs, in ``parse_ms``), then stored ``seconds``
    later."""
    for f in files:
        pace.event("parse_cost", f, 50, parse_ms)
        clock.now += seconds
        pace.event("stored", f)


def test_before_the_table_is_taught_the_time_left_prices_the_pages_it_will_embed_faster(
    tmp_path: Path,
) -> None:
    """Until its table is taught a long ingest runs at the model's pace — for longer than
    a window of it — and the pages after it cost what their parse, this process's work
    without the model (but for each document's probe), the table's own work, its teaching
    and the index builds take."""
    files, clock, pace = planned(tmp_path, 40, 1_500)  # the table after 1,500 paragraphs
    for f in files[:20]:  # the model's pace: 10 pages in 10 s, for 200 s
        pace.event("parse_cost", f, 50, 100)  # 5 paragraphs a page, parsed in 0.01 s a page
        pace.event("model_cost", f, 50, 9_000)  # the model: 0.18 s a paragraph
        clock.now += 10
        pace.event("group_cost", f, 50, 10_000)  # embedding and storing: 0.2 s a paragraph
        pace.event("stored", f)
    # 100 more pages at 1 page/s reach the 1,500th paragraph; teaching the table on
    # them; then 100 pages whose paragraphs cost 0.02 s without the model, the table's
    # own and 0.18 s for the probe's 8 of 50; and 1,000 paragraphs still to build at a
    # millisecond each (none timed yet)
    after = 5 * (0.02 + TABLE_S + 0.18 * 8 / 50)
    teaching = 1_500 * TEACH_S
    assert pace.seconds_left == pytest.approx(100 + teaching + 100 * after + 1_000 * 0.001)


def test_after_the_table_is_taught_the_time_left_prices_its_groups_then_follows_its_rate(
    tmp_path: Path,
) -> None:
    files, clock, pace = planned(tmp_path, 40, 100)
    stored_after(pace, clock, files[:2], 10, 500)  # 0.05 s a page to parse
    pace.event("teach", files[2], 100, 0)
    pace.event("built", tmp_path, 2_000, 1_000)  # 2 ms a paragraph
    clock.now += 5
    for f in files[2:6]:  # the table's pace: 10 pages in 2 s
        pace.event("parse_cost", f, 50, 500)
        clock.now += 2
        pace.event("group_cost", f, 50, 1_500)  # 0.03 s a paragraph: 0.15 s a page
        pace.event("stored", f)
    clock.now += 10
    pace.event("stored", files[6])
    # 330 pages left at 0.15 s (slower than their parse), 1,650 paragraphs to build at
    # the build timed (2 ms a paragraph) and BUILD_S before it, one build's worth each
    assert pace.seconds_left == pytest.approx(330 * 0.15 + 1_650 * (2.0 + BUILD_S * 1_000) / 2_000)
    for f in files[7:37]:  # a whole window of the table's pace, now 10 pages in 6 s
        clock.now += 6
        pace.event("stored", f)
    assert pace.seconds_left == pytest.approx(30 / (10 / 6))


def test_a_run_without_a_table_takes_its_time_left_from_its_rate(tmp_path: Path) -> None:
    files, clock, pace = planned(tmp_path, 6, 0)  # no table: the model embeds all
    stored_after(pace, clock, files[:3], 10, 1_000)
    assert pace.seconds_left == pytest.approx(30)


def test_a_table_that_fails_its_check_leaves_the_time_left_to_the_models_rate(
    tmp_path: Path,
) -> None:
    files, clock, pace = planned(tmp_path, 10, 100)
    stored_after(pace, clock, files[:2], 10, 100)
    pace.event("teach", files[2], 100, 0)
    pace.event("untaught", files[2], 50, 400)  # the model embeds the rest
    for f in files[2:5]:
        clock.now += 10
        pace.event("stored", f)
    assert pace.seconds_left == pytest.approx(50 / (20 / 20))  # the last two files' pace


def test_one_cheap_build_does_not_yet_price_every_build_to_come(tmp_path: Path) -> None:
    """The engine's builds differ by up to 6x from one to the next, the first the
    cheapest (the 155 filings: 0.25 to 1.9 ms a paragraph): the builds timed weigh in
    against BUILD_S by degrees, one build's worth of paragraphs at a time."""
    files, clock, pace = planned(tmp_path, 40, 100)  # a build every 1,000 paragraphs
    stored_after(pace, clock, files[:2], 10, 500)
    pace.event("teach", files[2], 100, 0)
    pace.event("built", tmp_path, 250, 1_000)  # a quarter of BUILD_S
    clock.now += 5
    for f in files[2:6]:  # the table's pace: 10 pages in 2 s
        pace.event("parse_cost", f, 50, 500)
        clock.now += 2
        pace.event("group_cost", f, 50, 1_500)
        pace.event("stored", f)
    clock.now += 10
    pace.event("stored", files[6])
    once = (0.25 + BUILD_S * 1_000) / 2_000
    assert pace.seconds_left == pytest.approx(330 * 0.15 + 1_650 * once)
    pace.event("built", tmp_path, 250 * 3, 3_000)  # three more builds as cheap
    twice = (0.25 * 4 + BUILD_S * 1_000) / 5_000
    assert pace.seconds_left == pytest.approx(330 * 0.15 + 1_650 * twice)
