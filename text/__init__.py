"""Text utilities every layer shares: token counts, content words, dates, markup, hygiene.

``tokens`` (real tiktoken counts, offline), ``terms`` (the one content-word tokeniser of
every lexical judgement), ``dates`` (a calendar day as one search term however written),
``markup`` (a paragraph's words without its table markup), ``clip`` (a text cut at a word
for showing) and ``hygiene`` (arguments and queries cleaned of what breaks tokenizers).
They import nothing of deepread above ``deepread.environment``, so the store, the corpus,
the nodes and the face all use them.
"""
