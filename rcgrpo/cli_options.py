"""How every ``python -m rcgrpo`` subcommand reads its options: one error style, one help style.

Errors: a bad option or value raises :class:`~rcgrpo.train.errors.ConfigError`, which
:func:`rcgrpo.train.cli.run_command` prints as one line, ``rcgrpo <command>: <message>``,
exit 2: no usage block, no box. An unknown option names the closest known one::

    rcgrpo eval: unknown option --n (did you mean --seed?); see --help

Help (``-h`` / ``--help``, exit 0) has argparse's plain layout in every command: ``usage:``
first, then the description, then one entry per option, each with its default
(``(default: ...)``, or ``(required)``). The commands configured by a dataclass (``eval``;
``sft``, ``rctp``, ``train`` and ``trl`` over their presets) are parsed by tyro; their help
comes from a help-only argparse parser built from the dataclass (:func:`add_fields`):
one group per section, each field's docstring as its help, the values it starts from as the
defaults.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import difflib
import inspect
import io
import re
import sys
import textwrap
import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from rcgrpo.train.errors import ConfigError


def show_default(value: Any) -> str:
    """A default as help shows it: None -> ``none``, a bool -> ``on`` / ``off``, a sequence
    -> its items separated by spaces (``empty`` for none), ``''`` for the empty string."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (tuple, list)):
        return " ".join(map(str, value)) or "empty"
    return "''" if value == "" else str(value)


def _bare(doc: str) -> str:
    """``doc`` cleaned (:func:`inspect.cleandoc`) with reST roles and literals bare."""
    return re.sub(r":\w+:`~?([^`]+)`", r"\1", inspect.cleandoc(doc)).replace("``", "")


def describe(doc: str) -> str:
    """A docstring as a help description: its lines kept, reST roles and literals bare, a
    leading ``python -m rcgrpo ...:`` usage dropped, the first letter a capital."""
    text = re.sub(r"^python -m rcgrpo [^:]*: ", "", _bare(doc))
    text = re.sub(r"(?m)::$", ":", re.sub(r"(?m)^::\n", "", text))  # reST literal blocks
    return text[:1].upper() + text[1:]


class DefaultsFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends in ``(default: X)`` (:func:`show_default`) unless its help
    already states one or it has none to state (``-h``, a required argument); a value is
    named by its type (``INT``, ``FLOAT``, ``PATH``, ``STR``)."""

    def _get_default_metavar_for_optional(self, action: argparse.Action) -> str:
        return {int: "INT", float: "FLOAT", Path: "PATH"}.get(action.type, "STR")

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default is argparse.SUPPRESS or "(default" in text or "(required)" in text:
            return text
        if not action.option_strings and action.default is None:  # a positional argument
            return text
        return f"{text} (default: {show_default(action.default).replace('%', '%%')})".strip()


def unknown_option(token: str, known: Iterable[str]) -> str:
    """One line for an argument no option takes: the closest known ``--option`` if any."""
    if not token.startswith("-"):
        return f"unexpected argument {token!r}; see --help"
    name = token.split("=", 1)[0]
    close = difflib.get_close_matches(name, sorted(k for k in known if k.startswith("--")), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown option {name}{hint}; see --help"


class OptionParser(argparse.ArgumentParser):
    """argparse with this module's help layout, no abbreviations, and one-line
    :class:`ConfigError` for every bad command line (unknown options included)."""

    def __init__(self, prog: str, description: str | None = None, usage: str | None = None):
        super().__init__(
            prog=prog,
            usage=usage,
            description=description,
            formatter_class=DefaultsFormatter,
            allow_abbrev=False,
        )

    def error(self, message: str) -> typing.NoReturn:
        raise ConfigError(f"{message}; see --help")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        known, extra = self.parse_known_args(args, namespace)
        if extra:
            raise ConfigError(unknown_option(extra[0], self._option_string_actions))
        return known


# --------------------------------------------------------------------------- dataclasses
def plain(doc: str) -> str:
    """A docstring as one line of help: whitespace collapsed, reST roles and literals bare
    (a role's target kept without its markup, double backquotes dropped)."""
    return " ".join(_bare(doc).split())


def field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string literal under it, :func:`plain`), over ``cls`` and
    its dataclass bases (a subclass's own docstring wins)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body
        except (OSError, TypeError):
            continue
        for node, after in zip(body, body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[node.target.id] = plain(after.value.value)
    return docs


def _argument(tp: Any) -> dict[str, Any]:
    """argparse keywords that show type ``tp`` as tyro reads it."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is bool:
        return {"action": "store_true"}
    if origin is Literal:
        return {"choices": list(args)}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        return _argument(rest[0]) if len(rest) == 1 else {"metavar": "VALUE"}
    if origin in (tuple, list):
        item = _argument(args[0] if args else str)
        count = len(args) if args and Ellipsis not in args and origin is tuple else "+"
        return {**item, "nargs": count}
    if tp in (int, float, str):
        return {"metavar": tp.__name__.upper()}
    return {"metavar": "VALUE"}


def flag_of(key: str) -> str:
    """The command-line spelling of a dotted field name: ``algo.kl_beta`` -> ``--algo.kl-beta``."""
    return "--" + key.replace("_", "-")


def add_fields(
    parser: argparse.ArgumentParser,
    cls: type,
    base: Any = None,
    hide: Iterable[str] = (),
    prefix: str = "",
    group: Any = None,
) -> None:
    """One option per leaf field of dataclass ``cls`` on ``parser`` (bools as ``--x`` /
    ``--no-x``), the values of ``base`` as defaults (None: the class defaults; a field with
    neither is ``(required)``), one argument group per nested section; the dotted keys in
    ``hide`` are left out."""
    group, hide = group or parser, set(hide)
    hints, docs = typing.get_type_hints(cls), field_docs(cls)
    for f in dataclasses.fields(cls):
        key = prefix + f.name
        if key in hide:
            continue
        if base is not None:
            value = getattr(base, f.name)
        elif f.default_factory is not dataclasses.MISSING:
            value = f.default_factory()
        else:
            value = f.default
        if dataclasses.is_dataclass(value):
            head = (inspect.cleandoc(type(value).__doc__ or "").split("\n\n") or [""])[0]
            about = textwrap.fill(plain(head), 86) if head else None
            section = parser.add_argument_group(f"{key} options", about)
            add_fields(parser, type(value), value, hide, key + ".", section)
            continue
        kwargs = _argument(hints[f.name])
        names = [flag_of(key)]
        if kwargs.get("action") == "store_true":
            names.append(flag_of(prefix + "no_" + f.name))
        text = docs.get(f.name, "")
        if value is dataclasses.MISSING:
            kwargs["default"], text = argparse.SUPPRESS, f"{text} (required)".strip()
        else:
            kwargs["default"] = value
        group.add_argument(*names, help=text.replace("%", "%%"), **kwargs)


def parse_dataclass(
    cls: type, argv: list[str], prog: str, usage: str, required: Iterable[str] = ()
) -> Any:
    """``cls`` from the command line ``argv``: ``--help`` prints this module's help of
    ``cls`` (its docstring, one option per field) and exits 0; an unknown flag or a missing
    ``required`` field is one line (:func:`check_flags`), a bad value too (:func:`tyro_parse`)."""
    if "-h" in argv or "--help" in argv:
        parser = OptionParser(prog, description=describe(cls.__doc__ or ""), usage=usage)
        add_fields(parser, cls)
        print(parser.format_help(), end="")
        raise SystemExit(0)
    check_flags(cls, argv, required)
    return tyro_parse(cls, argv, prog)


def known_flags(cls: type, prefix: str = "") -> set[str]:
    """Every spelling tyro takes for a field of ``cls`` (``--a.b-c``; ``--a.no-b`` for a bool)."""
    out: set[str] = set()
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            out |= known_flags(tp, f"{prefix}{f.name}.")
            continue
        out.add(flag_of(prefix + f.name))
        if tp is bool:
            out.add(flag_of(f"{prefix}no_{f.name}"))
    return out


def check_flags(cls: type, argv: list[str], required: Iterable[str] = ()) -> None:
    """ConfigError (one line) for a ``--flag`` of ``argv`` that is no field of ``cls`` (with
    the closest one) or a ``required`` dotted field ``argv`` does not give."""
    known = known_flags(cls)
    given = {t.split("=", 1)[0].replace("_", "-") for t in argv if t.startswith("--") and t != "--"}
    for name in sorted(given - known):
        raise ConfigError(unknown_option(name, known))
    for key in required:
        if flag_of(key) not in given:
            raise ConfigError(f"{flag_of(key)} is required; see --help")


def tyro_error(text: str) -> str:
    """The first paragraph of a tyro error box (below its title, up to a blank line or a
    rule), as one line."""
    rows = [ln.strip().strip("│╭╮╰╯").strip() for ln in text.splitlines()]
    first: list[str] = []
    for row in rows[1:]:
        if not row.strip("─-"):
            if first:
                break
            continue
        first.append(row)
    return " ".join(first) or "invalid flags; see --help"


def tyro_parse(cls: type, argv: list[str], prog: str, default: Any = None) -> Any:
    """``cls`` from the flags ``argv`` over ``default`` (tyro); a bad value is a one-line
    :class:`ConfigError` (:func:`tyro_error`), tyro's box never reaches the terminal."""
    import tyro

    captured = io.StringIO()
    kwargs = {} if default is None else {"default": default}
    try:
        with contextlib.redirect_stderr(captured):
            value = tyro.cli(cls, args=argv, prog=prog, **kwargs)
    except SystemExit as stop:
        if stop.code in (0, None):
            raise
        raise ConfigError(tyro_error(captured.getvalue())) from None
    sys.stderr.write(captured.getvalue())
    return value
