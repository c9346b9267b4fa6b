"""Secrets out of messages: the one function every error text that may hold one goes through.

Store and database locations are URLs, and a URL carries secrets in several places:
the userinfo (``postgres://user:PASSWORD@host``), the query string (libpq's
``?password=…``, ``sslpassword``; ``?api_key=…``, ``?token=…`` and signed-URL
``signature``/``sig`` of other services), and libpq's keyword form
(``host=db password=…``). Provider errors may echo an ``Authorization: Bearer …`` header,
and any message may contain the value of a secret environment variable
(``OPENAI_API_KEY``…). :func:`redact` masks all of these with ``***`` and keeps the rest
readable (scheme, user, host, port, path, database, the other parameters), so a message
still says *where* without saying *with what*.

Every message that names a store, a checkpointer or a model endpoint, or repeats a
client library's error, is passed through it: ``deepread/checkpointers.py``,
``stores/server.py``, ``stores/location.py``, ``nodes/resources.py`` and the model errors
of ``models/chat.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, unquote

MASK = "***"

#: Parameter names whose values are secrets, in a query string or a ``key=value`` list
#: (exact names, case-insensitive, ``-`` or ``_`` alike): "tokens=12" is not one.
_SECRET_NAMES = (
    r"(?:ssl)?pass(?:word|wd)?|pwd|(?:client[_-]?)?secret|"
    r"(?:access[_-]?|refresh[_-]?|auth[_-]?|id[_-]?|session[_-]?)?token|"
    r"api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|"
    r"x-amz-signature|x-amz-credential|x-amz-security-token|signature|sig|"
    r"credentials?|auth"
)
#: ``name=value`` in a query string or a libpq keyword list; the value runs to the next
#: separator (``&``, ``;``, whitespace, a quote) or is a quoted string.
_PAIR = re.compile(rf"(?i)(?<![\w-])({_SECRET_NAMES})(\s*=\s*)('(?:[^'\\]|\\.)*'|[^&;\s'\"#]+)")
#: ``scheme://user:password@`` — the password runs to the last ``@`` of the location (a
#: password may hold an unencoded ``/`` or ``@``: masking too much is the safe side).
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/@:]*):(\S*)@")
#: An ``Authorization`` header value (``Bearer xyz``, ``Basic xyz``, ``Token xyz``).
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/=-]{8,})")
#: Secrets shorter than this are not masked by value: they would hit ordinary words.
_MIN_KNOWN = 8


def redact(text: str, known: Iterable[str] = ()) -> str:
    """``text`` with every secret it holds masked: URL passwords, secret parameters,
    bearer tokens, and the ``known`` values (secrets of the environment)."""
    for value in sorted({v for v in known if len(v) >= _MIN_KNOWN}, key=len, reverse=True):
        for form in {value, quote(value, safe="")}:  # as written, and percent-encoded
            text = text.replace(form, MASK)
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", text)
    text = _PAIR.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def redact_url(url: str, known: Iterable[str] = ()) -> str:
    """A store, database or endpoint location as it may be shown: :func:`redact` of it,
    with a percent-encoded secret parameter name decoded first (``pass%77ord=``)."""
    decoded = unquote(url) if "%" in url else url
    out = redact(decoded, known)
    return out if out != decoded else url
