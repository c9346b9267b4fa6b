"""What a model call is sent: the system prompt and TOC, evidence notes, a valid history.

``prompt`` (system prompt, notes, notices), ``notes`` (older observations as evidence
notes past the budget), ``history`` (a history every model API accepts) and ``space``
(the bounded interaction space of a TOC too large for its budget). The ``toc`` and
``compact`` nodes use them.
"""
