"""The extractive policy: a chat model without an LLM, the default when no model is
configured (offline, the README's first command).

``policy`` (:class:`~deepread.extractive.policy.ExtractiveChatModel`: the chat model,
which reads its messages into a turn and makes each step its reply) over ``planner``
(which tool next, from the turn as data: ``turn``) and ``composer`` (the quoted answer,
its passages: ``passages``), and where a filing keeps what a question asks
(``statements``: the statement and disclosure lexicon; ``periods``, ``rows``). It drives
the same graph as an LLM, through real tool calls, so it sits above the nodes it calls;
the graphs inject it as their default model
(:func:`~deepread.extractive.policy.extractive_policy`).
"""
