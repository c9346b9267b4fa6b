"""The ingest graph as a server runs it, in process: path rules, documents sent as content
with their caps, per-file progress as ``custom`` events, unsupported files named.

The same behaviours over a real ``langgraph dev`` server are in tests/server/test_server.py.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from support.documents import SHAPES_MD
from support.hold_store import stopped_holder
from support.stores import stored_text

import deepread
from deepread.graphs.ingest import build_ingest_graph
from deepread.nodes import resources
from deepread.nodes.open_collections import OPEN


def run(graph, payload: dict[str, Any], collection: str = "docs") -> dict[str, Any]:
    return graph.invoke(payload, context=deepread.IngestContext(collection=collection))


@pytest.fixture()
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The exported graph's configuration (served=True) over a fresh store, which the
    process keeps open as a server does (nodes/resources.py) until the test ends."""
    store = str(tmp_path / "store")
    monkeypatch.setenv("DEEPREAD_STORE", store)
    yield build_ingest_graph(served=True)
    OPEN.close(store)


def texts_of(store: Path, collection: str = "docs") -> str:
    with resources.shared_index(str(store), collection) as idx:
        return stored_text(idx)


def test_a_served_graph_without_an_ingest_root_refuses_every_path_and_says_how_to_allow(
    served, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("The launch code is 0000.\n", encoding="utf-8")

    out = run(served, {"paths": [str(secret), str(tmp_path)]})

    assert out["documents"] == []
    assert [f["path"] for f in out["failures"]] == [str(secret), str(tmp_path)]
    assert all("DEEPREAD_INGEST_ROOT" in f["reason"] for f in out["failures"])
    assert "DEEPREAD_INGEST_ROOT=" in out["error"] and "content" in out["error"]
    assert not (tmp_path / "store" / "collections" / "docs").exists()


def test_a_served_graph_with_a_root_reads_paths_inside_it_only(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "ok.md").write_text(SHAPES_MD, encoding="utf-8")
    (tmp_path / "secret.md").write_text("# Secret\n\nThe launch code is 0000.\n")
    monkeypatch.setenv("DEEPREAD_INGEST_ROOT", str(root))

    out = run(served, {"paths": ["ok.md", str(tmp_path / "secret.md")]})

    assert [Path(d["source"]).name for d in out["documents"]] == ["ok.md"]
    assert out["failures"] == [
        {"path": str(tmp_path / "secret.md"), "reason": f"outside the ingest root {root.resolve()}"}
    ]
    assert "launch code" not in texts_of(tmp_path / "store")


def test_documents_sent_as_text_and_as_base64_bytes_are_stored_under_their_names(
    served, tmp_path: Path
) -> None:
    pdf = Path(__file__).parents[1] / "data" / "docs" / "tutorial-classes.pdf"
    files = [
        {"name": "shapes.md", "text": SHAPES_MD},
        {"name": "classes.pdf", "content_base64": base64.b64encode(pdf.read_bytes()).decode()},
    ]

    out = run(served, {"files": files})

    assert out["failures"] == [] and "error" not in out
    assert [d["source"] for d in out["documents"]] == ["shapes.md", "classes.pdf"]
    text = texts_of(tmp_path / "store")
    assert "Bravo paragraph about bananas." in text
    assert "Name mangling is helpful" in text


def test_a_document_sent_again_under_its_name_replaces_the_first(served, tmp_path) -> None:
    run(served, {"files": [{"name": "note.md", "text": "# Note\n\nThe old wording here.\n"}]})
    out = run(served, {"files": [{"name": "note.md", "text": "# Note\n\nThe new wording.\n"}]})

    assert [d["doc_id"] for d in out["documents"]] == [1]
    text = texts_of(tmp_path / "store")
    assert "new wording" in text and "old wording" not in text


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"name": "../escape.md", "text": "x"}, "files[0].name"),
        ({"name": "sub/inner.md", "text": "x"}, "files[0].name"),
        ({"name": ".hidden.md", "text": "x"}, "files[0].name"),
        ({"name": "tool.exe", "text": "x"}, "files[0].name"),
        ({"name": "a.md"}, "files[0].text"),
        ({"name": "a.md", "text": "x", "content_base64": "eA=="}, "files[0].text"),
        ({"name": "a.pdf", "content_base64": "not base64!"}, "files[0].content_base64"),
        ({"name": "a.md", "text": 42}, "files[0].text"),
        ("a.md", "files[0]"),
    ],
)
def test_a_malformed_document_is_that_documents_failure_naming_the_field(
    served, tmp_path: Path, item: Any, field: str
) -> None:
    good = {"name": "good.md", "text": SHAPES_MD}

    out = run(served, {"files": [item, good]})

    [failure] = out["failures"]
    assert failure["reason"].startswith(field), failure
    assert [d["source"] for d in out["documents"]] == ["good.md"]
    assert not any(p.name != "good.md" for p in (tmp_path / "store" / "uploads" / "docs").iterdir())


def test_a_document_over_the_size_cap_is_refused_naming_the_field_and_the_cap(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_INGEST_MAX_FILE_BYTES", "1000")
    big = "# Big\n\n" + "word " * 400

    out = run(
        served,
        {
            "files": [
                {"name": "big.md", "text": big},
                {"name": "big.pdf", "content_base64": base64.b64encode(b"x" * 4000).decode()},
            ]
        },
    )

    reasons = [f["reason"] for f in out["failures"]]
    assert reasons[0].startswith("files[0].text:") and "cap of 1000 bytes" in reasons[0]
    assert reasons[1].startswith("files[1].content_base64:") and "1000" in reasons[1]
    assert all("DEEPREAD_INGEST_MAX_FILE_BYTES" in r for r in reasons)
    assert out["documents"] == []


def test_more_documents_than_the_cap_refuses_the_request_naming_files(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_INGEST_MAX_FILES", "2")
    files = [{"name": f"n{i}.md", "text": SHAPES_MD} for i in range(3)]

    out = run(served, {"files": files})

    assert out["documents"] == []
    assert out["error"].startswith("files: 3 documents, over the cap of 2")
    assert not (tmp_path / "store" / "uploads").exists()


def test_a_document_whose_content_does_not_parse_is_a_failure_under_its_name(served) -> None:
    out = run(
        served,
        {
            "files": [
                {
                    "name": "broken.pdf",
                    "content_base64": base64.b64encode(b"%PDF-1.7 junk").decode(),
                }
            ]
        },
    )

    [failure] = out["failures"]
    assert failure["path"] == "broken.pdf" and failure["reason"]
    assert out["documents"] == []


def test_each_file_streams_its_progress_as_a_custom_event(served) -> None:
    files = [
        {"name": "a.md", "text": SHAPES_MD},
        {"name": "b.md", "text": "# B\n\nAnother document entirely.\n"},
    ]

    events = [
        chunk
        for chunk in served.stream(
            {"files": files},
            context=deepread.IngestContext(collection="docs"),
            stream_mode="custom",
        )
    ]

    stored = [e for e in events if e["ingest"] == "stored"]
    assert [e["file"] for e in stored] == ["a.md", "b.md"]
    assert [(e["done"], e["total"]) for e in stored] == [(1, 2), (2, 2)]
    assert {e["ingest"] for e in events} <= {
        "parsing",
        "parsed",
        "embedding",
        "stored",
        "skip",
        "failed",
        "optimize",
    }


def test_a_folder_ingest_names_the_files_it_skipped_as_unsupported(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "img").mkdir(parents=True)
    (folder / "a.md").write_text(SHAPES_MD, encoding="utf-8")
    (folder / "img" / "logo.png").write_bytes(b"\x89PNG\r\n")
    (folder / "data.csv").write_text("a,b\n1,2\n")

    with deepread.Index.open(store=tmp_path / "store", collection="docs") as idx:
        result = idx.ingest_report([folder])
        out = build_ingest_graph(index=idx).invoke({"paths": [str(folder)]})

    assert sorted(p.name for p in result.unsupported) == ["data.csv", "logo.png"]
    assert result.failures == []
    assert sorted(Path(p).name for p in out["unsupported"]) == ["data.csv", "logo.png"]
    assert out["failures"] == []


BROKEN_PDF = {"name": "broken.pdf", "content_base64": base64.b64encode(b"%PDF-1.7 junk").decode()}


def uploads_of(store: Path, collection: str = "docs") -> list[str]:
    folder = store / "uploads" / collection
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_document_that_fails_to_parse_leaves_no_file_and_no_folder_behind(
    served, tmp_path: Path
) -> None:
    out = run(served, {"files": [BROKEN_PDF]}, collection="never")

    assert [f["path"] for f in out["failures"]] == ["broken.pdf"]
    assert not (tmp_path / "store" / "uploads").exists()


def test_a_failed_document_is_removed_and_its_good_neighbour_kept(served, tmp_path) -> None:
    out = run(served, {"files": [BROKEN_PDF, {"name": "good.md", "text": SHAPES_MD}]})

    assert [d["source"] for d in out["documents"]] == ["good.md"]
    assert uploads_of(tmp_path / "store") == ["good.md"]


def test_a_failed_resend_puts_back_the_document_it_would_have_replaced(
    served, tmp_path: Path
) -> None:
    run(
        served,
        {
            "files": [
                {
                    "name": "note.pdf",
                    "content_base64": base64.b64encode(
                        (
                            Path(__file__).parents[1] / "data" / "docs" / "tutorial-classes.pdf"
                        ).read_bytes()
                    ).decode(),
                }
            ]
        },
    )
    stored = (tmp_path / "store" / "uploads" / "docs" / "note.pdf").read_bytes()

    out = run(served, {"files": [{**BROKEN_PDF, "name": "note.pdf"}]})

    assert [f["path"] for f in out["failures"]] == ["note.pdf"]
    assert uploads_of(tmp_path / "store") == ["note.pdf"]
    assert (tmp_path / "store" / "uploads" / "docs" / "note.pdf").read_bytes() == stored


NOTE_V1 = {"name": "note.md", "text": "# Note\n\nThe first version tells of walruses.\n"}
NOTE_V2 = {"name": "note.md", "text": "# Note\n\nThe second version tells of narwhals.\n"}


def test_an_upload_that_meets_a_busy_store_keeps_the_stored_version_and_says_to_resend(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, folder = tmp_path / "store", tmp_path / "store" / "uploads" / "docs"
    monkeypatch.setenv("DEEPREAD_STORE_WAIT", "0")  # (read when the index opens)
    run(served, {"files": [NOTE_V1]})

    # Another process holds the store and answers nobody (a holder that answers relays
    # the write): with DEEPREAD_STORE_WAIT=0 the write gives up after the hand-over.
    with stopped_holder(store, "docs"):
        out = run(served, {"files": [NOTE_V2]})
        again = run(served, {"files": [NOTE_V2]})  # one failed resend lost the file

    for answer in (out, again):
        assert "Send the same request again once the store is free" in answer["error"]
        assert [f["path"] for f in answer["failures"]] == ["note.md"]
    assert uploads_of(store) == ["note.md"]  # nothing set aside is left over
    assert (folder / "note.md").read_text() == NOTE_V1["text"]
    assert "walruses" in texts_of(store)


def test_a_resend_once_the_store_is_free_stores_the_new_version(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    monkeypatch.setenv("DEEPREAD_STORE_WAIT", "0")
    run(served, {"files": [NOTE_V1]})
    with stopped_holder(store, "docs"):
        run(served, {"files": [NOTE_V2]})

    out = run(served, {"files": [NOTE_V2]})

    assert "error" not in out and [d["source"] for d in out["documents"]] == ["note.md"]
    assert uploads_of(store) == ["note.md"]
    assert (store / "uploads" / "docs" / "note.md").read_text() == NOTE_V2["text"]
    assert "narwhals" in texts_of(store) and "walruses" not in texts_of(store)


def test_every_version_a_killed_run_left_is_kept_until_one_is_stored(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, folder = tmp_path / "store", tmp_path / "store" / "uploads" / "docs"
    monkeypatch.setenv("DEEPREAD_STORE_WAIT", "0")
    run(served, {"files": [NOTE_V1]})
    # A run killed between saving its upload and settling it leaves the new file in
    # place and the stored one aside (as earlier releases named it).
    (folder / ".previous-note.md").write_text(NOTE_V1["text"])
    (folder / "note.md").write_text(NOTE_V2["text"])
    third = {"name": "note.md", "text": "# Note\n\nThe third version tells of seals.\n"}

    with stopped_holder(store, "docs"):
        failed = run(served, {"files": [third]})
    kept = sorted(p.read_text() for p in folder.iterdir())
    stored = run(served, {"files": [third]})

    assert [f["path"] for f in failed["failures"]] == ["note.md"]
    assert kept == sorted([NOTE_V1["text"], NOTE_V2["text"]])  # neither version lost
    assert [d["source"] for d in stored["documents"]] == ["note.md"]
    assert uploads_of(store) == ["note.md"]  # a stored version lets the others go
    assert "seals" in texts_of(store)


def test_a_collections_upload_quota_refuses_what_would_pass_it_naming_the_variable(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_INGEST_MAX_COLLECTION_BYTES", "3000")
    first = run(served, {"files": [{"name": "a.md", "text": "# A\n\n" + "apple " * 300}]})
    assert first["failures"] == []

    out = run(served, {"files": [{"name": "b.md", "text": "# B\n\n" + "berry " * 300}]})

    [failure] = out["failures"]
    assert failure["reason"].startswith("files[0].content: ")
    assert "quota of 3000 bytes" in failure["reason"]
    assert "DEEPREAD_INGEST_MAX_COLLECTION_BYTES" in failure["reason"]
    assert uploads_of(tmp_path / "store") == ["a.md"]
    # sending a document again under its name counts once
    again = run(served, {"files": [{"name": "a.md", "text": "# A\n\n" + "apricot " * 300}]})
    assert again["failures"] == []


def test_a_collections_upload_file_quota_counts_the_documents_it_holds(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_INGEST_MAX_COLLECTION_FILES", "2")
    files = [{"name": f"n{i}.md", "text": f"# N{i}\n\nNumber {i} notes.\n"} for i in range(3)]

    out = run(served, {"files": files})

    assert [d["source"] for d in out["documents"]] == ["n0.md", "n1.md"]
    [failure] = out["failures"]
    assert (
        failure["path"] == "n2.md" and "DEEPREAD_INGEST_MAX_COLLECTION_FILES" in failure["reason"]
    )


@pytest.mark.parametrize(
    "name",
    [
        "a\nb.md",
        "notes.md\n",
        "bell\x07.md",
        "csi\x9b.md",
        "fdp.\u202egnp.md",
        "a\ud800.md",
        "para\u2029b.md",
    ],
)
def test_a_name_with_a_control_character_is_refused(served, tmp_path, name: str) -> None:
    out = run(served, {"files": [{"name": name, "text": "# T\n\nText.\n"}]})

    [failure] = out["failures"]
    assert failure["reason"].startswith("files[0].name: ")
    assert not (tmp_path / "store" / "uploads").exists()


@pytest.mark.parametrize(
    "name",
    [
        "\u3164.md",  # Hangul filler: a letter that shows as nothing
        "acme\u3164report.md",
        "\u115f\u1160.md",
        "half\uffa0width.md",
        "zero\u200bwidth.md",
        "joined\u2060.md",
        "cgj\u034f.md",
        "selector\ufe0f.md",
        "em\u2003space.md",  # a space of another width: "em space.md" to the eye
        "ideographic\u3000space.md",
        "no-break\u00a0space.md",
        "braille\u2800blank.md",
    ],
)
def test_a_name_with_a_blank_looking_character_is_refused(served, tmp_path, name: str) -> None:
    out = run(served, {"files": [{"name": name, "text": "# T\n\nText.\n"}]})

    [failure] = out["failures"]
    assert failure["reason"].startswith("files[0].name: ")
    assert "invisible or blank-looking" in failure["reason"]
    assert out["documents"] == []
    assert not (tmp_path / "store" / "uploads").exists()


def test_a_name_in_any_script_with_plain_spaces_is_taken(served) -> None:
    out = run(served, {"files": [{"name": "보고서 2024 Отчёт.md", "text": "# T\n\nText.\n"}]})

    assert out["failures"] == [] and [d["source"] for d in out["documents"]] == [
        "보고서 2024 Отчёт.md"
    ]


def test_more_paths_than_the_cap_refuses_the_run_in_one_line(served) -> None:
    out = run(served, {"paths": [f"doc{i}.md" for i in range(100_000)]})

    assert out["documents"] == [] and out["failures"] == []
    assert out["error"].startswith("paths: 100000 paths, over the cap of 1000 per run")


def test_a_path_longer_than_any_path_is_a_failure_echoed_bounded(served) -> None:
    out = run(served, {"paths": ["a" * 1_000_000]})

    [failure] = out["failures"]
    assert failure["reason"] == "a path of 1000000 characters; at most 4096"
    assert len(failure["path"]) < 300


# -- what one upload may cost the store (issue 38 §4) -----------------------------------------

#: 30 KB of one-letter paragraphs: 10,000 of them (was: a 46 MB store, 26 s of embedding).
FLOOD = "x\n\n" * 10_000


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def test_a_flood_of_tiny_paragraphs_sent_as_content_is_refused_before_parsing(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepread.corpus import parse_ahead

    parsed: list[Any] = []
    real = parse_ahead.ParseAhead.__init__

    def counting(self, paths, *args, **kwargs):  # the files handed to the parser
        parsed.extend(paths)
        real(self, paths, *args, **kwargs)

    monkeypatch.setattr(parse_ahead.ParseAhead, "__init__", counting)

    out = run(served, {"files": [{"name": "flood.txt", "text": FLOOD}, good := SHAPES_FILE]})

    assert [Path(d["source"]).name for d in out["documents"]] == [good["name"]]
    [failure] = out["failures"]
    assert failure["path"] == "flood.txt"
    assert failure["reason"] == (
        "files[0].content: the document has at least 10000 paragraphs, too many to store: "
        "its 30000 characters of text pay for 1200: past the first 1000, 40 paragraphs "
        "per 1,000 characters (DEEPREAD_INGEST_MAX_PARAGRAPHS_PER_1000_CHARS); join its "
        "short paragraphs"
    )
    assert [Path(p).name for p in parsed] == [good["name"]]
    assert folder_bytes(tmp_path / "store") < 5 * 1024 * 1024  # was 46 MB


SHAPES_FILE = {"name": "shapes.md", "text": SHAPES_MD}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("flood.html", "<html><body>" + "<p>ab</p>" * 3_000 + "</body></html>"),
        ("flood.md", "# Flood\n\n" + "- ab\n" * 3_000),
    ],
)
def test_a_flood_in_another_form_is_refused_after_parsing_before_embedding(
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    """HTML paragraphs and Markdown list items are not blank-line blocks: they are
    counted once parsed, and refused before anything of them is embedded."""
    from deepread.corpus import pipeline

    embedded: list[int] = []
    real = pipeline.embed_texts

    def counting(model, texts):  # what reaches the embedding model
        embedded.append(len(texts))
        return real(model, texts)

    monkeypatch.setattr(pipeline, "embed_texts", counting)

    out = run(served, {"files": [{"name": name, "text": text}]})

    assert out["documents"] == [] and embedded == []
    [failure] = out["failures"]
    assert failure["reason"].startswith("the document has 3000 paragraphs, too many to store")
    assert not (tmp_path / "store" / "uploads" / "docs").exists()


def test_a_long_document_of_short_sections_is_stored_and_the_cap_is_the_operators(
    served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,050 sections of one short sentence each (about 30 characters a paragraph): the
    density cap lets them through; an operator's lower absolute cap refuses them."""
    text = "".join(f"# Item {i}\n\nItem {i} is in stock.\n\n" for i in range(1_050))

    out = run(served, {"files": [{"name": "stock.md", "text": text}]})
    assert [d["paragraphs"] for d in out["documents"]] == [1_050], out["failures"]

    monkeypatch.setenv("DEEPREAD_INGEST_MAX_PARAGRAPHS", "1020")
    again = run(served, {"files": [{"name": "stock2.md", "text": text + "More.\n"}]})
    [failure] = again["failures"]
    assert failure["reason"].endswith(
        "too many to store: at most 1020 are stored per document (DEEPREAD_INGEST_MAX_PARAGRAPHS)"
    )
