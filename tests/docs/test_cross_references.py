"""Every cross-reference in the package's docstrings and comments, the bench scripts and
the docs names something the installed package has: a Sphinx role (``:mod:``,
``:func:``, ``:class:``, ``:meth:``, ``:data:``, ``:attr:``) resolves to an importable
module or an attribute of one; a file mentioned by its path (``nodes/read_plan.py``)
exists; a name given with its file (``nodes/read_plan.py: fit``, ```text/terms.
key_words```) is defined there; a section named with its file (``docs/history/
benchmarks-2026.md §24``) is a numbered heading of that file, and every ``§N`` of
``docs/benchmarks.md`` (whose rows point into that history) is one of the history's.
Nothing builds these docs, so without this test a reference to a moved name stays in the
text, silently wrong. The failure lists each stale reference with where it is.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, get_type_hints

ROOT = Path(__file__).resolve().parents[2]
#: How a folder installs (pyproject's package-dir): ``nodes`` → ``deepread.nodes``.
PACKAGE_DIR: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
    "setuptools"
]["package-dir"]
FOLDERS = {folder: package for package, folder in PACKAGE_DIR.items()}
#: A Sphinx role and its target: ``:func:`~deepread.text.terms.key_words```,
#: ``:meth:`Resources.model <deepread.nodes.resources.Resources.model>```.
ROLE = re.compile(r":(mod|func|class|meth|data|attr|exc|obj):`([^`]+)`")
#: A source file named by its path: ``nodes/read_plan.py``, ``.ci/package_tree.py``.
PATH = re.compile(r"(?<![\w./-])((?:\.?[A-Za-z_][\w-]*/)*[A-Za-z_]\w*\.py)\b")
#: A name given with its file, in parentheses: "(nodes/read_plan.py: fit)".
NAMED = re.compile(r"\(((?:[A-Za-z_]\w*/)+[A-Za-z_]\w*\.py)`?:\s+`?([A-Za-z_]\w*)`?\)")
#: A name written as ``folder/module.name`` (architecture.md's table): ``text/terms.key_words``.
DOTTED = re.compile(r"`((?:[a-z_]\w*/)+[a-z_]\w*)\.([A-Za-z_]\w*)`")
#: What ends a file name, not a module's attribute (``docs/reliability.md``).
EXTENSIONS = frozenset(
    "py md txt json jsonl csv toml html pdf yaml yml cfg ini sh log lock docx tex".split()
)
#: Lines of a docstring or comment a role's target may be broken across.
_BREAK = re.compile(r"\s*\n\s*(?:#:?\s*)?")


def sources() -> Iterator[Path]:
    """The package's modules (every installed folder) and the bench scripts."""
    for folder in [*FOLDERS, "bench"]:
        yield from sorted((ROOT / folder).rglob("*.py"))


def documents() -> Iterator[Path]:
    """The README and the docs that describe the code as it is. Not ``docs/history/``
    nor the changelog: records of past runs, each naming the code of its day (a file since
    moved is named as it was then)."""
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))


#: A section named with its file: "docs/history/benchmarks-2026.md §24", "[history/
#: benchmarks-2026.md](history/benchmarks-2026.md) §9.5".
SECTION_REF = re.compile(r"([\w./-]+\.md)\)?\s+§\s?(\d+(?:\.\d+)*)")
#: A section alone: "§9.5", "§§26".
BARE_SECTION = re.compile(r"§\s?(\d+(?:\.\d+)*)")
#: A numbered heading: "## 9. Real long PDFs", "### 9.1 Structure".
NUMBERED_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)
#: The current figures' file, whose rows name the sections of the record they come from.
FIGURES = ROOT / "docs" / "benchmarks.md"
RECORD = ROOT / "docs" / "history" / "benchmarks-2026.md"


@cache
def _markdown_files() -> dict[str, Path]:
    """The repository's Markdown files by name (README.md, docs/**.md)."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return {p.name: p for p in found}


@cache
def numbered_sections(path: Path) -> frozenset[str]:
    """The numbers of ``path``'s numbered headings ("9", "9.1", …)."""
    return frozenset(NUMBERED_HEADING.findall(path.read_text(encoding="utf-8")))


def stale_sections(path: Path, text: str) -> Iterator[str]:
    """Each ``FILE.md §N`` of ``text`` that names no numbered heading of that file, and,
    in the current figures, each ``§N`` that names none of the record's."""
    where = path.relative_to(ROOT)
    for m in SECTION_REF.finditer(text):
        target = _markdown_files().get(Path(m[1]).name)
        if target is not None and m[2] not in numbered_sections(target):
            yield f"{where}:{_line(text, m.start())}: {m[1]} has no section §{m[2]}"
    if path == FIGURES:
        for m in BARE_SECTION.finditer(text):
            if m[1] not in numbered_sections(RECORD):
                yield f"{where}:{_line(text, m.start())}: {RECORD.name} has no section §{m[1]}"


def module_of(path: Path) -> str | None:
    """The installed name of a package module's file; None for a bench script or a doc."""
    rel = path.relative_to(ROOT)
    package = FOLDERS.get(rel.parts[0]) if len(rel.parts) > 1 else None
    if package is None:
        return None
    parts = [*package.split("."), *rel.parts[1:-1]]
    if rel.stem != "__init__":
        parts.append(rel.stem)
    return ".".join(parts)


def _attribute(owner: Any, name: str) -> Any:
    """``owner.name``, a declared field (dataclass, TypedDict, pydantic model) or an
    attribute its ``__init__`` sets included; raises AttributeError when it has none."""
    try:
        return getattr(owner, name)
    except AttributeError:
        pass
    if inspect.isclass(owner):
        for cls in owner.__mro__:
            if name in getattr(cls, "__annotations__", {}) or name in getattr(
                cls, "model_fields", {}
            ):
                return name
            try:
                if re.search(rf"\bself\.{name}\b\s*[:=]", inspect.getsource(cls)):
                    return name
            except (OSError, TypeError):
                pass
        try:
            if name in get_type_hints(owner):
                return name
        except Exception:  # a hint naming what is only imported for type checking
            pass
    raise AttributeError(name)


@cache
def resolves(target: str) -> bool:
    """Whether ``target`` (fully qualified) is an importable module or an attribute
    chain from the longest importable module before it."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:n]))
        except ImportError:
            continue
        try:
            for name in parts[n:]:
                obj = _attribute(obj, name)
        except AttributeError:
            return False
        return True
    return False


def resolves_in(target: str, module: str | None) -> bool:
    """Whether ``target`` names something from where it is written: fully qualified, in
    the module ``module`` (one of its classes' members included, as Sphinx looks in the
    current class), in its package, at the package root (``deepread.Index``), or a
    builtin."""
    if target.startswith("deepread."):
        return resolves(target)
    head = target.split(".")[0]
    if hasattr(builtins, head):
        return True
    candidates = [f"deepread.{target}"]
    if module is not None:
        candidates.insert(0, f"{module}.{target}")
        mod: ModuleType = importlib.import_module(module)
        candidates += [
            f"{module}.{name}.{target}"
            for name, obj in vars(mod).items()
            if inspect.isclass(obj) and getattr(obj, "__module__", None) == module
        ]
        package = module.rsplit(".", 1)[0]
        candidates.append(f"{package}.{target}")
    return any(resolves(c) for c in candidates)


def outside(mention: str) -> bool:
    """Whether a path mention names a file outside the repository (``../shared/…``, a
    dependency's ``tiktoken_ext/openai_public.py``): not checked."""
    first = mention.split("/")[0]
    return "/" in mention and not (ROOT / first).exists() and first not in _subfolders()


@cache
def _subfolders() -> frozenset[str]:
    return frozenset(p.parent.name for p in _all_files())


def file_for(mention: str, near: Path) -> Path | None:
    """The file a path mention names: from the repository's root, beside the text, or
    as the end of one of the package's or the tests' paths (``pdf/cover.py`` in
    architecture.md's PDF row)."""
    for base in (ROOT, near.parent):
        if (base / mention).is_file():
            return base / mention
    return next((p for p in _all_files() if p.as_posix().endswith(f"/{mention}")), None)


@cache
def _all_files() -> tuple[Path, ...]:
    found = [*sources(), *sorted((ROOT / "tests").rglob("*.py"))]
    found += sorted((ROOT / ".ci").glob("*.py"))
    return tuple(found)


@cache
def defined_in(path: Path) -> frozenset[str]:
    """The names a module defines at its top level or in its classes (functions,
    classes, assignments, imports: a name it re-exports is its name too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def in_script(target: str, path: Path) -> bool:
    """Whether ``target`` names something of a bench script: a name ``path`` defines,
    or ``module.name`` of a script beside it."""
    head, _, rest = target.partition(".")
    if not rest:
        return head in defined_in(path)
    beside = path.parent / f"{head}.py"
    return head in defined_in(path) or (beside.is_file() and rest in defined_in(beside))


def _role_target(raw: str) -> str:
    target = raw.split("<", 1)[1].rstrip(">").strip() if "<" in raw else raw
    return target.lstrip("~.").removesuffix("()")


def stale_in(path: Path, text: str | None = None) -> Iterator[str]:
    """Each stale reference of ``path`` (or of ``text``, as if it were there), as
    ``file:line: what``."""
    if text is None:
        text = path.read_text(encoding="utf-8")
    module = module_of(path) if path.suffix == ".py" else None
    where = path.relative_to(ROOT)
    for m in ROLE.finditer(text):
        role, raw = m[1], _BREAK.sub("", m[2]).strip()
        target = _role_target(raw)
        if role == "mod":
            ok = _importable(target)
        else:
            ok = resolves_in(target, module) or (
                module is None and path.suffix == ".py" and in_script(target, path)
            )
        if not ok:
            yield f"{where}:{_line(text, m.start())}: :{role}:`{raw}`"
    for m in PATH.finditer(text):
        if not outside(m[1]) and file_for(m[1], path) is None:
            yield f"{where}:{_line(text, m.start())}: no file {m[1]}"
    for m in NAMED.finditer(text):
        file = file_for(m[1], path)
        if file is not None and m[2] not in defined_in(file):
            yield f"{where}:{_line(text, m.start())}: {m[1]} has no {m[2]}"
    for m in DOTTED.finditer(text):
        if m[2] in EXTENSIONS or outside(m[1]):
            continue
        file = file_for(f"{m[1]}.py", path)
        if file is None:
            yield f"{where}:{_line(text, m.start())}: no file {m[1]}.py"
        elif m[2] not in defined_in(file):
            yield f"{where}:{_line(text, m.start())}: {m[1]}.py has no {m[2]}"


@cache
def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def test_every_cross_reference_names_something_the_package_has():
    stale = [s for path in [*sources(), *documents()] for s in stale_in(path)]

    assert not stale, f"{len(stale)} stale cross-reference(s):\n" + "\n".join(stale)


def test_every_section_named_with_its_file_is_one_of_its_numbered_headings():
    tests = sorted(p for p in (ROOT / "tests").rglob("*.py") if p != Path(__file__))
    stale = [
        s
        for path in [*sources(), *tests, *documents()]
        for s in stale_sections(path, path.read_text(encoding="utf-8"))
    ]

    assert not stale, f"{len(stale)} stale section reference(s):\n" + "\n".join(stale)


def test_a_section_the_record_does_not_have_is_named_with_where_it_is():
    text = (
        "Measured (docs/history/benchmarks-2026.md §24; docs/benchmarks.md §24) and\n"
        "[history/benchmarks-2026.md](history/benchmarks-2026.md) §99.\n"
    )

    stale = list(stale_sections(ROOT / "stores" / "shard.py", text))

    assert stale == [
        "stores/shard.py:1: docs/benchmarks.md has no section §24",
        "stores/shard.py:2: history/benchmarks-2026.md has no section §99",
    ]


def test_a_bare_section_of_the_current_figures_is_one_of_the_records():
    stale = list(stale_sections(FIGURES, "| read_section p50 | 0.114 ms | … | §1, §9.5, §77 |\n"))

    assert stale == ["docs/benchmarks.md:1: benchmarks-2026.md has no section §77"]


def test_a_stale_reference_is_named_with_where_it_is():
    text = (
        '"""What the executor shows (:func:`~deepread.nodes.state.view`, moved to\n'
        "read_memory; :func:`~deepread.nodes.read_memory.view` is it), as\n"
        "(nodes/state.py: view) says, and `text/terms.key_words` and\n"
        '``nodes/gone.py``."""\n'
    )

    stale = list(stale_in(ROOT / "nodes" / "executors.py", text))

    assert stale == [
        "nodes/executors.py:1: :func:`~deepread.nodes.state.view`",
        "nodes/executors.py:4: no file nodes/gone.py",
        "nodes/executors.py:3: nodes/state.py has no view",
    ]
