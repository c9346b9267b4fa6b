"""The tool executors: what runs a model's tool calls, and the tools' shared contract.

One handler per tool (``retrieve``, ``read_section``, ``open_toc``,
``follow_reference``), the contract between an executor and its handler (``contract``),
the tools' schemas and argument checks (``specs``), the typed result and its framed text
(``observation``), and the executor that answers calls with them (``executor``).
"""
