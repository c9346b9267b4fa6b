"""The agent's and the ingest graph's nodes, and what only the agent uses.

One module per node (``toc``, ``policy``, ``tools``, ``check``, ``finalize``,
``ingest``), plus the agent's support: its state and context, the tool schemas, how tool
results are shown to the model, evidence notes, the interaction space and the offline
extractive policy. Documents themselves live in ``deepread.corpus``.
"""
