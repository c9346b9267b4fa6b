"""What is specific to a kind of document, behind one interface the general core calls.

Parsing, titles and the offline policy follow general rules: what a heading looks like,
what a name looks like, which passage shares the question's words. Some kinds of
document add their own: an SEC filing's cover is not a sequence of sections, its
registrant is named in a captioned field, a question about its quick ratio is answered
from its balance sheet; a syllabus is of a term, "Fall 2021". Each kind is a profile
module (:mod:`~deepread.profiles.kinds.sec_filing`, :mod:`~deepread.profiles.kinds.syllabus`)
filling in what applies of :class:`~deepread.profiles.profile.Profile`; the core asks
them all through :data:`PROFILES` (:class:`~deepread.profiles.profile.Profiles`) and
imports no profile module itself (an import-linter contract keeps it so). Adding a kind
is adding its module and naming it here; a document of no kind is read by the general
rules alone. :mod:`~deepread.profiles.printed` holds how any printed line is read, for
the core and the profiles alike.

The order below is the order of trust where two profiles read the same text (a term,
"Fall 2021", before a filing's "fiscal 2023").
"""

from __future__ import annotations

from deepread.profiles.kinds import sec_filing, syllabus
from deepread.profiles.profile import Profile, Profiles

__all__ = ["PROFILES", "Profile", "Profiles"]

#: The profiles the core consults, in order.
PROFILES = Profiles((syllabus.PROFILE, sec_filing.PROFILE))
