"""Word (.docx) reader: unstructured's partitioner, headings from Word heading styles.

python-docx parses the package's XML without lxml's ``huge_tree``, so libxml2 refuses any
text node over 10,000,000 bytes ("Text node too long"): a .docx holding one ~12 MB run
aborted the whole folder ingest. A part that large is rewritten first, in a temporary
copy, with every paragraph longer than ``MAX_PARAGRAPH_CHARS`` cut into bounded
paragraphs (the cut the tree builder would make anyway; see
:mod:`deepread.corpus.parsing.structure`). Malformed XML is the file's error, named.
"""

from __future__ import annotations

import copy
import tempfile
import zipfile
from pathlib import Path

from lxml import etree

from deepread.corpus.parsing.blocks import ParsedDocument
from deepread.corpus.parsing.elements import to_blocks
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.structure import MAX_PARAGRAPH_CHARS, split_long
from deepread.corpus.parsing.unstructured_setup import partitioner
from deepread.text.hygiene import storable

#: A part at least this large (uncompressed) may hold a text node past libxml2's default
#: limit of 10,000,000 bytes; smaller parts cannot, and are read as they are.
HUGE_PART = 8_000_000
#: Largest part read at all (uncompressed): a ZIP bomb must not fill the memory.
MAX_PART = 512 * 1024 * 1024

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def _bounded_part(data: bytes) -> bytes:
    """A WordprocessingML part with each paragraph over the limit cut into several."""
    parser = etree.XMLParser(huge_tree=True, resolve_entities=False)
    root = etree.fromstring(data, parser)
    for para in list(root.iter(f"{_W}p")):
        text = "".join(t.text or "" for t in para.iter(f"{_W}t"))
        parent = para.getparent()
        if len(text) <= MAX_PARAGRAPH_CHARS or parent is None:
            continue
        props = para.find(f"{_W}pPr")
        for piece in split_long(text):
            new = etree.Element(f"{_W}p")
            if props is not None:
                new.append(copy.deepcopy(props))
            run_text = etree.SubElement(etree.SubElement(new, f"{_W}r"), f"{_W}t")
            run_text.set(_SPACE, "preserve")
            run_text.text = piece
            para.addprevious(new)  # constant time, where parent.index() is linear
        parent.remove(para)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def _bounded_copy(path: Path, folder: Path) -> Path:
    """``path`` itself, or a copy in ``folder`` whose huge parts were bounded."""
    with zipfile.ZipFile(path) as package:
        infos = package.infolist()
        for info in infos:
            if info.file_size > MAX_PART:
                raise ParseError(
                    path,
                    f"not read: its part {info.filename} expands to "
                    f"{info.file_size // 2**20} MB (over "
                    f"{MAX_PART // 2**20} MB)",
                )
        huge = {
            info.filename
            for info in infos
            if info.file_size >= HUGE_PART
            and info.filename.startswith("word/")
            and info.filename.endswith(".xml")
        }
        if not huge:
            return path
        bounded = folder / path.name
        with zipfile.ZipFile(bounded, "w", zipfile.ZIP_DEFLATED) as out:
            for info in infos:
                data = package.read(info)
                out.writestr(info, _bounded_part(data) if info.filename in huge else data)
    return bounded


#: Content types of a Word package's main part (.docx; .docm and templates' variants).
_MAIN_PART_VARIANTS = (
    b"wordprocessingml.document.main",
    b"wordprocessingml.template.main",
    b"ms-word.document.macroEnabled.main",
    b"ms-word.template.macroEnabledTemplate.main",
)


def _declares_a_word_document(path: Path) -> bool:
    """Whether the package's ``[Content_Types].xml`` names a Word main document part."""
    with zipfile.ZipFile(path) as package:
        try:
            types = package.read("[Content_Types].xml")
        except KeyError:
            return False
    return any(kind in types for kind in _MAIN_PART_VARIANTS)


def read_docx(path: Path) -> ParsedDocument:
    """Blocks of a .docx file; the core-properties title when the author set one."""
    if path.stat().st_size == 0:
        raise ParseError(path, "the file is empty")
    if not zipfile.is_zipfile(path):
        raise ParseError(path, "not a valid .docx (a .docx is a ZIP package; this is not)")
    if not _declares_a_word_document(path):
        # Another ZIP (an .xlsx, a .pptx, an archive) renamed, or a damaged package;
        # python-docx fails on it with an AttributeError deep inside.
        raise ParseError(
            path,
            "not a Word document: its package declares no main "
            "document part (another Office file or archive renamed "
            ".docx?)",
        )
    import docx
    from docx.opc.exceptions import OpcError

    partition_docx = partitioner("docx")

    with tempfile.TemporaryDirectory(prefix="deepread-docx-") as folder:
        try:
            source = str(_bounded_copy(path, Path(folder)))
            title = (docx.Document(source).core_properties.title or "").strip() or None
            # unstructured hashes the file name into element ids with a strict UTF-8
            # encode: a name that is not UTF-8 (surrogate-escaped bytes) must not fail it.
            elements = partition_docx(
                filename=source, languages=[""], metadata_filename=storable(str(path))
            )
        except etree.XMLSyntaxError as exc:
            raise ParseError(path, f"not a readable .docx: its XML is malformed ({exc})") from exc
        except (KeyError, ValueError, zipfile.BadZipFile, OpcError) as exc:
            if isinstance(exc, ParseError):
                raise
            raise ParseError(path, f"not a readable .docx ({exc})") from exc
    return ParsedDocument(
        title=title, blocks=to_blocks(elements), metadata={"title": title} if title else {}
    )
