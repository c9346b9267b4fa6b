"""The agent graph's node names: the one home of its shape's vocabulary.

Every module that names a node — the graph that adds it and draws its edges
(:mod:`deepread.graphs.agent`, routers in :mod:`deepread.graphs.routes`), the error
handler that sends a failed turn to ``finalize`` (:mod:`deepread.nodes.failure`), the
context field whose model the policy and the check call (:mod:`deepread.nodes.context`),
the command line that streams the answering node's tokens (:mod:`deepread.cli.turn`) —
takes it from here. The executor nodes are named for their tools
(:mod:`deepread.nodes.tools.specs`: ``retrieve``, ``read_section``, ``open_toc``,
``follow_reference``, ``find_documents``), plus :data:`INVALID_CALL`.
"""

from __future__ import annotations

from typing import Final

#: Starts a turn: the question in, the TOC injected (paper §3.3).
TOC: Final = "toc"
#: Prepares every model call: the interaction space's TOC, evidence notes.
COMPACT: Final = "compact"
#: The model's decision (Algorithm 1, l. 4).
POLICY: Final = "policy"
#: Tests that the cited evidence supports the answer; may read once more.
CHECK: Final = "check"
#: Reports the answer, its citations and usage; every failed turn ends here too.
FINALIZE: Final = "finalize"
#: Answers a call no executor takes (unknown tool, not on offer, arguments not JSON).
INVALID_CALL: Final = "invalid_call"

#: Where a round goes once every tool call is answered.
AFTER_TOOLS: Final = COMPACT
#: The nodes that call the chat model: the policy, and the sufficiency check's judge.
MODEL_NODES: Final = (POLICY, CHECK)
#: The node whose model writes the answer (its tokens are what a reader streams).
ANSWERING_NODE: Final = POLICY
