"""The sufficiency check's pieces: is the answer supported by what it cites?

``support`` (the check, the extra read, the abstention), ``unused_terms`` (a word the
cited documents never use asks for closer support) and ``answer_type`` (the kind of fact
a question asks for). The ``check`` node (:mod:`deepread.nodes.check`) runs them.
"""
