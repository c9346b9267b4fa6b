"""Lay out the package as it installs, as a tree of links to the source files.

deepread's folders install under other names (``graphs/`` as ``deepread.graphs`` …,
setuptools' ``package-dir`` in pyproject.toml). The editable install maps them with an
import hook, which tools that find modules by walking folders do not run: import-linter
(grimp) and mypy see only ``deepread/``. This script reads the same ``package-dir`` and
``packages`` and builds ``build/package-tree/deepread/…`` with a link to every module,
so those tools check the package exactly as it installs, and their file names lead
back to the sources.

Usage: ``python .ci/package_tree.py [OUT]``; prints OUT (default build/package-tree).
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def source_folder(package: str, package_dir: dict[str, str]) -> Path:
    """Where ``package``'s files are: its nearest mapped ancestor's folder, then the rest."""
    parts = package.split(".")
    for n in range(len(parts), 0, -1):
        head = ".".join(parts[:n])
        if head in package_dir:
            return ROOT / package_dir[head] / Path(*parts[n:])
    return ROOT / Path(*parts)


def build(out: Path) -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_dir: dict[str, str] = setuptools.get("package-dir", {})
    shutil.rmtree(out, ignore_errors=True)  # a module removed from the source goes too
    for package in setuptools["packages"]:
        folder = source_folder(package, package_dir)
        if not (folder / "__init__.py").is_file():
            sys.exit(f"package {package}: no {folder / '__init__.py'}")
        target = out / Path(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for file in sorted(folder.iterdir()):
            if file.suffix in (".py", ".pyi") or file.name == "py.typed":
                (target / file.name).symlink_to(file)


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "package-tree"
    build(out.resolve())
    print(out)
