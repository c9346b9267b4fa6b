"""Multi-document QA synthesis with the paper's Fig. 7 prompt (``prompts/synth.md``).

Groups of ``docs`` documents are drawn from a collection (seeded, so a run can be
repeated), each reassembled as Markdown from its sections and paragraphs, and a chat
model (temperature 0.7, as the paper) is asked for closed-form QA pairs that need all of
them. Pairs come out in the dataset format ``deepread eval`` reads, typed ``multi_doc``.
The paper filtered its pairs by hand; so should you.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from deepread.corpus.index import Index
from deepread.evaluation.chunks import document_markdown
from deepread.models.chat import invoke_with_retry, message_text
from deepread.prompts import load
from deepread.records.errors import UsageError
from deepread.text.tokens import encoding

USER_MARK = "<!-- user -->"
PER_CALL = 5  # pairs asked for per model call: long outputs drift from the constraints
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def prompts() -> tuple[str, str]:
    """The system instruction and the user template of Fig. 7."""
    system, _, user = load("synth").partition(USER_MARK)
    return system.strip(), user.strip()


def user_message(template: str, k: int, n: int, docs_text: str) -> str:
    values = {"k": str(k), "n": str(n), "docs_text": docs_text}
    return re.sub(r"<(k|n|docs_text)>", lambda m: values[m.group(1)], template)


def truncate(text: str, max_tokens: int | None) -> str:
    """``text`` cut to ``max_tokens`` tokens (the model's context is finite)."""
    if not max_tokens:
        return text
    tokens = encoding().encode_ordinary(text)
    if len(tokens) <= max_tokens:
        return text
    return encoding().decode(tokens[:max_tokens]) + "\n\n[… document truncated]"


def parse_pairs(reply: str) -> list[tuple[str, str]]:
    """``(question, answer)`` pairs from a ``{"qas": [{"q", "a"}]}`` reply, fences allowed."""
    text = _FENCE.sub("", reply.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return []
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return []
    items = data.get("qas") if isinstance(data, dict) else None
    return [
        (str(i["q"]).strip(), str(i["a"]).strip())
        for i in items or []
        if isinstance(i, dict) and str(i.get("q", "")).strip() and str(i.get("a", "")).strip()
    ]


def synthesize(
    index: Index,
    model: BaseChatModel,
    n: int = 10,
    docs: int = 2,
    *,
    seed: int = 0,
    max_doc_tokens: int | None = 30_000,
    say: Callable[[str], None] = lambda _: None,
) -> list[dict[str, Any]]:
    """Up to ``n`` QA pairs, each over ``docs`` documents of ``index``."""
    documents = index.documents()
    if len(documents) < 2:
        raise UsageError(
            f"collection {index.name!r} holds {len(documents)} document(s); "
            "multi-document questions need at least 2"
        )
    k = max(2, min(docs, len(documents)))
    system, template = prompts()
    rng = random.Random(seed)
    markdown: dict[int, str] = {}
    out: list[dict[str, Any]] = []
    attempts = 0
    while len(out) < n and attempts < 3 * n:
        attempts += 1
        group = sorted(rng.sample(documents, k), key=lambda d: d.doc_id)
        for d in group:
            if d.doc_id not in markdown:
                markdown[d.doc_id] = truncate(document_markdown(index, d), max_doc_tokens)
        texts = [markdown[d.doc_id] for d in group]
        rng.shuffle(texts)  # the prompt says the documents are unordered
        want = min(PER_CALL, n - len(out))
        reply = invoke_with_retry(
            model,
            [
                SystemMessage(content=system),
                HumanMessage(content=user_message(template, k, want, "\n\n".join(texts))),
            ],
            3,
        )
        content = message_text(reply)
        pairs = parse_pairs(content)
        if not pairs:
            say(f'warning: the model\'s reply held no {{"qas": …}} JSON: {content[:200]!r}')
        for question, answer in pairs[:want]:
            out.append(
                {
                    "id": f"synth-{len(out) + 1:04d}",
                    "question": question,
                    "answer": answer,
                    "type": "multi_doc",
                    "docs": [PurePath(d.source).name for d in group],
                }
            )
    return out
