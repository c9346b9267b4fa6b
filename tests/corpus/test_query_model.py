"""``deepread search``'s query model, started before the index: OpenBLAS's pool of one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import ctypes, os
from deepread.corpus.query_model import query_model_loading

with query_model_loading(None, "hybrid") as loading:
    loading.join()
with open("/proc/self/maps") as maps:
    library = next(line.split()[-1] for line in maps if "openblas" in line)
get = getattr(ctypes.CDLL(library), "scipy_openblas_get_num_threads64_")
print(get(), os.environ.get("OPENBLAS_NUM_THREADS"))
"""


@pytest.mark.skipif(
    not os.path.exists("/proc/self/maps") or (os.cpu_count() or 1) < 2,
    reason="reads the loaded OpenBLAS from /proc; one core has a pool of one anyway",
)
def test_a_search_starts_openblas_with_one_thread_and_leaves_the_environment_as_it_was():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS", "OMP_"))}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        check=True,
        env={**env, "DEEPREAD_EMBEDDINGS": "local"},
    )

    threads, variable = done.stdout.split()
    assert threads == "1"  # OpenBLAS's own default: one per core
    assert variable == "None"  # set for numpy's import only
