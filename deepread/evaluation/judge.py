"""LLM-as-a-judge accuracy with the paper's prompt (Fig. 6, ``prompts/judge.md``).

The judge is asked for a bare ``True``/``False``; replies are parsed leniently because
models wrap it (``**True**``, ``True.``, a reasoning block first, "Answer: False"). A reply
that names no verdict counts as not judged rather than as wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from deepread.models.chat import invoke_with_retry, message_text
from deepread.prompts import load

_SLOT = re.compile(r"<(question|predicted_answer|standard_answer)>")
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_WHOLE = re.compile(r"^\W*(true|false|yes|no|correct|incorrect)\W*$", re.IGNORECASE)
_WORD = re.compile(r"\b(true|false)\b", re.IGNORECASE)
_VALUES = {
    "true": True,
    "yes": True,
    "correct": True,
    "false": False,
    "no": False,
    "incorrect": False,
}


def judge_prompt(question: str, predicted: str, gold: str) -> str:
    """Fig. 6 with its three slots filled in one pass (an answer may contain a slot name)."""
    values = {"question": question, "predicted_answer": predicted, "standard_answer": gold}
    return _SLOT.sub(lambda m: values[m.group(1)], load("judge"))  # its slots are <name>


def parse_verdict(reply: str) -> bool | None:
    """True/False from a judge reply; None when it names neither."""
    text = _THINK.sub(" ", reply or "").strip()
    whole = _WHOLE.match(text)
    if whole:
        return _VALUES[whole.group(1).lower()]
    words = _WORD.findall(text)
    # A reasoning judge states its verdict last; "True or False" echoes are earlier.
    return _VALUES[words[-1].lower()] if words else None


@dataclass(slots=True)
class Verdict:
    correct: bool | None
    raw: str
    error: str | None = None


class Judge:
    """Judges answers against gold answers with one chat model (temperature 0)."""

    def __init__(self, model: BaseChatModel, retries: int = 3) -> None:
        self.model = model
        self.retries = retries

    def __call__(self, question: str, predicted: str, gold: str) -> Verdict:
        if not predicted.strip():
            return Verdict(False, "", None)  # no answer cannot match a gold answer
        prompt = judge_prompt(question, predicted, gold)
        try:
            reply = invoke_with_retry(self.model, [HumanMessage(content=prompt)], self.retries)
        except Exception as exc:  # any provider error: the item stays unjudged
            return Verdict(None, "", f"{type(exc).__name__}: {exc}")
        raw = message_text(reply)
        return Verdict(parse_verdict(raw), raw)
