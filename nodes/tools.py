"""The tools the model sees: the paper's two (§3.4) and the situational ones.

The schemas are bound to the chat model; the executors validate every call against
the same schemas, so a wrongly typed or missing argument becomes an error message the
model can act on rather than an exception.
"""

from __future__ import annotations

from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field, ValidationError

from deepread.prompts import load


class RetrieveArgs(BaseModel):
    query: str | list[str] = Field(
        description="What to look for: keywords or a question, or a list of them (their "
                    "results are merged in rank order).")
    doc_id: int | None = Field(default=None,
                               description="Search only this document (optional).")


class ReadSectionArgs(BaseModel):
    doc_id: int = Field(description="Document id, from the Directory Structure.")
    sec_id: int = Field(description="Section id within that document.")
    start: int = Field(description="First paragraph to read (0-based).")
    end: int = Field(description="Last paragraph to read (inclusive).")


class FollowReferenceArgs(BaseModel):
    reference: str = Field(
        description="The reference as written: 'Table 3', 'Figure 2.1', 'Section 4.2', "
                    "'§4.2', '4.2', 'section Organizing test code', 'page 12'.")
    doc_id: int | None = Field(default=None,
                               description="Resolve it in this document only (optional; "
                                           "default: the documents being read first).")


class OpenTocArgs(BaseModel):
    doc_id: int = Field(description="Document whose table of contents to show.")


ARGS: dict[str, type[BaseModel]] = {"retrieve": RetrieveArgs, "read_section": ReadSectionArgs,
                                    "open_toc": OpenTocArgs,
                                    "follow_reference": FollowReferenceArgs}

#: The paper's two tools, offered by default.
TOOL_NAMES = ("retrieve", "read_section")
#: Offered as well when the prompt shows a bounded interaction space (nodes/space.py).
OPEN_TOC = "open_toc"
#: Offered as well when the question or an observation mentions a reference ("Table 3",
#: "Section 4.2", "page 12") that resolves (corpus/references.py); the paper's two-tool
#: default stays otherwise.
FOLLOW_REFERENCE = "follow_reference"


def tool_schemas(names: tuple[str, ...] = TOOL_NAMES) -> list[dict[str, Any]]:
    """OpenAI-format definitions of the tools ``names``, descriptions from ``prompts/``."""
    out = []
    for name in names:
        model = ARGS[name]
        schema = convert_to_openai_tool(model)
        schema["function"]["name"] = name
        schema["function"]["description"] = load(name)
        out.append(schema)
    return out


class ToolArgumentError(ValueError):
    """A tool call's arguments do not fit the tool's schema."""


def parse_args(name: str, args: Any) -> BaseModel:
    """Validated arguments of a ``name`` call, or :class:`ToolArgumentError`."""
    if not isinstance(args, dict):
        raise ToolArgumentError(f"{name} expects a JSON object of arguments, got {args!r}")
    try:
        return ARGS[name].model_validate(args, strict=False)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
        raise ToolArgumentError(f"invalid arguments for {name}: {problems}") from None
