"""The image ``langgraph build`` makes installs deepread, from a context without the venv.

No Docker engine runs here, so this checks what can be checked without one: the
Dockerfile ``langgraph dockerfile`` generates from ``langgraph.json`` (it adds the
repository and runs ``pip install -e .`` in it), and the build context that Dockerfile
implies — the repository less ``.dockerignore`` — which must hold what that install
needs, shown by building the wheel from a copy of exactly that context, and nothing of
the local state (``.venv`` is 1.1 GB here, ``.langgraph_api`` holds server state).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def dockerignore_patterns() -> list[re.Pattern[str]]:
    """``.dockerignore`` as regular expressions, with Docker's meaning of ``*``, ``?``
    and ``**`` (negations are not used, so not supported)."""
    patterns = []
    for line in (REPO / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        assert not line.startswith("!"), "negated patterns need a fuller matcher"
        regex = ""
        i = 0
        line = line.strip("/")
        while i < len(line):
            if line.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif line.startswith("**", i):
                regex, i = regex + ".*", i + 2
            elif line[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif line[i] == "?":
                regex, i = regex + "[^/]", i + 1
            else:
                regex, i = regex + re.escape(line[i]), i + 1
        patterns.append(re.compile(regex + r"\Z"))
    return patterns


def build_context() -> list[str]:
    """Files Docker would send: the repository less what .dockerignore excludes (a
    folder's exclusion covers everything in it)."""
    patterns = dockerignore_patterns()

    def ignored(rel: str) -> bool:
        parts = rel.split("/")
        return any(p.match("/".join(parts[:n])) for n in range(1, len(parts) + 1) for p in patterns)

    files = []
    for folder, dirs, names in os.walk(REPO):
        rel_dir = os.path.relpath(folder, REPO)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirs[:] = [d for d in dirs if not ignored(rel_dir + d)]
        files += [rel_dir + n for n in names if not ignored(rel_dir + n)]
    return sorted(files)


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("dockerfile") / "Dockerfile"
    exe = Path(sys.executable).with_name("langgraph")
    done = subprocess.run(
        [str(exe), "dockerfile", "-c", str(REPO / "langgraph.json"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"LANGGRAPH_CLI_NO_ANALYTICS": "1"},
    )
    assert done.returncode == 0, done.stderr
    return out.read_text()


def test_the_generated_dockerfile_adds_the_repository_and_installs_it(dockerfile: str) -> None:
    added = re.search(r"^ADD \. (/deps/\S+)$", dockerfile, re.M)
    assert added, dockerfile
    assert re.search(r"pip install [^\n]*-e \.", dockerfile)
    assert re.search(
        r'LANGSERVE_GRAPHS=.*"deepread": \{"path": "deepread.graphs.agent:graph", '
        r'"description": "Answers a question',
        dockerfile,
    )
    assert '"ingest": {"path": "deepread.graphs.ingest:graph"' in dockerfile
    assert re.search(r"^FROM \S+:3\.11", dockerfile, re.M)


def test_the_build_context_leaves_out_local_state() -> None:
    context = build_context()

    for local in (
        ".venv/",
        ".langgraph_api/",
        "bench/out/",
        ".git/",
        "tests/",
        "build/",
        ".mypy_cache/",
        ".import_linter_cache/",
    ):
        assert not any(f.startswith(local) for f in context), local
    assert not any("__pycache__/" in f or f.endswith(".pyc") for f in context)


def test_the_build_context_holds_everything_pip_install_needs(tmp_path: Path) -> None:
    context = build_context()
    copy = tmp_path / "context"
    for rel in context:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, copy / rel)
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "wheel"),
            str(copy),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = (tmp_path / "wheel").glob("deepread-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in setuptools["packages"]:
        assert f"{package.replace('.', '/')}/__init__.py" in names, package
    for needed in (
        "deepread/graphs/agent.py",
        "deepread/graphs/ingest.py",
        "deepread/user_auth.py",
        "deepread/prompts/system.md",
    ):
        assert needed in names, needed
