"""The offline policy: a chat model without an LLM, for runs with no model configured.

``model`` (:class:`~deepread.nodes.offline.model.ExtractiveChatModel`: retrieve, read
the best section, quote the best passages), the search query it asks (``query``), how
much it reads (``read_plan``) and where a filing keeps what a question asks
(``statements``).
"""
