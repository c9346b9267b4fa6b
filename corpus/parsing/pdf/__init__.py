"""PDF reading with PDFium, one concept per module.

``reader`` (:func:`~deepread.corpus.parsing.pdf.reader.read_pdf`: pages to blocks) over
``lines`` (characters to lines), ``words``, ``columns`` (reading order),
``margins`` (running headers and footers), ``paragraphs`` and ``leading`` (lines to
paragraphs), ``lists``, ``tables`` (rows of aligned cells), ``headings`` (heading cues)
and ``document`` (an opened PDF with its outline).
"""
