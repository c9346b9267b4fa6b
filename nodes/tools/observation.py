"""A tool result: what the model is shown (text) and what it carried (:class:`Observation`).

Every ``ToolMessage`` the tool executors write carries an :class:`Observation` as its
``artifact``, serialised to plain JSON data by :meth:`Observation.artifact` — the one
place it is written — and read back by :meth:`Observation.of` everywhere else (the
extractive policy, evidence notes, the CLI, the evaluation's trajectory). The artifact
stays plain data so checkpointers, the LangGraph server and Studio store and show it as
is.

The text follows the paper (§3.4, Format): each paragraph prefixed with
``[doc_id:sec_id:para_idx]``, grouped under a line naming its section, framed as data
inside ``<document_content>`` tags, with text that could close that frame or forge a
coordinate line escaped. Paragraphs the model has already been shown (read-region
memory) are not repeated: a run of them becomes one pointer line,
``[3:9:18-52] (shown above)``.

Everything else is kept as small as a reader allows, because every policy pays it on
every result — an LLM in its context and bill, the offline policy in the text its
observation budget leaves room for. The legend of these lines is said once, in the
system prompt and the tool descriptions (prompts/), not in every result: no result
repeats the query it answers or explains its coordinates; a read's range and the
section's size ride on the section's own line, ``## (3) [9] Grading (paragraphs 0-4 of
12)``; a title is not printed right above a paragraph that begins with it; a page is
named only where it changes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage

from deepread.corpus.framing import CLOSE, OPEN, escape, title_text
from deepread.environment.settings import current as current_settings
from deepread.nodes.read_memory import Regions, was_read
from deepread.records.documents import Document, Hit, Paragraph
from deepread.text.markup import shown_text

#: What a pointer line says after its coordinates: these paragraphs were shown in an
#: earlier result of the conversation (the system prompt says so once).
POINTER = "(shown above)"


@dataclass(slots=True)
class ShownParagraph:
    """A paragraph of a tool result; ``repeat``: shown only as a pointer (read before)."""

    doc_id: int
    sec_id: int
    para_idx: int
    text: str = ""
    kind: str = "text"
    page: int | None = None
    caption: str | None = None
    label: str | None = None
    image: str | None = None
    repeat: bool = False

    @property
    def coord(self) -> tuple[int, int, int]:
        return (self.doc_id, self.sec_id, self.para_idx)

    @classmethod
    def of(cls, paragraph: Paragraph, repeat: bool) -> ShownParagraph:
        # (where it is on its page stays in the store: a tool message need not carry it)
        row = {k: v for k, v in asdict(paragraph).items() if k in _ROW_FIELDS}
        return cls(**row, repeat=repeat)


_ROW_FIELDS = frozenset(f.name for f in fields(ShownParagraph))


@dataclass(slots=True)
class Observation:
    """The typed result of one tool call (the ``ToolMessage`` artifact)."""

    paragraphs: list[ShownParagraph] = field(default_factory=list)
    #: retrieve: the ranked hits, and the size of each hit's section ("d:s" -> n_para,
    #: n_tok) so a reader can size a read_section.
    hits: list[Hit] | None = None
    sections: dict[str, dict[str, int]] | None = None
    #: read_section: the clipped range read.
    range: list[int] | None = None
    #: follow_reference: what the reference resolved to.
    targets: list[dict[str, Any]] | None = None
    #: open_toc: the document whose TOC was shown.
    doc_id: int | None = None
    #: find_documents: the documents found, best first, and the names of the query no
    #: document holds at all.
    documents: list[int] | None = None
    unheld: list[str] | None = None
    #: Why the call was not run (the ToolMessage has status "error").
    error: str | None = None
    #: The error is the call's own (its arguments, a coordinate that does not exist): the
    #: same call fails the same way again (nodes/repeats.py). Not so for a store failure.
    final: bool = False

    def artifact(self) -> dict[str, Any]:
        """Plain JSON data for ``ToolMessage.artifact`` — the only serialiser."""
        out: dict[str, Any] = {"paragraphs": [asdict(p) for p in self.paragraphs]}
        if self.hits is not None:
            # coordinates and scores: where each paragraph is on its page is the store's
            # to say when a citation is shown, not every tool message's to carry
            out["hits"] = [
                {"doc_id": h.doc_id, "sec_id": h.sec_id, "para_idx": h.para_idx, "score": h.score}
                for h in self.hits
            ]
        for name in ("sections", "range", "targets", "doc_id", "documents", "unheld", "error"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.final:
            out["final"] = True
        return out

    @classmethod
    def of(cls, message: BaseMessage) -> Observation:
        """The observation a tool message carries (empty for anything else)."""
        art = getattr(message, "artifact", None)
        if not isinstance(art, dict):
            return cls()
        rows = [
            ShownParagraph(**{k: v for k, v in r.items() if k in _ROW_FIELDS})
            for r in art.get("paragraphs") or []
            if isinstance(r, dict)
        ]
        hits = art.get("hits")
        return cls(
            paragraphs=rows,
            hits=None
            if hits is None
            else [
                Hit(
                    int(h["doc_id"]),
                    int(h["sec_id"]),
                    int(h["para_idx"]),
                    float(h.get("score", 0.0)),
                )
                for h in hits
            ],
            sections=art.get("sections"),
            range=art.get("range"),
            targets=art.get("targets"),
            doc_id=art.get("doc_id"),
            documents=art.get("documents"),
            unheld=art.get("unheld"),
            error=art.get("error"),
            final=bool(art.get("final")),
        )

    @property
    def shown(self) -> list[ShownParagraph]:
        """Paragraphs whose text this result showed (not pointers)."""
        return [p for p in self.paragraphs if not p.repeat]

    def summary(self) -> dict[str, Any]:
        """What the result showed, in a few numbers (for stream events and the CLI)."""
        out: dict[str, Any] = {
            "paragraphs": len(self.paragraphs),
            "repeats": sum(p.repeat for p in self.paragraphs),
        }
        if self.hits is not None:
            out["hits"] = len(self.hits)
        if self.range is not None:
            out["range"] = list(self.range)
        if self.documents is not None:
            out["documents"] = list(self.documents)
        if self.unheld:
            out["unheld"] = list(self.unheld)
        pages = sorted({p.page for p in self.paragraphs if p.page})
        if pages:
            out["pages"] = pages
        if self.error is not None:
            out["error"] = self.error
        return out


def result_message(call: dict[str, Any], content: str, observation: Observation) -> ToolMessage:
    """The ``ToolMessage`` answering ``call`` (``status="error"`` when it has an error).

    A result longer than a thread's messages may be (``DEEPREAD_MAX_MESSAGE_CHARS``: a
    read of huge tables) is answered with an error saying so instead: the thread would
    refuse it, and no model could read it anyway.
    """
    cap = current_settings().max_message_chars
    if len(content) > cap and observation.error is None:
        return error_message(
            call,
            f"the result would be {len(content)} characters, over "
            f"the {cap} one message may hold; ask for less (fewer "
            "paragraphs, a narrower range)",
        )
    return ToolMessage(
        content=content,
        tool_call_id=call.get("id") or "",
        name=call.get("name") or "unknown",
        status="error" if observation.error is not None else "success",
        artifact=observation.artifact(),
    )


def error_message(call: dict[str, Any], why: str, *, final: bool = False) -> ToolMessage:
    """An error result the model can act on: ``Error: <why>``; ``final``: the call's own
    error, which the same arguments would meet again."""
    return result_message(call, f"Error: {why}", Observation(error=why, final=final))


def extent(start: int, end: int, n_para: int) -> str:
    """What a read's section line adds: the range read and the section's size."""
    return f"paragraphs {start}-{end} of {n_para}"


def section_line(doc_id: int, sec_id: int, title: str, note: str = "") -> str:
    """The line a section's paragraphs are grouped under (the TOC's ``(d) [s] Title``),
    the title escaped as document text (empty: left out); ``note`` (a read's
    :func:`extent`) after it."""
    line = f"## ({doc_id}) [{sec_id}]"
    if title := title_text(title):
        line += f" {title}"
    return f"{line} ({note})" if note else line


def opens_with(text: str, title: str) -> bool:
    """Whether a paragraph's ``text`` begins with the section's ``title`` (whitespace
    aside): its heading line parsed into the paragraph, so the section's line need not
    print the same words right above it."""
    title = " ".join(title.split())
    return bool(title) and " ".join(text.split()).startswith(title)


def pointer_line(doc_id: int, sec_id: int, first: int, last: int) -> str:
    """The one line standing for paragraphs ``first..last`` shown before."""
    span = f"{first}" if first == last else f"{first}-{last}"
    return f"[{doc_id}:{sec_id}:{span}] {POINTER}"


def paragraph_line(p: Paragraph, page: bool) -> str:
    """A paragraph's line: its coordinates, its page when ``page`` (and it has one),
    its escaped text (a table as its rows, :func:`~deepread.text.markup.shown_text`)."""
    marker = f" (p.{p.page})" if page and p.page else ""
    return f"[{p.doc_id}:{p.sec_id}:{p.para_idx}]{marker} {escape(shown_text(p.text, p.kind))}"


def format_paragraphs(
    paragraphs: list[Paragraph],
    documents: dict[int, Document],
    regions: Regions,
    notes: dict[tuple[int, int], str] | None = None,
) -> tuple[str, list[ShownParagraph]]:
    """Observation text and its rows; a run of consecutive paragraphs of a section that
    were shown before is one pointer line (``repeat`` rows). ``notes``: what a section's
    line says after its title (a read's range and size, :func:`extent`).

    A section's title is left out of its line when the first paragraph under it begins
    with the title (a heading the parser kept in the paragraph): the same words twice in
    a row cost a read ~6 tokens and tell the reader nothing.

    A paragraph's page ``(p.N)`` is written where it is news: on the first paragraph
    under a section's title line and where the page changes. Written on every line it
    cost ~5 tokens a paragraph — a sixth of a read of short paragraphs (list items,
    schedule rows) — and said nothing the line above had not said. After a pointer line
    the page is named again."""
    lines: list[str] = [OPEN]
    rows: list[ShownParagraph] = []
    current: tuple[int, int] | None = None
    page_shown: int | None = None  # the page the last paragraph line named or implied
    run: list[int] = []  # doc_id, sec_id, first, last of the pending pointer line

    def close_run() -> None:
        nonlocal page_shown
        if run:
            lines.append(pointer_line(*run))
            run.clear()
            page_shown = None  # the next line names its page again

    for p in paragraphs:
        repeat = was_read(regions, p.doc_id, p.sec_id, p.para_idx)
        if (p.doc_id, p.sec_id) != current:
            close_run()
            current = (p.doc_id, p.sec_id)
            doc = documents.get(p.doc_id)
            title = doc.sections[p.sec_id].title if doc and p.sec_id < len(doc.sections) else ""
            if not repeat and opens_with(p.text, title):
                title = ""  # the paragraph right below prints it
            lines.append(section_line(p.doc_id, p.sec_id, title, (notes or {}).get(current, "")))
            page_shown = None
        rows.append(ShownParagraph.of(p, repeat))
        if repeat and run and run[3] + 1 == p.para_idx:
            run[3] = p.para_idx
        elif repeat:
            close_run()
            run.extend([p.doc_id, p.sec_id, p.para_idx, p.para_idx])
        else:
            close_run()
            lines.append(paragraph_line(p, page=p.page != page_shown))
            page_shown = p.page
    close_run()
    if len(lines) == 1:
        lines.append("(no paragraphs)")
    lines.append(CLOSE)
    return "\n".join(lines), rows
