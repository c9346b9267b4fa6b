"""The ``check`` node: does the evidence the answer cites support it?

It runs after the policy answers (:mod:`deepread.nodes.sufficiency.support` holds the check
itself). First pass: an answer that passes goes on to ``finalize``; one that does not
gets one bounded extra read — the node writes deepread's own ``read_section`` call
(an AI message marked as deepread's), the ``read_section`` executor runs it, and the policy
answers again without tools (``retry_reason``). Passing means close enough to the
question (the dense or lexical test) and, with ``answer_type_check``, holding the kind
of fact it asks for (:func:`lacks_answer_type`). Second pass, on that answer: supported
→ ``finalize``; still not → the answer abstains (``stop_reason="no_evidence"``). A mode
without ``read_section`` (Search-o1) abstains at once rather than read behind the
model's back.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import uuid4

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.runtime import Runtime

from deepread.corpus.index import Index
from deepread.models.chat import message_text
from deepread.nodes.citations import Coord, read_citations
from deepread.nodes.context import Context
from deepread.nodes.follow_ups import slots_of
from deepread.nodes.messages import (
    ANSWER_METADATA,
    answer_metadata,
    final_answer,
    in_conversation,
    turn_messages,
)
from deepread.nodes.model_input.prompt import NOTICE_KEY
from deepread.nodes.read_memory import view
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentNode, AgentState
from deepread.nodes.sufficiency.answer_type import missing
from deepread.nodes.sufficiency.support import (
    EXTRA_READ_BUDGET,
    Verdict,
    abstains,
    abstention,
    dense_check,
    evidence,
    extra_read,
    judge,
    lexical_check,
)
from deepread.nodes.sufficiency.unused_terms import document_words, unused_terms
from deepread.nodes.tools.specs import READ_SECTION
from deepread.text.questions import asked

#: ``NOTICE_KEY`` value of the check's own read_section request.
REQUEST = "sufficiency"


def _request_index(turn: Sequence[BaseMessage]) -> int | None:
    """Where the check's read request is in the turn, if it made one."""
    for i in range(len(turn) - 1, -1, -1):
        if isinstance(turn[i], AIMessage) and turn[i].additional_kwargs.get(NOTICE_KEY) == REQUEST:
            return i
    return None


def _extra_budget(answer: AIMessage | None) -> int:
    """Tokens the extra read may show: 1,200, or less when the answer's policy says its
    observation budget has less left (the offline policy: the read counts against it
    like its own)."""
    left = answer_metadata(answer).get("budget_left")
    return min(EXTRA_READ_BUDGET, left) if isinstance(left, int) else EXTRA_READ_BUDGET


def needed_support(index: Index, question: str, cited: dict[Coord, str], context: Context) -> float:
    """The similarity the cited paragraphs must reach: ``support_threshold``, or
    ``unused_term_support`` when it is higher and the question names a specific word
    that none of the cited documents uses (:mod:`deepread.nodes.sufficiency.unused_terms`)."""
    if context.unused_term_support <= context.support_threshold:
        return context.support_threshold
    words: set[str] = set()
    for doc_id in {d for d, _, _ in cited}:
        words |= document_words(index, doc_id)
    if unused_terms(asked(question), words):
        return context.unused_term_support
    return context.support_threshold


def lacks_answer_type(
    index: Index, question: str, cited: dict[Coord, str], verdict: Verdict
) -> Verdict:
    """``verdict``, or a failing one when the question asks for a kind of fact (a date,
    a number of credits, an email address…) that neither the cited paragraphs nor the
    titles of their sections hold (:mod:`deepread.nodes.sufficiency.answer_type`): they are about
    the topic but do not answer."""
    if not verdict.supported:
        return verdict
    titles = [index.document(d).sections[s].title for d, s, _ in cited]
    want = missing(asked(question), [*cited.values(), *titles])
    if want is None:
        return verdict
    return Verdict(
        False,
        verdict.method,
        verdict.coverage,
        f"the question asks for {want.describe()}; the cited paragraphs hold none",
    )


def verify(
    resources: Resources,
    index: Index,
    state: AgentState,
    context: Context,
    answer: str,
    kept: list[Coord],
    usage: dict[str, int],
) -> Verdict | None:
    """The verdict on ``answer`` from its cited paragraphs ``kept``: the dense (or lexical)
    check, the kind of fact asked for, then the judge (when there is a model to ask:
    :meth:`~deepread.nodes.resources.Resources.judge`) when it fails; the judge's tokens
    are added to ``usage``."""
    # A follow-up is checked in its conversation, as it was searched (nodes/messages.py).
    earlier = state.get("messages", [])[: state.get("turn_start", 0)]
    question = in_conversation(state.get("question") or "", earlier, slots_of(index))
    cited = evidence(index, kept)
    if context.support_threshold > 0:
        verdict = dense_check(
            question,
            answer,
            list(cited.values()),
            needed_support(index, question, cited, context),
        )
    else:
        titles = " ".join({index.document(d).sections[s].title for d, s, _ in cited})
        verdict = lexical_check(
            question, answer, list(cited.values()), context.sufficiency_threshold, titles
        )
    if context.answer_type_check:
        verdict = lacks_answer_type(index, question, cited, verdict)
    judge_model = None if verdict.supported else resources.judge(context)
    if judge_model is None:
        return verdict
    got, spent = judge(
        judge_model, question, answer, cited, context.model_retries, context.model_timeout
    )
    for key, value in spent.items():
        if isinstance(value, int):
            usage[key] = usage.get(key, 0) + value
    return got


def abstain(
    index: Index, answer: AIMessage | None, coords: list[Coord], question: str = ""
) -> AgentState:
    """The abstention replacing ``answer`` to ``question``, under the same label (in its
    metadata) when it had one."""
    label = answer_metadata(answer).get("label") or ""
    text = abstention(index, coords, label, question)
    meta = {ANSWER_METADATA: {"label": label}} if label else {}
    message = AIMessage(
        content=text, additional_kwargs={NOTICE_KEY: "no_evidence"}, response_metadata=meta
    )
    return {
        "messages": [message],
        "stop_reason": "no_evidence",
        "sufficiency": "insufficient",
    }


def first_pass(
    resources: Resources,
    can_read: bool,
    state: AgentState,
    context: Context,
    usage: dict[str, int],
) -> AgentState:
    """The check of the turn's first answer: supported, uncited or unchecked as it
    stands; else one extra read of the first cited section (when the mode can read) and
    the reason to answer again; else the abstention."""
    last = final_answer(turn_messages(state))
    if last is None or state.get("stop_reason") in ("error", "budget"):
        return {"sufficiency": "unchecked"}
    answer = message_text(last)
    if not answer.strip():
        return {"sufficiency": "unchecked"}
    regions = view(state.get("read_regions"), state.get("scope") or "")
    kept = read_citations(answer, regions)
    if abstains(answer):
        # The model itself says the documents do not hold the answer: citing nothing,
        # that is an abstention (a library that holds no document about what was
        # asked); citing passages, it is an answer about what they do say.
        if not kept:
            return {"stop_reason": "no_evidence", "sufficiency": "insufficient"}
        return {"sufficiency": "unchecked"}
    if not kept:
        return {"sufficiency": "uncited"}
    index = resources.index(context)
    try:
        verdict = verify(resources, index, state, context, answer, kept, usage)
    except Exception:  # a judge outage must not turn into an abstention
        return {"sufficiency": "unchecked"}
    if verdict is None or verdict.supported:
        return {"sufficiency": "supported" if verdict else "unchecked"}
    args = extra_read(index, regions, kept[0], _extra_budget(last)) if can_read else None
    if args is None:
        return abstain(index, last, kept, state.get("question") or "")
    # the read stays within what one call may return (Context.max_read_paragraphs)
    args["end"] = min(args["end"], args["start"] + context.max_read_paragraphs - 1)
    call = {
        "name": READ_SECTION,
        "args": args,
        "type": "tool_call",
        "id": f"check_{uuid4().hex[:12]}",
    }
    request = AIMessage(content="", tool_calls=[call], additional_kwargs={NOTICE_KEY: REQUEST})
    return {"messages": [request], "retry_reason": verdict.reason}


def second_pass(
    resources: Resources, state: AgentState, context: Context, usage: dict[str, int]
) -> AgentState:
    """The check of the answer given after the extra read: kept when supported (or when
    the check cannot tell), else the abstention, citing what either answer cited."""
    turn = turn_messages(state)
    asked = _request_index(turn)
    last = final_answer(turn[asked + 1 :]) if asked is not None else None
    if asked is None or last is None:
        return {"sufficiency": "unchecked"}  # the second answer failed: keep the first
    first = final_answer(turn[:asked])
    regions = view(state.get("read_regions"), state.get("scope") or "")
    index = resources.index(context)
    answer = message_text(last)
    kept = read_citations(answer, regions)
    if abstains(answer):
        return {"stop_reason": "no_evidence", "sufficiency": "insufficient"}
    if kept:
        try:
            again = verify(resources, index, state, context, answer, kept, usage)
        except Exception:
            again = None
        if again is None or again.supported:
            return {"sufficiency": "supported" if again else "unchecked"}
    before = read_citations(message_text(first), regions) if first else []
    return abstain(index, last, kept or before, state.get("question") or "")


def make_check(resources: Resources, can_read: bool = True) -> AgentNode:
    """The ``check`` node; ``can_read``: the mode offers ``read_section`` (the extra read
    is one, and a mode without the tool must not get one behind its back)."""

    @resources.leasing
    def check(state: AgentState, runtime: Runtime[Context]) -> AgentState:
        context = runtime.context or Context()
        checks = state.get("checks", 0)
        if not context.check_sufficiency:
            return {"sufficiency": "off", "checks": checks + 1}
        usage = dict(state.get("check_usage") or {})
        if checks:
            update = second_pass(resources, state, context, usage)
        else:
            update = first_pass(resources, can_read, state, context, usage)
        return update | {"checks": checks + 1, "check_usage": usage}

    return check
