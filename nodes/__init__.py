"""The graphs' nodes, and what only they use.

Nodes, one module each: ``toc``, ``compact``, ``policy``, the tool executors
(``executors``: one node per tool), ``check``, ``finalize`` (the agent,
:mod:`deepread.graphs.agent`), the error handler (``failure``) and ``ingest``.
What every node shares: the state (``state``), the run's context (``context``), the
index and model a run uses (``resources``) and the citations of an answer
(``citations``). Subpackages hold what only some nodes use: ``tools/`` (the tools'
handlers, contract, schemas, the typed result), ``offline/`` (the offline policy),
``sufficiency/`` (the check's pieces) and ``model_input/`` (what a model call is sent).
Documents themselves live in ``deepread.corpus``.
"""
