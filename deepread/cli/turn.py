"""One question put to the agent graph, shown as it happens: ``ask`` and ``chat`` share it.

The graph is streamed in two modes at once. ``updates`` gives each tool call and result
(:mod:`deepread.cli.steps`, on stderr) and the ``finalize`` node's outputs; ``messages``
gives the policy model's reply token by token (LangGraph's ``stream_mode="messages"``),
written to a terminal as it arrives. A model that does not stream (the offline extractive
policy) arrives as one piece.

The streamed reply is a draft until the sufficiency check has passed it, and stdout
shows one answer, the checked one. On a terminal the draft streams as it is written; when
the check has the model answer again (said on stderr), or the turn's final answer is not
the text streamed (the check abstained), the draft is erased where it stands — the rows
it took, wrapped at the terminal's width (:mod:`deepread.cli.screen`) — and the answer
written in its place; the step lines shown under the draft are erased with it and said
again. Into a pipe or a file (stdout not a terminal) nothing is streamed: the final
answer is written once, when the turn ends. Only the ``policy`` node's model is
streamed: the check's judge calls are not the answer.
"""

from __future__ import annotations

import sys
from typing import Any

from deepread.cli.screen import columns, erase
from deepread.cli.steps import step_lines
from deepread.nodes.names import ANSWERING_NODE, FINALIZE
from deepread.terminal import say, terminal_text
from deepread.text.hygiene import clean_query


class TurnPrinter:
    """Writes one turn's stream: steps on stderr, the reply on stdout — streamed token by
    token on a terminal (a draft erased in place when the checked answer differs), else
    the final answer only, once (see the module docstring)."""

    def __init__(self, *, show: bool = True) -> None:
        self.show = show  # False for --json: nothing but the document at the end
        # On a terminal the reply streams as it is written; into a pipe or a file only the
        # answer the outputs hold is written, so that stdout holds one answer.
        self.live = show and sys.stdout.isatty()
        # Step lines share the screen with the draft when stderr is a terminal too.
        self.steps_on_screen = self.live and sys.stderr.isatty()
        self.message_id: str | None = None
        self.streamed = ""  # the text of the reply being streamed
        self.calls_tools = False  # whether that reply calls tools (then it was a step)
        self.open_line = False  # stdout holds a reply line not yet ended
        self.drawn = ""  # what the screen shows since that reply began: its text, steps
        self.steps_after: list[str] = []  # the step lines among it

    def token(self, chunk: Any, metadata: dict[str, Any]) -> None:
        """One ``messages`` event: a piece of the policy model's reply."""
        if metadata.get("langgraph_node") != ANSWERING_NODE or chunk.type not in (
            "AIMessageChunk",
            "ai",
        ):
            return
        text = str(chunk.text)
        if chunk.id != self.message_id:  # a new reply: what came before was a step
            self.end_line()
            if self.answered() and self.show:  # the sufficiency check asked again
                self.take_back()
                say("(the evidence check asked for another answer:)", err=True)
            self.message_id, self.streamed, self.calls_tools = chunk.id, "", False
            self.drawn, self.steps_after = "", []
        self.calls_tools = self.calls_tools or bool(
            getattr(chunk, "tool_call_chunks", None) or getattr(chunk, "tool_calls", None)
        )
        if not text:
            return
        self.streamed += text
        if self.live:
            shown = terminal_text(text)
            sys.stdout.write(shown)
            sys.stdout.flush()
            self.drawn += shown
            self.open_line = True

    def answered(self) -> bool:
        """Whether the reply streamed last is an answer (text, no tool calls)."""
        return bool(self.streamed.strip()) and not self.calls_tools

    def update(self, update: dict[str, Any]) -> None:
        """One node's ``updates`` event: its tool calls and results, on stderr."""
        if not self.show:
            return
        lines = step_lines(update or {})
        if lines:
            self.end_line()
        for line in lines:
            say(line, err=True)
            if self.steps_on_screen and self.streamed:
                self.drawn += terminal_text(line) + "\n"
                self.steps_after.append(line)

    def end_line(self) -> None:
        if self.open_line:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.drawn += "\n"
            self.open_line = False

    def take_back(self) -> None:
        """Erases the streamed draft from the screen (:mod:`deepread.cli.screen`), and the
        step lines shown under it, which are said again: they stay the turn's record."""
        if not self.live or not self.drawn:
            return
        self.end_line()
        sys.stdout.write(erase(self.drawn, columns(sys.stdout)))
        sys.stdout.flush()
        for line in self.steps_after:
            say(line, err=True)
        self.drawn, self.steps_after = "", []

    def finish(self, answer: str) -> None:
        """Ends the reply: ``answer`` (the outputs') is what stdout holds of it, once."""
        self.end_line()
        if not self.show or not answer:
            return
        if self.live and answer.strip() == self.streamed.strip():
            return  # the streamed draft is the answer
        if self.answered():
            self.take_back()
        say(answer)


def stream_turn(graph: Any, question: str, config: dict[str, Any], context: Any) -> Any:
    """The graph's ``updates`` and ``messages`` events for one question, checkpointed
    once at its end (see :func:`run_turn`)."""
    return graph.stream(
        {"question": question},
        config,
        context=context,
        stream_mode=["updates", "messages"],
        durability="exit",
    )


#: ``answered_by`` of an answer the offline extractive policy composed.
EXTRACTIVE = "the extractive policy (no LLM)"


def run_turn(
    graph: Any, question: str, config: dict[str, Any], context: Any, printer: TurnPrinter
) -> dict[str, Any]:
    """Streams one question through ``graph``; the ``finalize`` node's outputs, with the
    question asked (the graph clears its ``question`` once answered, so that a later chat
    turn is not answered with it: ``ask --json`` printed ``"question": ""``).

    One checkpoint per question, not one per step (``durability="exit"``): a 50-round
    run writes 0.08 MB instead of 6.7 MB (docs/benchmarks.md, checkpoints), and a
    question stopped halfway leaves the thread as it was before it.
    """
    output: dict[str, Any] = {}
    for mode, chunk in stream_turn(graph, question, config, context):
        if mode == "messages":
            printer.token(*chunk)
            continue
        for node, update in chunk.items():
            printer.update(update or {})
            if node == FINALIZE:  # the outputs; the chat stays in the thread
                output = {k: v for k, v in (update or {}).items() if k != "messages"}
    printer.finish(str(output.get("answer") or ""))
    # As the graph took it (nodes/toc.py: cleaned, stripped).
    output["question"] = clean_query(question).strip()
    # Who wrote the answer: the screen's opening line says it, --json must too.
    output["answered_by"] = getattr(context, "model", None) or EXTRACTIVE
    return output
