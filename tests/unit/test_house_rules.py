"""House rules of ``docs/contributing.md`` checked on the code itself.

**Module size.** No module of ``rcgrpo/``, ``analysis/``, ``tests/`` or ``benchmarks/`` is
longer than the hard limit the *Size* rule of ``docs/contributing.md`` states; the number is
read from there, never repeated here.

**Ruff owns the layout.** No module of those folders turns the formatter off for a line or a
block (the ``fmt`` skip / off comments, :data:`FORMATTER_OFF`): a table ruff lays out badly
becomes data it lays out well.

**Docstring references resolve.** Every docstring of ``rcgrpo/`` and ``analysis/`` (module,
class, function, and the attribute docstring under an assignment) is read with ``ast``; what
it names must exist:

- a Sphinx role (``:mod:``, ``:func:``, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``,
  ``:exc:``, ``:obj:``, ``:const:``; ``~``, ``!``, ``title <target>`` and a trailing ``()``
  allowed): a dotted target of the two packages imports and has every attribute; a target
  with a leading dot is relative to the current package; any other target is looked up in the
  enclosing classes, then the module, then the builtins, then as an importable module;
- a literal (``…`` in single or double backticks) that is a dotted path of the two packages,
  e.g. ``rcgrpo.env.synth``: likewise;
- a repository path (``docs/regime.md``, ``analysis/verdicts/rules.py``): the file or
  folder exists. A path counts as the repository's when its first part is a top-level entry
  of the checkout; left out are those under the git-ignored outputs :data:`NOT_COMMITTED`
  and paths with a placeholder or a glob (``<run>``, ``{knob}``, ``*``, ``…``), which name no
  single file. Paths relative to a run folder (``eval/step_N.json``) or to another project
  (``trl/…``) start with no top-level entry and are not checked.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTRIBUTING = ROOT / "docs" / "contributing.md"
PACKAGES = ("rcgrpo", "analysis")
SIZED = ("rcgrpo", "analysis", "tests", "benchmarks")
"""The folders whose modules the size rule covers."""
NOT_COMMITTED = ("runs/", "paper/generated", ".venv/")
"""Git-ignored outputs (``.gitignore``, ``paper/.gitignore``): named in docstrings, never in
a checkout."""

ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj|const):`([^`]*)`")
LITERAL = re.compile(r"``([^`]+)``|(?<![`\w:])`([^`]+)`(?![`_])")
DOTTED = re.compile(r"(?:rcgrpo|analysis)(?:\.\w+)+")
PATH = re.compile(r"(?<![\w./<>{}*…-])((?:[\w.<>{}*?…-]+/)+[\w.<>{}*?…\[\]-]*)")
PLACEHOLDER = re.compile(r"[<>{}*?\[\]…]|\.\.\.")
FORMATTER_OFF = re.compile(r"#\s*fmt:\s*(?:skip|off)\b")
"""A comment that turns ruff format (or black) off."""


# --- module size ---------------------------------------------------------------------------


def hard_limit(text: str) -> int:
    """The hard module limit in lines from the *Size* rule of ``docs/contributing.md``."""
    rule = re.search(r"\*\*Size\*\*: modules aim at ≤ \d+ lines, hard (\d+)", text)
    if rule is None:
        raise ValueError("docs/contributing.md states no 'modules aim at ≤ N lines, hard M'")
    return int(rule.group(1))


def test_hard_limit_is_read_from_the_size_rule():
    assert hard_limit("- **Size**: modules aim at ≤ 30 lines, hard 50 (…); functions") == 50
    with pytest.raises(ValueError, match="hard M"):
        hard_limit("- **Size**: modules aim at ≤ 300 lines")


def test_no_module_is_longer_than_the_hard_limit():
    limit = hard_limit(CONTRIBUTING.read_text())
    paths = sorted(p for folder in SIZED for p in (ROOT / folder).rglob("*.py"))
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in paths
        if (n := len(p.read_text().splitlines())) > limit
    }
    assert len(paths) > 100 and long == {}, f"over {limit} lines: {long}"


def test_no_module_turns_the_formatter_off():
    assert FORMATTER_OFF.search("x = 1  # fmt" + ": skip") and not FORMATTER_OFF.search("# fmt")
    paths = sorted(p for folder in SIZED for p in (ROOT / folder).rglob("*.py"))
    off = [
        f"{p.relative_to(ROOT).as_posix()}:{i}"
        for p in paths
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if FORMATTER_OFF.search(line)
    ]
    assert off == []


# --- docstring references ------------------------------------------------------------------


def docstrings(tree: ast.Module) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(line, text, enclosing class names) of every docstring of ``tree`` (module docstring)."""

    def visit(node: ast.AST, classes: tuple[str, ...]) -> Iterator:
        if isinstance(node, ast.ClassDef):
            classes = (*classes, node.name)
        body = node.body if isinstance(getattr(node, "body", None), list) else []
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield body[0].lineno, text, classes
        for before, stmt in zip(body, body[1:], strict=False):
            if isinstance(before, ast.Assign | ast.AnnAssign) and _is_text(stmt):
                yield stmt.lineno, stmt.value.value, classes
        for child in ast.iter_child_nodes(node):
            yield from visit(child, classes)

    yield from visit(tree, ())


def _is_text(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and (isinstance(stmt.value.value, str))
    )


def role_targets(text: str) -> list[str]:
    """The targets of the Sphinx roles in ``text``, without ``~``, ``!``, title or ``()``."""
    out = []
    for m in ROLE.finditer(text):
        target = m.group(1)
        if target.endswith(">") and "<" in target:
            target = target[target.rindex("<") + 1 : -1]
        out.append(target.lstrip("~!").removesuffix("()"))
    return out


def dotted_literals(text: str) -> list[str]:
    """Literals in backticks that are dotted paths of :data:`PACKAGES`."""
    found = (m.group(1) or m.group(2) for m in LITERAL.finditer(text))
    return [t for t in found if DOTTED.fullmatch(t)]


def repo_paths(text: str, root: Path = ROOT) -> list[str]:
    """The repository paths ``text`` names (module docstring: which count)."""
    out = []
    for m in PATH.finditer(text):
        path = m.group(1).rstrip(".,;:")
        first = path.split("/", 1)[0]
        if PLACEHOLDER.search(path) or path.startswith(NOT_COMMITTED):
            continue
        if first and (root / first).exists():
            out.append(path)
    return out


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import(name: str) -> ModuleType | None:
    """``name`` imported, or None when no such module exists (not when its imports fail)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            return None
        raise


def _attribute(obj: object, parts: list[str]) -> bool:
    """Whether ``obj.<parts>`` exists; a dataclass field or annotated attribute counts (and is
    followed into its type when that is a class)."""
    for part in parts:
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        if not inspect.isclass(obj):
            return False
        annotated = {k for c in obj.__mro__ for k in getattr(c, "__annotations__", {})}
        if part not in annotated:
            return False
        try:
            hint = typing.get_type_hints(obj).get(part)
        except (NameError, TypeError):  # an annotation that does not evaluate here
            hint = None
        obj = hint if inspect.isclass(hint) else object()
    return True


def _absolute(target: str) -> bool:
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        module = _import(".".join(parts[:i]))
        if module is not None:
            return _attribute(module, parts[i:])
    return False


def resolves(target: str, module: str, classes: tuple[str, ...] = (), is_pkg: bool = False):
    """Whether the reference ``target`` made in ``module`` (inside ``classes``) exists
    (module docstring)."""
    if not target or re.search(r"\s", target):
        return False
    if target.startswith("."):
        package = module if is_pkg else module.rpartition(".")[0]
        return _absolute(package + target) or _absolute(module + target)
    first, *rest = target.split(".")
    if first in PACKAGES:
        return _absolute(target)
    mod = importlib.import_module(module)
    scopes: list[object] = []
    for name in classes:
        scopes.insert(0, getattr(scopes[0] if scopes else mod, name, None))
    for scope in [*scopes, mod, builtins]:
        if scope is not None and _attribute(scope, [first]):
            return _attribute(scope, [first, *rest])
    return _absolute(target)


def broken_references(
    source: str, module: str, is_pkg: bool = False, name: str = "?", root: Path = ROOT
) -> list[str]:
    """``name:line: why`` for every reference in the docstrings of ``source`` (the text of
    ``module``, a package when ``is_pkg``) that does not resolve (module docstring)."""
    out = []
    for line, text, classes in docstrings(ast.parse(source)):
        for target in role_targets(text) + dotted_literals(text):
            if not resolves(target, module, classes, is_pkg):
                out.append(f"{name}:{line}: {target!r} does not resolve")
        missing = [p for p in repo_paths(text, root) if not (root / p).exists()]
        out += [f"{name}:{line}: no file {p}" for p in missing]
    return out


PLANTED = '''"""Resolve: :data:`analysis.verdicts.rules.RESERVED_SEEDS`, :class:`Rule` (imported
here), :exc:`ValueError`, :meth:`.rules.Rule.design`, ``analysis.campaign.arms.ARMS``,
docs/regime.md, results/INDEX.toml. Do not: :func:`~analysis.verdicts.
rules.speed` (wrapped), :mod:`analysis.experiments` (moved), :func:`no_such`,
``analysis.campaign.arms.NO_SUCH``, analysis/recipe_sweep.py. Not checked: docs/<name>.md,
results/regime/calib-{knob}.json, figures/*.png, runs/regime/x.json, eval/step_N.json,
trl/trainer/grpo_trainer.py, https://example.org/docs/a.md."""
'''
"""A docstring of ``analysis.verdicts.rules`` with planted references."""


def test_the_checker_finds_the_planted_bad_references():
    assert broken_references(PLANTED, "analysis.verdicts.rules", name="probe.py") == [
        "probe.py:1: 'analysis.verdicts.\\nrules.speed' does not resolve",
        "probe.py:1: 'analysis.experiments' does not resolve",
        "probe.py:1: 'no_such' does not resolve",
        "probe.py:1: 'analysis.campaign.arms.NO_SUCH' does not resolve",
        "probe.py:1: no file analysis/recipe_sweep.py",
    ]
    _, text, _ = next(docstrings(ast.parse(PLANTED)))
    assert repo_paths(text) == [
        "docs/regime.md",
        "results/INDEX.toml",
        "analysis/recipe_sweep.py",
    ]


def test_a_name_inside_a_class_is_looked_up_in_the_class_first():
    source = '''"""At module level :attr:`conversations_source` is no name of the module."""
class Run:
    """:meth:`conversations` and :attr:`conversations_source` are the class's."""
    root: str
    """The folder: :attr:`no_such` is not."""
    def conversations(self):
        """:attr:`conversations_source`, :class:`Run` and :func:`load_run` resolve."""
'''
    found = [(line, classes) for line, _, classes in docstrings(ast.parse(source))]
    assert found == [(1, ()), (3, ("Run",)), (5, ("Run",)), (7, ("Run",))]
    assert broken_references(source, "analysis.runs.folder") == [
        "?:1: 'conversations_source' does not resolve",
        "?:5: 'no_such' does not resolve",
    ]


def test_dataclass_fields_and_relative_targets_resolve():
    # a field without a default is no class attribute; one with a default_factory is followed
    # into its type
    assert resolves("analysis.campaign.arms.Arm.start", "analysis.campaign.arms")
    assert resolves("rcgrpo.train.config.TrainConfig.run.seed", "rcgrpo.train.config")
    assert not resolves("rcgrpo.train.config.TrainConfig.run.no_such", "rcgrpo.train.config")
    # a leading dot is relative to the current package, as Sphinx reads it
    assert resolves(".collapse", "analysis.theory", is_pkg=True)
    assert not resolves(".no_such", "analysis.theory", is_pkg=True)


def test_every_docstring_reference_resolves():
    paths = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))
    broken = [
        b
        for p in paths
        for b in broken_references(
            p.read_text(), _module_name(p), p.name == "__init__.py", p.relative_to(ROOT).as_posix()
        )
    ]
    assert len(paths) > 100 and broken == [], "\n".join(broken)
