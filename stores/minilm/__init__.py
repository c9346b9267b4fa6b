"""The local MiniLM embedding model's tokenizer (``tokenizer.json``) and its licence
notice (``NOTICE.md``): data shipped in the wheel, read by path from
:mod:`deepread.stores.embeddings`; no code."""
