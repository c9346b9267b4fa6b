"""The agent state's per-turn keys are declared beside their types (PerTurn): a turn starts
each afresh, and nothing else."""

from __future__ import annotations

from typing import get_type_hints

from deepread.nodes.state import AgentState, PerTurn, turn_fields


def test_a_turn_starts_every_key_marked_per_turn_and_no_other():
    hints = get_type_hints(AgentState, include_extras=True)
    marked = {
        k
        for k, h in hints.items()
        if any(isinstance(m, PerTurn) for m in getattr(h, "__metadata__", ()))
    }

    assert set(turn_fields()) == marked
    # the thread's memory and messages carry on across turns
    assert not marked & {"messages", "read_regions", "read_versions", "space"}


def test_each_turn_gets_its_own_lists_and_dicts():
    first, second = turn_fields(), turn_fields()
    first["citations"].append({"doc_id": 1, "sec_id": 0, "para_idx": 0})
    first["usage"]["total_tokens"] = 3

    assert second["citations"] == [] and second["usage"] == {}
    assert first["rounds"] == 0 and first["error"] is None and first["stop_reason"] == ""
