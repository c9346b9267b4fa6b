"""``deepread search``'s query model, started before the index: OpenBLAS's pool of one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os
from deepread.corpus.query_model import query_model_loading
from deepread.stores.local_model import local_model

if {one}:
    with query_model_loading(None, "hybrid") as loading:
        loading.join()
else:  # the same load, OpenBLAS left to size its own pool
    local_model().load_beside(optimised=False).join()
print(len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS"))
"""


def _threads_and_variable(one: bool) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS", "OMP_"))}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(one=one)],
        capture_output=True,
        text=True,
        check=True,
        env={**env, "DEEPREAD_EMBEDDINGS": "local"},
    )
    threads, variable = done.stdout.split()
    return int(threads), variable


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_search_starts_openblas_with_one_thread_and_leaves_the_environment_as_it_was():
    threads_one, variable = _threads_and_variable(True)
    threads_default, _ = _threads_and_variable(False)

    assert variable == "None"  # set for numpy's import only
    assert threads_default - threads_one == (os.cpu_count() or 1) - 1
