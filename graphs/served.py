"""The operator's policy for served graphs: what a server's clients may set, within which caps.

On a LangGraph server the run's context comes from whoever calls the API, while the
process, its store, its model keys and its bill belong to the operator. So for the
graphs ``langgraph.json`` serves (and only for them: ``build_graph(...)`` from Python and
the CLI keep "explicit beats environment"):

* **Question-level fields** a client may set, each within a cap the operator can change
  with ``DEEPREAD_SERVE_MAX_<FIELD>`` (:data:`CAPS`): which collection and documents,
  ``k``, ``window``, ``max_rounds``, ``toc_budget``, ``notes_budget``, the retrieval
  mode, temperature and the sufficiency settings.
* **Operator-only fields**: everything else — ``store``, ``model`` (unless the operator
  lists the models clients may pick in ``DEEPREAD_SERVE_MODELS``), ``model_retries``,
  the OCR / vision / describe models, and any field added later (deny by default). They
  come from the operator's environment (``DEEPREAD_<FIELD>``).

A client value outside the policy is refused with a :class:`PolicyError` naming the
field and the cap — never dropped, never used — and the run ends with an error before
any node runs, so a client ``store`` makes no connection and creates no file. A client
value for an operator-only field that is just its default ("", as Studio's form sends)
changes nothing and is accepted; the operator's value is used.

Two places apply the policy, because the LangGraph API drops context keys the schema does
not list before the graph sees them: :func:`served_factory` makes the graph factory that
``langgraph.json`` names, which sees the client's raw context (so a misspelled key is
refused, not silently dropped); and the served graphs' context schemas
(:func:`served_schema`) apply it again whenever a context is built, so the compiled
graph obeys it however it is invoked. The table in docs/deployment.md ("Security") is
this module in prose.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import TYPE_CHECKING, Any

# CompiledStateGraph and RunnableConfig are imported at run time: the server resolves the
# factory's type hints to tell a ServerRuntime parameter from a config one, and an
# unresolvable hint hides both.
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from deepread.environment.settings import Settings, SettingsError
from deepread.environment.settings import current as current_settings
from deepread.nodes.context import Context, ContextError, IngestContext
from deepread.text.hygiene import brief

if TYPE_CHECKING:  # resolved by the server from its own namespace; an extra, not a dependency
    from langgraph_sdk.runtime import ServerRuntime


class PolicyError(ContextError):
    """A client's context value is outside the operator's policy; the message says why."""


#: Fields a server client may set, per context schema (everything else: operator only).
CLIENT_FIELDS: dict[type, frozenset[str]] = {
    Context: frozenset(
        {
            "collection",
            "documents",
            "k",
            "page_tokens",
            "window",
            "max_rounds",
            "toc_budget",
            "notes_budget",
            "retrieval_mode",
            "temperature",
            "follow_references",
            "check_sufficiency",
            "sufficiency_threshold",
            "support_threshold",
            "unused_term_support",
            "answer_type_check",
        }
    ),
    IngestContext: frozenset({"collection"}),
}

#: Default caps on client values; ``DEEPREAD_SERVE_MAX_<FIELD>`` overrides each.
#: ``window`` caps each of its two numbers, ``documents`` the number of doc_ids.
CAPS: dict[str, int] = {
    "k": 50,  # hits per retrieve call: 10x the default
    "max_rounds": 50,  # model calls with tools per question: the paper's T
    "toc_budget": 16_000,  # tokens of TOC in every prompt: 4x the default
    "notes_budget": 32_000,  # tokens sent per model call before notes: ~2.7x the default
    "window": 5,  # paragraphs added above / below each hit
    "documents": 1_000,  # doc_ids in scope
}

#: Keys LangGraph itself may put in a run's context (from ``config.configurable``).
_PLATFORM_KEYS = frozenset(
    {
        "thread_id",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
        "run_id",
        "assistant_id",
        "graph_id",
        "user_id",
        "cron_id",
    }
)


@dataclass(frozen=True)
class ServePolicy:
    """The caps and allowed models in force, resolved from the operator's environment."""

    caps: Mapping[str, int]
    models: frozenset[str]  # models a client may choose; empty: the operator's only

    @classmethod
    def from_settings(cls, settings: Settings) -> ServePolicy:
        caps = dict(CAPS)
        for name in CAPS:
            raw = settings.serve.get(f"max_{name}")
            if raw is None:
                continue
            try:
                caps[name] = int(raw)
            except ValueError:
                raise SettingsError(
                    f"DEEPREAD_SERVE_MAX_{name.upper()} must be a whole number, not {raw!r}"
                ) from None
        models = frozenset(
            m.strip() for m in settings.serve.get("models", "").split(",") if m.strip()
        )
        return cls(caps=caps, models=models)

    def client_fields(self, schema: type) -> frozenset[str]:
        base = next(c for c in schema.__mro__ if c in CLIENT_FIELDS)
        return CLIENT_FIELDS[base] | ({"model"} if self.models and base is Context else set())

    def check(self, schema: type, values: Mapping[str, Any]) -> dict[str, Any]:
        """The client's ``values`` with no-op operator fields removed, or a PolicyError."""
        allowed = self.client_fields(schema)
        defaults = {f.name: f.default for f in fields(schema)}
        clean: dict[str, Any] = {}
        for name, value in values.items():
            if name not in defaults:
                clean[name] = value  # not a field at all: the schema names the closest one
                continue
            if name not in allowed:
                if name in defaults and value == defaults[name]:
                    continue  # "use the operator's": nothing to refuse, nothing to pass on
                raise PolicyError(self._operator_only(name, schema))
            clean[name] = value
        if "model" in clean and clean["model"] not in self.models | {""}:
            raise PolicyError(
                f"model {brief(clean['model'])} is not one this server offers; "
                f"choose one of {', '.join(sorted(self.models))}"
            )
        if clean.get("model") == "":
            del clean["model"]  # the operator's model, not "no model"
        self._check_caps(clean)
        return clean

    def _operator_only(self, name: str, schema: type) -> str:
        if name == "model":
            return (
                "context field 'model' is set by the server's operator "
                "(DEEPREAD_MODEL); this server lets clients choose no model"
            )
        return (
            f"context field {name!r} is set by the server's operator, not by a client; "
            f"a client may set: {', '.join(sorted(self.client_fields(schema)))}"
        )

    def _check_caps(self, values: Mapping[str, Any]) -> None:
        for name, cap in self.caps.items():
            if name not in values or values[name] is None:
                continue
            value = values[name]
            if name == "window":
                over = isinstance(value, (list, tuple)) and any(
                    isinstance(v, int) and v > cap for v in value
                )
            elif name == "documents":
                over = isinstance(value, (list, tuple)) and len(value) > cap
            else:
                over = isinstance(value, int) and not isinstance(value, bool) and value > cap
            if over:
                what = {
                    "window": "each number of window",
                    "documents": "the number of documents",
                }.get(name, f"context field {name!r}")
                got = f"{len(value)} of them" if name == "documents" else brief(value)
                raise PolicyError(
                    f"{what} may be at most {cap} on this server (got "
                    f"{got}; the operator sets DEEPREAD_SERVE_MAX_"
                    f"{name.upper()})"
                )


def current_policy() -> ServePolicy:
    return ServePolicy.from_settings(current_settings())


@cache
def served_schema(schema: type[Any]) -> type:
    """A subclass of ``schema`` whose construction applies the policy first."""

    def __init__(self, **given: Any) -> None:
        schema.__init__(self, **current_policy().check(type(self), given))

    served = type(
        f"Served{schema.__name__}",
        (schema,),
        {
            "__init__": __init__,
            "__doc__": f"{schema.__doc__} (as a server client sets it)",
            "__module__": __name__,
            "__get_pydantic_json_schema__": classmethod(_offered_models),
        },
    )
    return dataclass(kw_only=True, init=False)(served)


def _offered_models(cls: type, core_schema: Any, handler: Any) -> dict[str, Any]:
    """The served context's JSON schema, its ``model`` a choice of the models the
    operator offers (``DEEPREAD_SERVE_MODELS``; "" is the operator's default): Studio
    draws the field as a picker. Read when the schema is asked for, as the policy is."""
    json_schema = handler.resolve_ref_schema(handler(core_schema))
    model = json_schema.get("properties", {}).get("model")
    models = current_policy().models
    if model is not None and models:
        model["enum"] = ["", *sorted(models)]
    return json_schema


def check_client_context(schema: type, context: Any) -> Any:
    """The context a server client sent, validated and within policy; else a ContextError.

    Unknown keys are refused here (naming the closest field), which the context schema
    alone cannot do on a server: the LangGraph API drops them before the graph runs.
    """
    if context is None:
        return served_schema(schema)()
    if not isinstance(context, Mapping):
        raise ContextError(f"a context is an object of fields, not {type(context).__name__}")
    values = {
        k: v
        for k, v in context.items()
        if k not in _PLATFORM_KEYS and not str(k).startswith(("__", "langgraph_"))
    }
    return served_schema(schema)(**values)


def check_one_collection(context: Any, config: Mapping[str, Any] | None) -> None:
    """A PolicyError when the run's ``config.configurable`` names a collection other than
    its context's.

    The graph reads the collection from the context only; LangGraph merges a run's
    ``checkpoint`` into ``configurable`` after the context was made, so a ``collection``
    there can differ from the one the graph opens. An auth hook that read it there would
    have checked one collection and let the run read another; refusing the
    run makes any hook's reading of either place the collection the graph uses.
    """
    configurable = (config or {}).get("configurable") or {}
    if isinstance(configurable, Mapping) and "collection" in configurable:
        other = configurable["collection"]
        if other != context.collection:
            raise PolicyError(
                f"the run's collection is its context's ({context.collection!r}), not "
                f"{brief(other)} from its config or checkpoint; set it in the context only"
            )


def served_factory(
    schema: type, build: Callable[[], CompiledStateGraph[Any, Any, Any, Any]]
) -> Callable[..., CompiledStateGraph]:
    """The graph factory ``langgraph.json`` names: policy first, then the shared graph.

    LangGraph's server calls it with a ``ServerRuntime`` for every run (and for schema
    and state reads, without a context), and the run's config (for
    :func:`check_one_collection`). The compiled graph is built once, on first use.
    """
    built: list[CompiledStateGraph[Any, Any, Any, Any]] = []

    def graph(runtime: ServerRuntime, config: RunnableConfig | None = None) -> CompiledStateGraph:
        execution = getattr(runtime, "execution_runtime", None)
        if execution is not None:
            context = check_client_context(schema, execution.context)
            check_one_collection(context, config)
        if not built:
            built.append(build())
        return built[0]

    return graph
