"""What the tool executors use: the tools' handlers, contract, schemas and result type.

One handler per tool (``retrieve``, ``read_section``, ``open_toc``,
``follow_reference``), the contract between an executor node and its handler
(``contract``), the tools' schemas and argument checks (``specs``), and the typed result
and its framed text (``observation``). The executor nodes themselves are
:mod:`deepread.nodes.executors`.
"""
