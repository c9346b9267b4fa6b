"""Bad inputs: every file in a generated corpus of broken, odd and huge inputs either
parses sensibly or fails with a specific message, and a folder ingest goes on past the
bad ones, reports them, and never leaves a partial document in the store.

The corpus is built by the tests (nothing binary is checked in). Ingest tests use a
hash "embedding" (the store and the parsers are under test here, not the model), and
every index a test opens is checked on teardown: each document holds exactly the
paragraphs its TOC records (:func:`assert_whole`). Rows of docs/reliability.md.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.pdf_builder import Doc, raw_pdf
from support.stores import assert_whole

from deepread import Index
from deepread.cli import main as cli
from deepread.corpus.files import expand_paths
from deepread.corpus.parsing import ParseError, parse_file
from deepread.corpus.parsing.structure import MAX_PARAGRAPH_CHARS

# -- corpus ---------------------------------------------------------------------------------


def text_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF with ``lines`` in Helvetica (text layer included)."""
    stream = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return raw_pdf(objects)


def encrypted_pdf() -> bytes:
    """A text PDF that opens only with the user password "secret" (fpdf2's encryption)."""
    doc = Doc().page().line("Top secret text.")
    doc.pdf.set_encryption(owner_password="owner", user_password="secret")
    return bytes(doc.pdf.output())


def scanned_pdf() -> bytes:
    """An image-only page (what a scanner produces): no text layer at all."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (400, 200), "white")
    ImageDraw.Draw(image).text((20, 80), "Scanned words, pixels only", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, "PDF")
    return buffer.getvalue()


def png_bytes() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    return buffer.getvalue()


GOOD_PDF_LINES = ["Reliability report.", "The walrus sleeps on the ice."]
CP1252_TEXT = "Café naïve “quoted” — déjà vu."
MARKER = "zebracornium"


def five_mb_line() -> str:
    """A 5 MB single line of sentences with ``MARKER`` in the middle."""
    sentence = "The quick brown fox number {i} jumps over the lazy dog. "
    text = "".join(sentence.format(i=i) for i in range(90_000))
    middle = len(text) // 2
    return (text[:middle] + f" The {MARKER} appears once. " + text[middle:])[:5_000_000]


def write(path: Path, content: bytes | str) -> Path:
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


# -- store helpers -------------------------------------------------------------------------


def reason_of(path: Path) -> str:
    with pytest.raises(ParseError) as caught:
        parse_file(path)
    assert caught.value.path == str(path)
    return caught.value.reason


# -- PDFs --------------------------------------------------------------------------------------


def test_the_generated_text_pdf_parses(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path / "good.pdf", text_pdf(GOOD_PDF_LINES)))

    assert " ".join(p.text for p in doc.paragraphs) == " ".join(GOOD_PDF_LINES)


def test_a_truncated_pdf_is_refused_as_truncated(tmp_path: Path) -> None:
    data = text_pdf(GOOD_PDF_LINES)
    path = write(tmp_path / "cut.pdf", data[: len(data) // 2])

    assert reason_of(path) == (
        "the PDF is truncated (no %%EOF marker at the end); re-download or re-export it"
    )


def test_a_pdf_with_garbage_between_header_and_eof_is_refused_as_corrupt(tmp_path: Path) -> None:
    path = write(tmp_path / "corrupt.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n")

    assert reason_of(path).startswith("the PDF is corrupt")


def test_a_file_named_pdf_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "fake.pdf", "just some text, not a PDF")

    assert reason_of(path) == (
        "not a PDF file (no %PDF header); the file is corrupt or of another type"
    )


def test_an_encrypted_pdf_is_refused_naming_the_password(tmp_path: Path) -> None:
    path = write(tmp_path / "locked.pdf", encrypted_pdf())

    assert reason_of(path).startswith("the PDF is encrypted (password-protected)")


def test_a_scanned_image_only_pdf_is_refused_suggesting_ocr(tmp_path: Path) -> None:
    path = write(tmp_path / "scan.pdf", scanned_pdf())

    reason = reason_of(path)

    assert reason.startswith("the PDF has no extractable text; it looks scanned")
    assert "ocrmypdf" in reason


# -- empty, binary and non-UTF-8 files --------------------------------------------------------


@pytest.mark.parametrize("name", ["empty.pdf", "empty.docx", "empty.html", "empty.md", "empty.txt"])
def test_a_zero_byte_file_is_refused_as_empty(tmp_path: Path, name: str) -> None:
    assert reason_of(write(tmp_path / name, b"")) == "the file is empty (0 bytes)"


@pytest.mark.parametrize("name", ["blank.md", "blank.txt", "blank.html"])
def test_a_whitespace_only_file_is_refused_as_empty(tmp_path: Path, name: str) -> None:
    assert reason_of(write(tmp_path / name, "  \n\n\t \n")) == "the file is empty"


@pytest.mark.parametrize("name", ["image.md", "image.txt"])
def test_binary_data_named_as_text_is_refused_as_binary(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / name, png_bytes())

    assert reason_of(path) == "looks like binary data, not text (it contains NUL bytes)"


UTF16_TEXTS = {
    "notes.txt": "Walruses haul out on ice floes – “every” spring.\n\nThey eat clams.",
    "notes.md": "Walruses haul out on ice floes – “every” spring.\n\nThey eat clams.",
    "notes.html": "<p>Walruses haul out on ice floes – “every” spring.</p><p>They eat clams.</p>",
}


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("name", sorted(UTF16_TEXTS))
def test_utf16_without_a_byte_order_mark_is_read_as_text(
    tmp_path: Path, name: str, encoding: str
) -> None:
    path = write(tmp_path / name, UTF16_TEXTS[name].encode(encoding))

    assert [p.text for p in parse_file(path).paragraphs] == [
        "Walruses haul out on ice floes – “every” spring.",
        "They eat clams.",
    ]


def test_cp1252_text_keeps_its_accents_and_quotes(tmp_path: Path) -> None:
    path = write(tmp_path / "legacy.txt", CP1252_TEXT.encode("cp1252"))

    assert [p.text for p in parse_file(path).paragraphs] == [CP1252_TEXT]


def test_latin1_markdown_keeps_its_accented_heading_and_text(tmp_path: Path) -> None:
    path = write(tmp_path / "legacy.md", "# Résumé\n\nÀ bientôt, garçon.\n".encode("latin-1"))

    doc = parse_file(path)

    assert [s.title for s in doc.sections] == ["Résumé", "Résumé"]
    assert [p.text for p in doc.paragraphs] == ["Résumé\nÀ bientôt, garçon."]


# -- huge and odd shapes --------------------------------------------------------------------


@pytest.fixture(scope="module")
def huge_line() -> str:
    return five_mb_line()


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_a_5mb_single_line_is_split_into_bounded_paragraphs_losing_nothing(
    tmp_path: Path, huge_line: str, suffix: str
) -> None:
    path = write(tmp_path / f"huge{suffix}", huge_line)
    started = time.process_time()

    doc = parse_file(path)

    # CPU seconds, not wall time: a quadratic split takes minutes of CPU, while a loaded
    # shared machine only stretches the wall clock (29 s wall at load 13 for ~3 s of CPU).
    assert time.process_time() - started < 20
    assert len(doc.paragraphs) > 1000
    assert max(len(p.text) for p in doc.paragraphs) <= MAX_PARAGRAPH_CHARS
    assert all(p.text.endswith(".") for p in doc.paragraphs[:-1])  # cut at sentence ends
    assert " ".join(p.text for p in doc.paragraphs) == huge_line.strip()


# The ingest of the 5 MB line, alone in a fresh process: its peak memory is then this
# ingest's own. In the test process the high-water mark was already raised by the tests
# before, and the growth read from it was ~0. The child reads its peak from VmHWM (Linux:
# the peak RSS of the process's own memory, new at exec), not from ru_maxrss, which a
# child inherits from the process it was forked from: under pytest-xdist that was the
# worker's whole peak, and the growth read 0 again.
_INGEST_MEASURED = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[3])
    from deepread import Index
    from support.stores import HashEmbeddings

    def peak_mib():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
        raise RuntimeError("no VmHWM in /proc/self/status")

    idx = Index.open(store=sys.argv[1], collection="docs",
                     embeddings=HashEmbeddings(), reranker="none")
    peak_before = peak_mib()
    started = time.process_time()
    (doc,) = idx.ingest([sys.argv[2]])
    cpu_s = time.process_time() - started
    grown_mib = peak_mib() - peak_before
    idx.close()
    print(json.dumps({"cpu_s": cpu_s, "grown_mib": grown_mib, "n_para": doc.n_para}))
""")


def test_a_5mb_single_line_ingests_and_retrieval_reaches_its_middle(
    open_index: Callable[[], Index], tmp_path: Path, huge_line: str
) -> None:
    path = write(tmp_path / "huge.txt", huge_line)

    child = subprocess.run(
        [
            sys.executable,
            "-c",
            _INGEST_MEASURED,
            str(tmp_path / "store"),  # open_index's store and collection
            str(path),
            str(Path(__file__).parents[1]),
        ],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: the bounds are the CPU and memory below
        check=False,
    )

    assert child.returncode == 0, child.stderr
    measured = json.loads(child.stdout.splitlines()[-1])
    assert measured["cpu_s"] < 30  # CPU seconds, as above
    assert 0 < measured["grown_mib"] < 1024
    assert measured["n_para"] > 1000
    idx = open_index()  # and on teardown: the document holds exactly its TOC's paragraphs
    [hit] = idx.retrieve(MARKER, k=1, mode="bm25")
    assert MARKER in hit.text


def test_ten_thousand_markdown_headings_ingest_whole(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    text = "".join(f"# Heading {i}\n\nBody of heading {i}.\n\n" for i in range(10_000))
    idx = open_index()

    (doc,) = idx.ingest([write(tmp_path / "many.md", text)])

    assert len(doc.sections) == 10_001
    assert idx.collection.count_paragraphs(doc.doc_id) == doc.n_para == 10_000
    assert [p.text for p in idx.read_section(doc.doc_id, 5000)] == [
        "Heading 4999\nBody of heading 4999."
    ]


def test_markdown_with_only_headings_is_refused_as_having_no_text(tmp_path: Path) -> None:
    path = write(tmp_path / "bare.md", "".join(f"# H{i}\n\n" for i in range(50)))

    assert reason_of(path) == "no text content found"


def test_markdown_without_headings_is_one_root_section_named_after_the_file(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path / "flat-notes.md", "First.\n\nSecond.\n\nThird.\n"))

    assert [(s.sec_id, s.title, s.level) for s in doc.sections] == [(0, "flat-notes", 0)]
    assert [p.text for p in doc.paragraphs] == ["First.", "Second.", "Third."]


def test_fifty_nested_html_sections_with_repeated_h6_are_fifty_level_6_siblings(
    tmp_path: Path,
) -> None:
    body = "".join(f"<section><h6>Level {i}</h6><p>Text {i}.</p>" for i in range(50))
    path = write(tmp_path / "nested.html", f"<html><body>{body}{'</section>' * 50}</body></html>")

    doc = parse_file(path)

    assert [(s.level, s.parent) for s in doc.sections[1:]] == [(6, 0)] * 50
    assert [p.text for p in doc.paragraphs] == [f"Level {i}\nText {i}." for i in range(50)]


def test_html_nested_300_elements_deep_keeps_its_text(tmp_path: Path) -> None:
    # libxml2 silently dropped everything below depth 256 before html.py flattened it.
    markup = "<div>" * 300 + "<h2>Deep</h2><p>Deep text.</p>" + "</div>" * 300
    doc = parse_file(write(tmp_path / "deep.html", f"<html><body>{markup}</body></html>"))

    assert [s.title for s in doc.sections] == ["Deep", "Deep"]
    assert [p.text for p in doc.paragraphs] == ["Deep\nDeep text."]


def test_html_nested_past_the_parser_limit_is_refused_not_silently_truncated(
    tmp_path: Path,
) -> None:
    markup = "<p>Top.</p>" + "<div>" * 3000 + "<p>Deep text.</p>" + "</div>" * 3000
    path = write(tmp_path / "abyss.html", f"<html><body>{markup}</body></html>")

    assert reason_of(path) == (
        "HTML nested more than 2048 elements deep; the parser cannot read content below that depth"
    )


def test_markdown_heading_levels_past_six_stay_at_level_six(tmp_path: Path) -> None:
    text = "".join(f"{'#' * (i + 1)} Level {i}\n\nText {i}.\n\n" for i in range(9))

    doc = parse_file(write(tmp_path / "deep.md", text))

    assert [s.level for s in doc.sections[1:]] == [1, 2, 3, 4, 5, 6, 6, 6, 6]
    assert [s.parent for s in doc.sections[1:]] == [0, 1, 2, 3, 4, 5, 5, 5, 5]
    assert doc.sections[7].title == "# Level 6"  # Markdown has no h7: the extra # is text
    assert len(doc.paragraphs) == 9


def test_docx_heading_levels_one_to_nine_nest_nine_deep(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    for level in range(1, 10):
        document.add_heading(f"Level {level}", level=level)
        document.add_paragraph(f"Text {level}.")
    document.save(tmp_path / "deep.docx")

    doc = parse_file(tmp_path / "deep.docx")

    assert [(s.title, s.level, s.parent) for s in doc.sections[1:]] == [
        (f"Level {n}", n, n - 1) for n in range(1, 10)
    ]
    assert [p.sec_id for p in doc.paragraphs] == list(range(1, 10))


# -- paths: unsupported, duplicates, symlinks --------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"), [("data.xyz", ".xyz"), ("Makefile", "(no extension)"), ("scan.jpg", ".jpg")]
)
def test_an_unsupported_extension_is_refused_listing_the_supported_ones(
    tmp_path: Path, name: str, shown: str
) -> None:
    path = write(tmp_path / name, "content")

    assert reason_of(path) == (
        f"unsupported file type {shown}; supported: .pdf, .docx, "
        ".html, .htm, .xhtml, .md, .markdown, .txt"
    )


def test_the_same_file_given_twice_is_ingested_once(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    path = write(tmp_path / "a.md", "# A\n\nOnly once.\n")

    docs = open_index().ingest([path, path, tmp_path / "." / "a.md"])

    assert [d.doc_id for d in docs] == [1]


def test_a_file_and_a_symlink_to_it_are_ingested_once(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    path = write(tmp_path / "a.md", "# A\n\nOnly once.\n")
    (tmp_path / "alias.md").symlink_to(path)
    idx = open_index()

    idx.ingest([tmp_path / "alias.md", path, tmp_path])

    assert [d.source for d in idx.documents()] == [str(path.resolve())]


def test_a_folder_with_a_symlink_loop_is_walked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "tree"
    (folder / "sub").mkdir(parents=True)
    write(folder / "sub" / "a.md", "# A\n\nText.\n")
    (folder / "sub" / "up").symlink_to(folder)  # tree/sub/up -> tree: a cycle
    # The folders the walk lists, counted rather than timed: a walk round the loop
    # lists tree/sub/up/sub/up/… until the kernel's ELOOP, and still finds a.md once.
    listed: list[str] = []
    scandir = os.scandir

    def listing(path: str) -> Any:
        listed.append(os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", listing)

    files, failures = expand_paths([folder])

    # each folder once, and the link closing the loop once (listed before it is known)
    assert listed == [str(folder), str(folder / "sub"), str(folder / "sub" / "up")]
    assert files == [folder / "sub" / "a.md"]
    assert failures == []


def test_a_file_symlink_loop_in_a_folder_is_reported_not_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "tree"
    folder.mkdir()
    write(folder / "a.md", "# A\n\nText.\n")
    (folder / "ping.md").symlink_to(folder / "pong.md")
    (folder / "pong.md").symlink_to(folder / "ping.md")

    files, failures = expand_paths([folder])

    assert files == [folder / "a.md"]
    assert {(Path(f.path).name, f.reason) for f in failures} == {
        ("ping.md", "symlink loop (following the link leads back to it)"),
        ("pong.md", "symlink loop (following the link leads back to it)"),
    }


def test_a_dangling_symlink_is_reported_as_broken(tmp_path: Path) -> None:
    (tmp_path / "gone.md").symlink_to(tmp_path / "deleted.md")

    _, failures = expand_paths([tmp_path / "gone.md"])

    assert [(f.path, f.reason) for f in failures] == [
        (
            str(tmp_path / "gone.md"),
            f"broken symlink: its target {tmp_path / 'deleted.md'} does not exist",
        )
    ]


# -- a folder of everything ------------------------------------------------------------------


def bad_corpus(folder: Path) -> dict[str, str]:
    """Good and bad files in ``folder``; returns file name -> expected failure reason."""
    folder.mkdir()
    write(folder / "good.md", "# Good\n\nA perfectly good paragraph about walruses.\n")
    write(folder / "good.pdf", text_pdf(GOOD_PDF_LINES))
    write(folder / "legacy.txt", CP1252_TEXT.encode("cp1252"))
    expected = {
        "cut.pdf": "the PDF is truncated",
        "locked.pdf": "the PDF is encrypted",
        "scan.pdf": "the PDF has no extractable text",
        "zero.md": "the file is empty (0 bytes)",
        "blank.txt": "the file is empty",
        "image.md": "looks like binary data",
        "fake.docx": "not a valid .docx",
        "loop.md": "symlink loop",
    }
    data = text_pdf(GOOD_PDF_LINES)
    write(folder / "cut.pdf", data[: len(data) // 2])
    write(folder / "locked.pdf", encrypted_pdf())
    write(folder / "scan.pdf", scanned_pdf())
    write(folder / "zero.md", b"")
    write(folder / "blank.txt", "\n \n")
    write(folder / "image.md", png_bytes())
    write(folder / "fake.docx", "not a zip")
    (folder / "loop.md").symlink_to(folder / "loop.md")
    write(folder / "notes.xyz", "unsupported, so not even tried")
    return expected


def test_a_folder_ingest_reports_every_bad_file_with_its_reason(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    expected = bad_corpus(tmp_path / "corpus")

    report = open_index().ingest_report(tmp_path / "corpus")

    reasons = {Path(f.path).name: f.reason for f in report.failures}
    assert set(reasons) == set(expected)
    for name, start in expected.items():
        assert reasons[name].startswith(start), (name, reasons[name])


def test_a_folder_ingest_stores_every_good_file_despite_the_bad_ones(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    bad_corpus(tmp_path / "corpus")
    idx = open_index()

    idx.ingest_report(tmp_path / "corpus")

    assert sorted(Path(d.source).name for d in idx.documents()) == [
        "good.md",
        "good.pdf",
        "legacy.txt",
    ]


def test_the_cli_ingests_a_bad_folder_lists_failures_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = bad_corpus(tmp_path / "corpus")
    monkeypatch.delenv("DEEPREAD_EMBEDDINGS", raising=False)

    code = cli(
        [
            "ingest",
            "--store",
            str(tmp_path / "store"),
            "--collection",
            "docs",
            str(tmp_path / "corpus"),
        ]
    )

    err = capsys.readouterr().err
    assert code == 1
    for name in expected:
        assert f"FAILED {tmp_path / 'corpus' / name}: " in err
    assert f"3 stored, 0 unchanged, {len(expected)} failed (collection 'docs' of the store " in err
    assert "Traceback" not in err
    with Index.open(store=tmp_path / "store", collection="docs") as idx:
        assert len(idx.documents()) == 3
        assert_whole(idx)


def test_an_ingest_option_that_does_not_exist_is_refused_by_its_name(tmp_path):
    import deepread

    with (
        deepread.Index.open(store=tmp_path / "store", collection="c") as idx,
        pytest.raises(TypeError, match="'forse'"),
    ):
        idx.ingest([], forse=True)
