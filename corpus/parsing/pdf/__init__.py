"""PDF reading with PDFium, one concept per module.

``reader`` (:func:`~deepread.corpus.parsing.pdf.reader.read_pdf`: pages to blocks) over
``document`` (an opened PDF with its outline), ``pdfium`` (PDFium's bindings: a page's
characters, boxes and fonts read in bulk), ``lines`` (characters to lines and boxes),
``words`` (lines joined, hyphenation undone), ``columns`` (reading order), ``margins``
(running headers and footers), ``paragraphs`` and ``leading`` (lines to paragraphs),
``lists``, ``tables`` (rows of aligned cells) and the headings: ``headings`` (the cues
combined, levels) over one module per cue — ``outline`` (bookmarks), ``contents``
(printed tables of contents), ``labels`` (Part, Item, Note…), ``typography`` (bold,
larger, capitals) and ``standalone`` (lines standing alone, run-in titles, where
typography says little).
"""
