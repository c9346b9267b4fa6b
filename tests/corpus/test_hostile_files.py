"""Hostile files (issue 15, ingest half): each class ends in a clear line per file within
a bounded time, the files beside it stored, nothing silently dropped.

Classes, each a row of docs/reliability.md: one guard per file (any exception while
parsing or storing a file is that file's failure), non-regular files (pipes, sockets,
devices) named from ``stat`` and never opened, bounded work (parse cost linear in pages
and paragraphs), oversized text nodes (past libxml2's 10 MB limits) stored as bounded
paragraphs, byte-order marks honoured, figures atop PDF pages kept as data. Inputs are
generated here; anything that could hang runs under a timeout so a regression fails
instead of blocking the suite.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docx
import pytest
from support.pdf_builder import Doc, filler

from deepread import Index
from deepread.corpus.enrich import IngestModels
from deepread.corpus.parsing import ParseError, Structured, parse_file
from deepread.corpus.parsing.structure import MAX_PARAGRAPH_CHARS
from deepread.corpus.pipeline import IngestResult
from deepread.records.errors import StoreError
from deepread.stores.collection import Collection

#: Past libxml2's default limits (10,000,000 bytes of text node or input buffer), in
#: two-byte UTF-8 letters: half the characters of an English page of the same bytes, so
#: the unstructured partitioner (pure Python per character) takes half the time.
PANGRAM = "Съешь же ещё этих мягких французских булок, да выпей чаю. "
HUGE_TEXT = PANGRAM * (10_300_000 // len(PANGRAM.encode()))


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """``fn()`` in a thread; fails (instead of hanging the suite) past ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test thread below
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"did not finish within {seconds} s (blocked?)"
    if "error" in box:
        raise box["error"]
    return box["value"]


def write_docx(path: Path, *paragraphs: str) -> Path:
    document = docx.Document()
    document.add_heading("Ledger", 1)
    for text in paragraphs:
        document.add_paragraph(text)
    document.save(str(path))
    return path


def truncated_xml_docx(path: Path) -> Path:
    """A .docx whose ``word/document.xml`` stops in the middle of a tag."""
    good = write_docx(path.with_name("source.docx"), "Harbour ledger entries.")
    with zipfile.ZipFile(good) as package:
        parts = {name: package.read(name) for name in package.namelist()}
    xml = parts["word/document.xml"]
    cut = xml.index(b"<w:t", len(xml) // 2) + 3
    parts["word/document.xml"] = xml[:cut]
    with zipfile.ZipFile(path, "w") as out:
        for name, data in parts.items():
            out.writestr(name, data)
    good.unlink()
    return path


def good_folder(folder: Path) -> Path:
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nA paragraph about walruses.\n")
    write_docx(folder / "good.docx", "A paragraph about harbour ledgers.")
    return folder


def stored_names(idx: Index) -> list[str]:
    return sorted(Path(d.source).name for d in idx.documents())


def reasons(report: IngestResult) -> dict[str, str]:
    return {Path(f.path).name: f.reason for f in report.failures}


# -- one guard per file ------------------------------------------------------------------


def test_a_docx_with_malformed_xml_is_its_own_failure_and_its_neighbours_are_stored(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    folder = good_folder(tmp_path / "corpus")
    truncated_xml_docx(folder / "broken.docx")
    idx = open_index()

    report = idx.ingest_report(folder)

    assert list(reasons(report)) == ["broken.docx"]
    assert reasons(report)["broken.docx"].startswith("not a readable .docx: its XML is malformed (")
    assert stored_names(idx) == ["good.docx", "good.md"]


def test_an_unexpected_exception_while_parsing_one_file_is_that_files_failure(
    open_index: Callable[[], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = good_folder(tmp_path / "corpus")
    (folder / "cursed.md").write_text("# Cursed\n\nText.\n")
    parse = IngestModels.parse

    def flaky(self: IngestModels, path: Path) -> Structured:
        if path.name == "cursed.md":
            raise RuntimeError("a reader bug nobody anticipated")
        return parse(self, path)

    monkeypatch.setattr(IngestModels, "parse", flaky)
    idx = open_index()

    report = idx.ingest_report(folder)

    assert reasons(report) == {
        "cursed.md": "unexpected RuntimeError: a reader bug nobody anticipated"
    }
    assert stored_names(idx) == ["good.docx", "good.md"]


def test_an_unexpected_exception_while_storing_one_file_is_that_files_failure(
    open_index: Callable[[], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = good_folder(tmp_path / "corpus")
    put = Collection.put_document

    def flaky(self: Collection, **kwargs: Any) -> Any:
        if kwargs["source"].endswith("good.docx"):
            raise KeyError("payload field")
        return put(self, **kwargs)

    monkeypatch.setattr(Collection, "put_document", flaky)
    idx = open_index()

    report = idx.ingest_report(folder)

    assert reasons(report) == {"good.docx": "unexpected KeyError: 'payload field'"}
    assert stored_names(idx) == ["good.md"]


def test_a_store_error_still_ends_the_whole_run(
    open_index: Callable[[], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The guard is per file: a store that cannot be written fails every file alike, so
    # it ends the run with its own message (the CLI's exit 3), not N failure lines.
    folder = good_folder(tmp_path / "corpus")

    def refuse(self: Collection, **kwargs: Any) -> Any:
        raise StoreError("the store is in use by another deepread process")

    monkeypatch.setattr(Collection, "put_document", refuse)

    with pytest.raises(StoreError, match="in use"):
        open_index().ingest_report(folder)


def test_another_zip_renamed_docx_is_named_as_not_a_word_document(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    folder = good_folder(tmp_path / "corpus")
    with zipfile.ZipFile(folder / "sheet.docx", "w") as package:  # an .xlsx's skeleton
        package.writestr(
            "[Content_Types].xml",
            '<Types><Override PartName="/xl/workbook.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.'
            'spreadsheetml.sheet.main+xml"/></Types>',
        )
        package.writestr("xl/workbook.xml", "<workbook/>")
    idx = open_index()

    report = idx.ingest_report(folder)

    assert reasons(report)["sheet.docx"].startswith(
        "not a Word document: its package declares no main document part"
    )
    assert stored_names(idx) == ["good.docx", "good.md"]


def test_a_docx_holding_one_10mb_run_is_stored_in_bounded_paragraphs(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    # python-docx parses without huge_tree: libxml2 refused the run ("Text node too
    # long") and the traceback aborted the whole folder ingest.
    folder = good_folder(tmp_path / "corpus")
    write_docx(folder / "huge.docx", "Opening paragraph.", HUGE_TEXT, "Closing paragraph.")
    idx = open_index()

    report = idx.ingest_report(folder)

    assert report.failures == []
    huge = next(d for d in idx.documents() if d.source.endswith("huge.docx"))
    section = huge.sections[1]  # "Ledger", the docx's heading
    texts = [p.text for p in idx.collection.paragraphs(huge.doc_id, 1, 0, section.n_para - 1)]
    assert texts[0] == "Ledger\nOpening paragraph." and texts[-1] == "Closing paragraph."
    assert max(len(t) for t in texts) <= MAX_PARAGRAPH_CHARS
    assert "".join(texts[1:-1]).replace(" ", "") == HUGE_TEXT.replace(" ", "")


def test_the_cli_names_a_malformed_docx_exits_1_and_stores_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from deepread.cli import main as cli

    folder = good_folder(tmp_path / "corpus")
    truncated_xml_docx(folder / "broken.docx")

    code = cli(["ingest", "--store", str(tmp_path / "store"), "--collection", "docs", str(folder)])

    err = capsys.readouterr().err
    assert code == 1
    assert f"FAILED {folder / 'broken.docx'}: not a readable .docx: its XML is malformed" in err
    assert "2 stored, 0 unchanged, 1 failed" in err
    assert "Traceback" not in err


# -- non-regular files -----------------------------------------------------------------------


def test_a_named_pipe_in_a_folder_is_named_and_skipped_without_blocking(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    folder = good_folder(tmp_path / "corpus")
    os.mkfifo(folder / "notes.txt")  # opening it would block until someone writes
    idx = open_index()

    report = within(60, lambda: idx.ingest_report(folder))

    assert reasons(report) == {
        "notes.txt": "a named pipe, not a regular file; skipped without opening it"
    }
    assert stored_names(idx) == ["good.docx", "good.md"]


def test_a_named_pipe_given_by_name_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "notes.md")

    with pytest.raises(ParseError, match="a named pipe, not a regular file"):
        within(30, lambda: parse_file(tmp_path / "notes.md"))


def test_a_link_to_a_device_in_a_folder_is_named_and_never_read(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    folder = good_folder(tmp_path / "corpus")
    (folder / "endless.txt").symlink_to("/dev/zero")  # reading it would never end

    report = within(60, lambda: open_index().ingest_report(folder))

    assert reasons(report) == {
        "endless.txt": "a character device, not a regular file; skipped without opening it"
    }


def test_a_socket_in_a_folder_is_named_and_skipped(
    open_index: Callable[[], Index], tmp_path: Path
) -> None:
    folder = good_folder(tmp_path / "c")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(folder / "s.md"))

        report = within(60, lambda: open_index().ingest_report(folder))

    assert reasons(report) == {"s.md": "a socket, not a regular file; skipped without opening it"}


def test_the_cli_ingest_of_a_folder_with_a_named_pipe_finishes_and_exits_1(tmp_path: Path) -> None:
    folder = good_folder(tmp_path / "corpus")
    os.mkfifo(folder / "notes.txt")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPREAD_")}

    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("deepread")),
            "ingest",
            "--store",
            str(tmp_path / "store"),
            "--collection",
            "docs",
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    assert f"FAILED {folder / 'notes.txt'}: a named pipe" in done.stderr
    assert "2 stored, 0 unchanged, 1 failed" in done.stderr


# -- bounded work ----------------------------------------------------------------------------


def sequence_pdf(path: Path, pages: int) -> Path:
    """Pages of "sequence lines": letters only, no spaces, no sentence ends (DNA)."""
    doc = Doc()
    for page in range(pages):
        doc.page()
        for row in range(55):
            doc.line("".join("ACGT"[(page * 7 + row * 13 + i * i) % 4] for i in range(90)), size=9)
    return doc.save(path)


def cpu_seconds(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Least CPU time of ``repeat`` runs of ``fn`` (the least noisy of the readings)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def assert_parse_scales_linearly(small: Path, large: Path, repeat: int = 2) -> None:
    """``large`` (4× ``small``) must cost well under 16× the CPU, what a square would.

    The bound of 10 leaves room for noise around the linear 4×; the 60 s ceiling only
    keeps a regression from looking like a hang.
    """
    parse_file(small)  # warm the reader's stack once
    t_small = cpu_seconds(lambda: parse_file(small), repeat)
    t_large = cpu_seconds(lambda: parse_file(large), repeat)
    assert t_large < 60
    assert t_large < 10 * max(t_small, 0.01), (small.name, t_small, t_large)


def test_parsing_sequence_line_pdfs_grows_linearly_with_their_pages(tmp_path: Path) -> None:
    # The line joiner once searched the whole growing paragraph per line: 6 pages took
    # 3.9 s, 24 pages a minute.
    assert_parse_scales_linearly(
        sequence_pdf(tmp_path / "s4.pdf", 4), sequence_pdf(tmp_path / "s16.pdf", 16), repeat=3
    )


@pytest.mark.parametrize("suffix", [".md", ".html", ".txt", ".docx"])
def test_parsing_grows_linearly_with_the_number_of_paragraphs(tmp_path: Path, suffix: str) -> None:
    # A step quadratic in the paragraph (or heading) count would show here.
    def write(n: int) -> Path:
        paras = [(f"Heading {i}" if i % 10 == 0 else "") + "|" + filler(40, i) for i in range(n)]
        path = tmp_path / f"doc{n}{suffix}"
        if suffix == ".docx":
            document = docx.Document()
            for p in paras:
                head, text = p.split("|")
                if head:
                    document.add_heading(head, 2)
                document.add_paragraph(text)
            document.save(str(path))
        elif suffix == ".html":
            path.write_text(
                "<html><body>"
                + "".join(
                    (f"<h2>{h}</h2>" if h else "") + f"<p>{t}</p>"
                    for h, t in (p.split("|") for p in paras)
                )
                + "</body></html>"
            )
        else:
            path.write_text(
                "\n\n".join(
                    (f"## {h}\n\n" if h and suffix == ".md" else "") + t
                    for h, t in (p.split("|") for p in paras)
                )
            )
        return path

    assert_parse_scales_linearly(write(500), write(2000))


@pytest.mark.parametrize(
    ("name", "unit"),
    [
        ("unclosed angle brackets (unfenced code)", "for (i = 0; i <n; i++) x();\n"),
        ("unclosed square brackets", "[a "),
        ("unclosed images", "![a "),
        ("links without their closing parenthesis", "[a](b "),
        ("unclosed references", "[a][b "),
        ("unclosed autolinks", "<http://a "),
    ],
)
def test_markdown_with_openers_that_never_close_parses_in_linear_time_keeping_them(
    tmp_path: Path, name: str, unit: str
) -> None:
    # Python-Markdown scanned from each such opener to the end of the paragraph (or of
    # the document, for "<"): 4,000 lines of unfenced C took 6 s, 12 KB of "[a " 8 s.
    def write(n: int) -> Path:
        path = tmp_path / f"{n}.md"
        path.write_text("# Notes\n\n" + unit * n, encoding="utf-8")
        return path

    large = write(4000)
    assert_parse_scales_linearly(write(1000), large)
    text = "".join(p.text for p in parse_file(large).paragraphs).removeprefix("Notes\n")
    assert re.sub(r"\s", "", text) == re.sub(r"\s", "", unit * 4000)


def test_a_paragraph_of_nested_brackets_parses_in_linear_time(tmp_path: Path) -> None:
    # spaCy's tokenizer (behind unstructured's text-type heuristics) strips trailing
    # punctuation one character at a time, rescanning the token: 6,000 brackets took
    # 4.5 s, 24,000 took 39 s.
    def write(n: int) -> Path:
        path = tmp_path / f"{n}.md"
        path.write_text("[" * n + "x" + "]" * n, encoding="utf-8")
        return path

    large = write(8000)
    assert_parse_scales_linearly(write(2000), large)
    assert "".join(p.text for p in parse_file(large).paragraphs) == "[" * 8000 + "x" + "]" * 8000


def test_guarded_markdown_still_renders_links_tags_and_code(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Guide\n\nSee [the docs](https://x.example) and <b>bold</b>, "
        "if i <n then [stop.\n\n```\nwhile (i <n) { a[i] = b[i; }\n```\n",
        encoding="utf-8",
    )

    texts = [p.text for p in parse_file(page).paragraphs]

    assert texts == [
        "Guide\nSee the docs and bold, if i <n then [stop.",
        "while (i <n) { a[i] = b[i; }",
    ]


# -- oversized text nodes --------------------------------------------------------------------


def assert_bounded_and_whole(parsed: Structured, before: str, after: str) -> None:
    texts = [p.text for p in parsed.paragraphs]
    assert max(len(t) for t in texts) <= MAX_PARAGRAPH_CHARS
    start, end = texts.index(before), texts.index(after)
    middle = "".join(texts[start + 1 : end]).replace(" ", "")
    assert middle == HUGE_TEXT.replace(" ", "")


def test_an_html_page_that_is_one_10mb_paragraph_keeps_it_and_everything_after(
    tmp_path: Path,
) -> None:
    # Was: the paragraph and everything after it silently dropped (libxml2's buffer
    # limit), exit 0; alone on its page, "no text content found".
    page = tmp_path / "spec.html"
    page.write_text(
        f"<html><body><h1>Spec</h1><p>Before.</p><p>{HUGE_TEXT}</p>"
        "<p>After.</p><h2>Later</h2><p>Later text.</p></body></html>",
        encoding="utf-8",
    )

    parsed = parse_file(page)

    assert_bounded_and_whole(parsed, "Spec\nBefore.", "After.")
    assert parsed.sections[-1].title == "Later"
    assert parsed.paragraphs[-1].text == "Later\nLater text."


def test_a_markdown_file_with_one_10mb_paragraph_keeps_it_and_everything_after(
    tmp_path: Path,
) -> None:
    page = tmp_path / "notes.md"
    page.write_text(
        f"# Notes\n\nBefore.\n\n{HUGE_TEXT}\n\nAfter.\n\n## Later\n\nLater text.\n",
        encoding="utf-8",
    )

    parsed = parse_file(page)

    assert_bounded_and_whole(parsed, "Notes\nBefore.", "After.")
    assert parsed.sections[-1].title == "Later"


def test_an_html_code_block_of_10mb_stays_code_in_bounded_pieces(tmp_path: Path) -> None:
    lines = "\n".join(
        f"    base64 line {i:07d} QUJDREVGR0hJSktMTU5PUFFSU1RVVldY" for i in range(10_300_000 // 50)
    )
    page = tmp_path / "dump.html"
    page.write_text(
        f"<html><body><p>Before.</p><pre><code>{lines}</code></pre><p>After.</p></body></html>",
        encoding="utf-8",
    )

    parsed = parse_file(page)

    kinds = {p.kind for p in parsed.paragraphs[1:-1]}
    assert kinds == {"code"}
    assert parsed.paragraphs[-1].text == "After."
    assert max(len(p.text) for p in parsed.paragraphs) <= MAX_PARAGRAPH_CHARS
    assert sum(p.text.count("base64 line") for p in parsed.paragraphs) == 10_300_000 // 50


@pytest.mark.parametrize(
    ("name", "unit"),
    [("unclosed bold tags", "<b>word{i} "), ("lists in lists", "<ul><li>word{i} ")],
)
def test_html_nested_300_deep_by_unclosed_tags_keeps_every_word(
    tmp_path: Path, name: str, unit: str
) -> None:
    # libxml2 drops what is nested deeper than 256 elements, silently; only plain
    # containers (<div>, <section>…) used to be unwrapped, so 300 unclosed <b> lost the
    # last 46 words and everything after them.
    page = tmp_path / "deep.html"
    page.write_text(
        "<html><body><p>Start.</p>"
        + "".join(unit.format(i=i) for i in range(300))
        + "<p>End.</p></body></html>"
    )

    text = " ".join(p.text for p in parse_file(page).paragraphs)

    assert all(f"word{i}" in text.split() for i in range(300)), name
    assert text.endswith("End.")


def test_html_tables_nested_300_deep_are_refused_not_truncated(tmp_path: Path) -> None:
    page = tmp_path / "tables.html"
    page.write_text("<html><body>" + "<table><tr><td>cell " * 300 + "</body></html>")

    with pytest.raises(ParseError, match="tables or code blocks nested more than 250 deep"):
        parse_file(page)


# -- encodings ---------------------------------------------------------------------------------

ACCENTED = "Café naïve — déjà vu"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8"])
@pytest.mark.parametrize("suffix", [".txt", ".md", ".html"])
def test_text_with_a_byte_order_mark_is_decoded_by_it(
    tmp_path: Path, encoding: str, suffix: str
) -> None:
    body = {
        ".txt": f"{ACCENTED}.\n",
        ".md": f"# {ACCENTED}\n\n{ACCENTED}.\n",
        ".html": f"<html><body><h1>{ACCENTED}</h1><p>{ACCENTED}.</p></body></html>",
    }
    path = tmp_path / f"windows{suffix}"
    path.write_bytes("\ufeff".encode(encoding) + body[suffix].encode(encoding))

    parsed = parse_file(path)

    heading = "" if suffix == ".txt" else f"{ACCENTED}\n"  # the heading's line
    assert [p.text for p in parsed.paragraphs] == [f"{heading}{ACCENTED}."]
    if suffix != ".txt":
        assert parsed.title == ACCENTED
    assert not any("\ufeff" in s.title for s in parsed.sections)


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_text_whose_lines_end_in_cr_keeps_its_paragraphs_and_headings(
    tmp_path: Path, newline: str
) -> None:
    # Classic Mac OS text ends lines in a bare CR: read on "\n" only, it was one line.
    md = tmp_path / "mac.md"
    md.write_bytes(
        newline.join(
            ["# Harbour", "", "The quay is long.", "", "## Tides", "", "High water at noon.", ""]
        ).encode()
    )
    txt = tmp_path / "mac.txt"
    txt.write_bytes(newline.join(["Line one about boats.", "", "Line two about ships."]).encode())

    parsed_md, parsed_txt = parse_file(md), parse_file(txt)

    assert [s.title for s in parsed_md.sections[1:]] == ["Harbour", "Tides"]
    assert [p.text for p in parsed_md.paragraphs] == [
        "Harbour\nThe quay is long.",
        "Tides\nHigh water at noon.",
    ]
    assert [p.text for p in parsed_txt.paragraphs] == [
        "Line one about boats.",
        "Line two about ships.",
    ]


# -- figures are data ----------------------------------------------------------------------


def pages_with_top_rows(path: Path, row: Callable[[Doc, int], None]) -> Path:
    """Eight pages, each beginning with ``row(doc, n)``, with prose and a footer."""
    doc = Doc()
    for n in range(1, 9):
        doc.page()
        row(doc, n)
        doc.gap(30).para(filler(70, n))
        doc.line("ACME Corporation | Annual Report 2023", x=200, y=740, size=8)
    return doc.save(path)


def all_text(parsed: Structured) -> str:
    return " ".join([s.title for s in parsed.sections] + [p.text for p in parsed.paragraphs])


def test_a_labelled_row_of_figures_atop_every_page_is_kept_with_its_label(tmp_path: Path) -> None:
    def row(doc: Doc, n: int) -> None:
        doc.line("Net revenue", y=40, advance=False)
        doc.line(f"{1000 + 37 * n:,}", x=400, y=40, advance=False)
        doc.line(f"{2000 + 91 * n:,}", x=480, y=40)

    parsed = parse_file(pages_with_top_rows(tmp_path / "rows.pdf", row))

    text = all_text(parsed)
    assert text.count("Net revenue") == 8
    for n in range(1, 9):
        assert f"{1000 + 37 * n:,}" in text and f"{2000 + 91 * n:,}" in text
    assert "ACME Corporation" not in text  # the footer is still furniture


def test_a_row_of_words_and_figures_differing_only_in_digits_is_data(tmp_path: Path) -> None:
    # Masking digits made every "Net revenue 1,037 2,091 …" one repeated "header".
    def row(doc: Doc, n: int) -> None:
        doc.line(f"Net revenue {1000 + 37 * n:,} {2000 + 91 * n:,} {3000 + 13 * n:,}", y=40)

    parsed = parse_file(pages_with_top_rows(tmp_path / "rows.pdf", row))

    text = all_text(parsed)
    for n in range(1, 9):
        assert f"Net revenue {1000 + 37 * n:,} {2000 + 91 * n:,} {3000 + 13 * n:,}" in text
    assert "ACME Corporation" not in text


def test_a_header_whose_only_changing_number_counts_the_pages_is_still_dropped(
    tmp_path: Path,
) -> None:
    def row(doc: Doc, n: int) -> None:
        doc.line(f"ACME 2023 Form 10-K | Page {n + 4} of 12", y=40)

    parsed = parse_file(pages_with_top_rows(tmp_path / "headers.pdf", row))

    assert not re.search(r"Page \d+ of 12", all_text(parsed))


# -- headings that would make unbounded paragraphs (issue 29, next class) -------------------


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("# " + "walrus " * 10_000 + "\n\nThe walrus sleeps.\n", "one 70,000-character heading"),
        (
            "".join(f"# H{i}\n\n" for i in range(5_000)) + "The walrus sleeps.\n",
            "5,000 headings before one paragraph",
        ),
        (
            "# Start\n\nText.\n\n" + "".join(f"# Tail heading {i}\n\n" for i in range(5_000)),
            "5,000 headings after the last paragraph",
        ),
    ],
    ids=["long-heading", "many-headings", "trailing-headings"],
)
def test_headings_never_make_a_paragraph_past_the_paragraph_cap(
    tmp_path: Path, text: str, what: str
) -> None:
    path = tmp_path / "h.md"
    path.write_text(text, encoding="utf-8")

    parsed = parse_file(path)

    from deepread.corpus.parsing.structure import MAX_HEADER_LINE_CHARS, MAX_HEADER_LINES

    longest = max(len(p.text) for p in parsed.paragraphs)
    # a paragraph's own text, and a header of at most its nearest headings, each cut
    assert longest <= MAX_PARAGRAPH_CHARS + MAX_HEADER_LINES * (MAX_HEADER_LINE_CHARS + 3), (
        what,
        longest,
    )
    assert (
        "The walrus sleeps." in " ".join(p.text for p in parsed.paragraphs)
        or "Tail heading 4999" in parsed.paragraphs[-1].text
    )
