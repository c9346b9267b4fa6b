"""The extractive policy: a chat model without an LLM, the default when no model is
configured (offline, the README's first command).

``policy`` (:class:`~deepread.extractive.policy.ExtractiveChatModel`: retrieve, read the
best section, quote the best passages) and where a filing keeps what a question asks
(``statements``: the statement and disclosure lexicon). It drives the same graph as an
LLM, through real tool calls, so it sits above the nodes it calls; the graphs inject it as
their default model (:func:`~deepread.extractive.policy.extractive_policy`).
"""
