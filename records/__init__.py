"""Plain data and errors shared by every floor: the records users see (documents,
sections, paragraphs, hits, reads), the errors, and the naming rules of stores and
collections. Imports nothing of deepread but :mod:`deepread.text`."""
