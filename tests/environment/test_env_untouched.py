"""Using deepread leaves the host program's environment exactly as it was.

The check runs in a fresh interpreter (a subprocess), so nothing imported or set by this
test session can hide a change: with a ``.env`` in the working directory, the child
snapshots ``os.environ``, imports deepread, opens an index, ingests one file through each
parser path (Markdown, HTML, PDF, DOCX), retrieves, and compares.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import docx

CHILD = textwrap.dedent("""
    import json, os, sys
    before = dict(os.environ)
    import deepread
    after_import = dict(os.environ)
    folder = sys.argv[1]
    files = [os.path.join(folder, n) for n in ("a.md", "b.html", "c.pdf", "d.docx")]
    with deepread.Index.open(store=os.path.join(folder, "store"), collection="env") as idx:
        result = idx.ingest_report(files)
        hits = idx.retrieve("Which fruit grows on palms?", k=3)
    after = dict(os.environ)

    def changed(a, b):
        return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))

    print(json.dumps({"import": changed(before, after_import), "use": changed(before, after),
                      "stored": len(result.documents), "failures": [f.reason for f in
                      result.failures], "hits": len(hits)}))
""")


def _pdf(text: str) -> bytes:
    """A one-page PDF with a real text layer (Helvetica), written by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_the_environment_is_identical_after_import_ingest_and_retrieve(tmp_path: Path):
    (tmp_path / ".env").write_text("OPENAI_API_KEY=x\nDEEPREAD_K=9\n", encoding="utf-8")
    (tmp_path / "a.md").write_text(
        "# Apples\n\n## Colour\n\nApples are red or green.\n", encoding="utf-8"
    )
    (tmp_path / "b.html").write_text(
        "<html><head><title>Bananas</title></head><body><h1>Bananas</h1>"
        "<p>Bananas are yellow and sweet.</p><ul><li>Cavendish</li></ul></body></html>",
        encoding="utf-8",
    )
    (tmp_path / "c.pdf").write_bytes(_pdf("Cherries are small red stone fruits."))
    document = docx.Document()
    document.add_heading("Dates", 1)
    document.add_paragraph("Dates grow on palms in hot deserts.")
    document.save(tmp_path / "d.docx")
    env = {
        k: v
        for k, v in __import__("os").environ.items()
        if k
        not in (
            "DO_NOT_TRACK",
            "SCARF_NO_ANALYTICS",
            "UNSTRUCTURED_DISABLE_NOTICE",
            "HF_HUB_OFFLINE",
            "TIKTOKEN_CACHE_DIR",
            "OPENAI_API_KEY",
        )
        and not k.startswith("DEEPREAD_")
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["failures"] == [] and report["stored"] == 4 and report["hits"]
    assert report["import"] == []
    assert report["use"] == []
