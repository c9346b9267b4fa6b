"""What a new user meets first: ``--version``, ``--help`` listing every command, shell
completion (run in real bash and zsh), and the extras a command needs named when missing.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import deepread
from deepread import cli
from deepread.cli.completion import commands
from deepread.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
COMMANDS = [
    "ingest",
    "docs",
    "toc",
    "search",
    "read",
    "ask",
    "chat",
    "show",
    "serve",
    "collections",
    "rm",
    "eval",
    "synth",
    "mcp",
    "completion",
]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_the_version_is_the_one_pyproject_declares_read_from_the_installed_metadata() -> None:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]

    code, out, _ = run("--version")

    assert code == 0 and out == f"deepread {declared}\n"
    assert deepread.__version__ == version("deepread") == declared
    assert "__version__ =" not in (REPO / "deepread" / "__init__.py").read_text()


def test_every_command_is_in_the_help() -> None:
    code, out, _ = run("--help")

    assert code == 0
    listed = [c.name for c in commands(build_parser())]
    assert listed == COMMANDS
    for name in COMMANDS:
        assert f"\n    {name}" in out, name


def test_mcp_is_a_command_with_its_own_help() -> None:
    code, out, _ = run("mcp", "--help")

    assert code == 0
    for option in ("--store", "--collection", "--k", "--window", "--doc"):
        assert option in out


def test_mcp_without_its_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if not installed

    code, _, err = run("mcp", "--store", str(tmp_path))

    assert code == 2 and "pip install 'deepread[mcp]'" in err


def test_eval_without_matplotlib_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    dataset = tmp_path / "qa.jsonl"
    dataset.write_text('{"id": "1", "question": "Q?", "answer": "A"}\n')

    code, _, err = run("eval", str(dataset), "--store", str(tmp_path / "store"))

    assert code == 2
    assert "matplotlib, which is not installed: pip install 'deepread[eval]'" in err
    assert not (tmp_path / "store").exists()  # stopped before any work


# -- shell completion ---------------------------------------------------------------------


def complete_bash(script: str, *words: str) -> list[str]:
    """What bash proposes for the last of ``words`` (``deepread`` first)."""
    array = " ".join(f"'{w}'" for w in words)
    probe = (
        f"{script}\nCOMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; _deepread\n"
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "-c", probe], capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout.split()


@pytest.fixture(scope="module")
def bash_script() -> str:
    code, out, _ = run("completion", "bash")
    assert code == 0
    return out


def test_bash_completes_the_commands(bash_script: str) -> None:
    assert complete_bash(bash_script, "deepread", "") == [*COMMANDS, "-h", "--help", "--version"]
    assert complete_bash(bash_script, "deepread", "co") == ["collections", "completion"]


def test_bash_completes_a_commands_options_and_their_choices(bash_script: str) -> None:
    assert complete_bash(bash_script, "deepread", "search", "q", "--mo") == ["--mode"]
    assert complete_bash(bash_script, "deepread", "search", "q", "--mode", "") == [
        "dense",
        "bm25",
        "hybrid",
    ]
    assert "--thread" in complete_bash(bash_script, "deepread", "chat", "--")
    assert complete_bash(bash_script, "deepread", "completion", "") == ["bash", "zsh"]


def test_bash_leaves_paths_to_its_own_file_completion(bash_script: str) -> None:
    assert complete_bash(bash_script, "deepread", "ingest", "doc") == []
    assert "complete -o default -F _deepread deepread" in bash_script


@pytest.mark.skipif(
    shutil.which("zsh") is None, reason="zsh is not installed (.ci/run installs it as root)"
)
def test_zsh_loads_the_script_and_registers_its_completion(tmp_path: Path) -> None:
    code, script, _ = run("completion", "zsh")
    assert code == 0
    (tmp_path / "deepread.zsh").write_text(script)

    done = subprocess.run(
        [
            "zsh",
            "-f",
            "-c",
            "autoload -U compinit && compinit -u -D && "
            f"source {tmp_path / 'deepread.zsh'} && print -r -- $_comps[deepread]",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "_deepread"
    for name in COMMANDS:
        assert f"        {name}) _arguments" in script
