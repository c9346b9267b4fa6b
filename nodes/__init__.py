"""The agent's and the ingest graph's nodes, and what only the agent uses.

Nodes (one module each): ``toc``, ``compact``, ``policy``, ``tools``, ``check``,
``finalize`` (the agent, :mod:`deepread.graphs.agent`) and ``ingest``. Agent support,
which nodes import and which imports no node: the state and context, the tool specs
and the handler contract (``tool_specs``, ``tool_call``), the tools' handlers
(``retrieve``, ``read_section``, ``open_toc``, ``follow_reference``), the typed tool
result (``observation``), what a model call is sent (``prompt``), evidence notes, the
interaction space, citations, the sufficiency check's pieces, the offline extractive
policy and the resources (index, model) a run uses. Documents themselves live in
``deepread.corpus``.
"""
