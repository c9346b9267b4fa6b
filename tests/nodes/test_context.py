"""Context validation: strict types, ranges, unknown fields, and explicit over environment."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import TypeAdapter

from deepread import Context, ContextError, IngestContext


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"k": "abc"}, r"'k' = 'abc' \(str\): Input should be a valid integer"),
        ({"k": 3.7}, r"'k' = 3.7 \(float\): Input should be a valid integer"),
        ({"k": True}, r"'k' = True \(bool\)"),
        ({"k": -1}, r"'k' = -1 .*greater than or equal to 1"),
        ({"k": 0}, r"'k' = 0 .*greater than or equal to 1"),
        ({"max_rounds": 0}, r"'max_rounds' = 0 .*greater than or equal to 1"),
        ({"max_rounds": -5}, r"'max_rounds' = -5 .*greater than or equal to 1"),
        ({"window": [1]}, r"'window' = \[1\].*at least 2 items"),
        ({"window": [0, -1]}, r"'window'.*greater than or equal to 0"),
        ({"retrieval_mode": "fuzzy"}, r"'retrieval_mode'.*'dense', 'bm25' or 'hybrid'"),
        ({"temperature": 5.0}, r"'temperature'.*less than or equal to 2"),
        ({"documents": ["1"]}, r"'documents'.*valid integer"),
        ({"support_threshold": 1.5}, r"'support_threshold'.*less than or equal to 1"),
        ({"support_threshold": -0.1}, r"'support_threshold'.*greater than or equal to 0"),
        ({"support_threshold": "high"}, r"'support_threshold'.*valid number"),
        ({"unused_term_support": 1.5}, r"'unused_term_support'.*less than or equal to 1"),
        ({"unused_term_support": -0.1}, r"'unused_term_support'.*greater than or equal to 0"),
        ({"unused_term_support": "high"}, r"'unused_term_support'.*valid number"),
    ],
)
def test_a_bad_value_is_refused_naming_the_field(given, message):
    with pytest.raises(ContextError, match=message):
        Context(**given)


@pytest.mark.parametrize(
    ("key", "close"), [("max_round", "max_rounds"), ("K", "k"), ("colection", "collection")]
)
def test_an_unknown_field_is_refused_naming_the_closest_one(key, close):
    with pytest.raises(
        ContextError,
        match=rf"unknown Context field '{key}' \(did you mean "
        rf"'{close}'\?\)",
    ):
        Context(**{key: 3})


def test_a_context_error_is_a_value_error_for_callers_that_catch_those():
    assert issubclass(ContextError, ValueError)


def test_an_explicit_value_beats_the_environment_even_at_its_default(monkeypatch):
    monkeypatch.setenv("DEEPREAD_K", "10")
    assert Context(k=5).k == 5
    assert Context().k == 10


def test_environment_values_are_typed_and_checked(monkeypatch):
    monkeypatch.setenv("DEEPREAD_WINDOW", "1, 2")
    monkeypatch.setenv("DEEPREAD_CHECK_SUFFICIENCY", "off")
    ctx = Context()
    assert ctx.window == [1, 2] and ctx.check_sufficiency is False
    monkeypatch.setenv("DEEPREAD_K", "lots")
    with pytest.raises(ContextError, match="DEEPREAD_K='lots'"):
        Context()


def test_a_context_knows_which_fields_its_caller_gave(monkeypatch):
    monkeypatch.setenv("DEEPREAD_COLLECTION", "envcoll")
    ctx = Context(k=3)
    assert ctx.given == {"k"} and ctx.collection == "envcoll"


def test_windows_may_be_given_as_tuples():
    assert Context(window=(1, 1)).window == [1, 1]


def test_replace_keeps_validating():
    ctx = Context(k=3)
    assert dataclasses.replace(ctx, k=4).k == 4
    with pytest.raises(ContextError):
        dataclasses.replace(ctx, k=0)


def test_the_json_schema_carries_the_constraints():
    props = TypeAdapter(Context).json_schema()["properties"]
    assert props["k"]["minimum"] == 1 and props["max_rounds"]["minimum"] == 1
    assert props["window"]["minItems"] == props["window"]["maxItems"] == 2
    assert props["retrieval_mode"]["enum"] == ["dense", "bm25", "hybrid"]
    assert all(p.get("description") for p in props.values())


def test_the_ingest_context_has_only_ingest_fields():
    names = [f.name for f in dataclasses.fields(IngestContext)]
    assert names == ["store", "collection", "ocr_model", "vision_model", "describe_model"]
    with pytest.raises(ContextError, match="unknown IngestContext field 'k'"):
        IngestContext(k=3)
