"""One question put to the agent graph, shown as it happens: ``ask`` and ``chat`` share it.

The graph is streamed in two modes at once. ``updates`` gives each tool call and result
(:mod:`deepread.cli.steps`, on stderr) and the ``finalize`` node's outputs; ``messages``
gives the policy model's reply token by token (LangGraph's ``stream_mode="messages"``),
written to stdout as it arrives. A model that does not stream (the offline extractive
policy) arrives as one piece.

The streamed reply is a draft until the sufficiency check has passed it: when the check
has the model answer again, the second answer streams after a line saying so (stderr);
when the turn's final answer is not the text streamed (the check abstained), the final
answer follows, introduced as such, so stdout always ends with the answer the outputs
hold. Only the ``policy`` node's model is streamed: the check's judge
calls are not the answer.
"""

from __future__ import annotations

import sys
from typing import Any

from deepread.cli.steps import step_lines
from deepread.nodes.names import ANSWERING_NODE, FINALIZE
from deepread.terminal import say, terminal_text
from deepread.text.hygiene import clean_query


class TurnPrinter:
    """Writes one turn's stream: steps on stderr, the reply's tokens on stdout."""

    def __init__(self, *, show: bool = True) -> None:
        self.show = show  # False for --json: nothing but the document at the end
        self.message_id: str | None = None
        self.streamed = ""  # the text of the reply being streamed
        self.calls_tools = False  # whether that reply calls tools (then it was a step)
        self.open_line = False  # stdout holds a reply line not yet ended

    def token(self, chunk: Any, metadata: dict[str, Any]) -> None:
        """One ``messages`` event: a piece of the policy model's reply."""
        if metadata.get("langgraph_node") != ANSWERING_NODE or chunk.type not in (
            "AIMessageChunk",
            "ai",
        ):
            return
        text = str(chunk.text)
        if chunk.id != self.message_id:  # a new reply: what came before was a step
            answered_before = bool(self.streamed.strip()) and not self.calls_tools
            self.message_id, self.streamed, self.calls_tools = chunk.id, "", False
            self.end_line()
            if answered_before and self.show:  # the sufficiency check asked again
                say("(the evidence check asked for another answer:)", err=True)
        self.calls_tools = self.calls_tools or bool(
            getattr(chunk, "tool_call_chunks", None) or getattr(chunk, "tool_calls", None)
        )
        if not text:
            return
        self.streamed += text
        if self.show:
            sys.stdout.write(terminal_text(text))
            sys.stdout.flush()
            self.open_line = True

    def update(self, update: dict[str, Any]) -> None:
        """One node's ``updates`` event: its tool calls and results, on stderr."""
        if not self.show:
            return
        lines = step_lines(update or {})
        if lines:
            self.end_line()
        for line in lines:
            say(line, err=True)

    def end_line(self) -> None:
        if self.open_line:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.open_line = False

    def finish(self, answer: str) -> None:
        """Ends the streamed reply; prints ``answer`` when it is not what was streamed."""
        self.end_line()
        if not self.show or not answer or answer.strip() == self.streamed.strip():
            return
        if self.streamed.strip():
            say("\n(the answer after checking its evidence:)", err=True)
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
    return output
