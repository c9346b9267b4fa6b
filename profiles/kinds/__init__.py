"""The kinds of document deepread has a profile for, one module each: an SEC filing
(:mod:`~deepread.profiles.kinds.sec_filing`), a syllabus
(:mod:`~deepread.profiles.kinds.syllabus`). Each makes a
:class:`~deepread.profiles.profile.Profile` named ``PROFILE``; the registry
(:data:`deepread.profiles.PROFILES`) lists them. Nothing of the general core imports
them (an import-linter contract keeps it so).
"""
