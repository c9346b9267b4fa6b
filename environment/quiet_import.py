"""Import a third-party package with its telemetry opted out, the host's environment kept.

Two dependencies phone home unless an environment variable says not to, and both
read it once, when they are imported:

* ``unstructured`` pings Scarf (``DO_NOT_TRACK``, ``SCARF_NO_ANALYTICS``);
* ``onnxruntime`` >= 1.29 on Linux records 1DS telemetry (a device id and an event
  database under ``~/.cache/Microsoft/DeveloperTools``, uploaded to
  ``mobile.events.data.microsoft.com``) unless ``ORT_DISABLE_TELEMETRY=1`` is set
  before it initialises; the decision is latched for the life of the process.

deepread is offline by rule and must not change the environment of the program that
imports it, so the variables are set for the import only and restored after it. A
package the host imported first keeps whatever the host decided.
"""

from __future__ import annotations

import os
import sys
import threading
from importlib import import_module
from types import ModuleType

_LOCK = threading.Lock()


def import_quietly(name: str, opt_out: dict[str, str]) -> ModuleType:
    """``import name`` with ``opt_out`` in ``os.environ`` during the import only."""
    with _LOCK:
        if name in sys.modules:  # imported already (by us, or by the host)
            return sys.modules[name]
        saved = {key: os.environ.get(key) for key in opt_out}
        os.environ.update(opt_out)
        try:
            return import_module(name)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def import_onnxruntime() -> ModuleType:
    """``onnxruntime`` with its 1DS telemetry off (no device id, no event cache, no upload)."""
    return import_quietly("onnxruntime", {"ORT_DISABLE_TELEMETRY": "1"})
