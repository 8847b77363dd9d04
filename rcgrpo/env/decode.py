"""Decode an assistant reply into tool calls with ``ast`` — never ``eval``.

BFCL's prompting mode expects a Python list of keyword calls, ``[f(a=1), g(b='x')]``
(``model_handler/utils.py``: ``default_decode_execute_prompting`` strips "`", newlines and
spaces, adds missing brackets and walks the ``ast``). This decoder accepts the same
syntax, plus a fenced block with a language tag (```` ```python ... ``` ````), and is
strict where BFCL's decoder is unsafe or lossy:

=========================================  ==============================================
reply                                      outcome
=========================================  ==============================================
blank, ``[]``                              ``kind="no_calls"`` (ends the turn)
prose (does not start like a call list     ``kind="no_calls"`` (ends the turn)
and is not Python code that acts)
other Python code (``import os``,          ``kind="rejected"`` (BFCL: a decode failure,
``x = f()``, ``os.system('x')``)           which ends the turn silently)
more than ``max_chars`` characters         ``kind="rejected"`` (not parsed at all)
call-shaped but not valid Python           ``kind="rejected"`` with the parse error
element that is not a call                 ``kind="rejected"``
``a.b()``, ``f()()``, dunder/private name  ``kind="rejected"`` (bare public names only)
name not in ``allowed``                    ``kind="rejected"``
positional argument, ``**kw``              ``kind="rejected"`` (BFCL silently drops
                                           positional arguments)
non-literal argument (name, call,          ``kind="rejected"`` (BFCL ``eval``s arithmetic
arithmetic, lambda, set, bytes, ...)       and lambdas, and runs nested keyword calls)
more than ``max_calls`` calls              ``kind="rejected"``
=========================================  ==============================================

"Starts like a call list" means: ``[``, or an ASCII name followed by ``(``. "Code that acts"
means: parses as a Python module with a statement other than an expression, or an
expression holding a call, arithmetic, attribute, subscript, lambda, comprehension,
f-string, walrus or starred item (plain English almost never parses; ``not done`` does, and is prose).
A reply is all-or-nothing: one bad element rejects the whole reply and nothing runs.
Literal values are built from the nodes (str, int, float, bool, None, and lists, tuples
and dicts of them, at most ``max_depth`` containers deep; a unary minus/plus only on a
number; a keyword given twice is rejected, where BFCL would keep the last).
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

__all__ = ["Call", "Decoded", "DecodeLimits", "decode_reply"]

_FENCE = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n?(?P<body>.*?)\n?```$", re.DOTALL)
_CALL_START = re.compile(r"\[|[A-Za-z_][A-Za-z0-9_.]*\s*\(")


@dataclass(frozen=True)
class DecodeLimits:
    """Size limits applied before and during decoding."""

    max_chars: int = 32_768
    """Longest reply (characters, after stripping) that is parsed at all."""
    max_calls: int = 64
    """Most calls in one reply."""
    max_depth: int = 16
    """Most nested list/tuple/dict literals in one argument (``[[1]]`` is 2)."""


@dataclass(frozen=True)
class Call:
    """One decoded call: a bare function name and literal keyword arguments."""

    name: str
    kwargs: dict[str, Any]
    source: str
    """The call's text as the model wrote it (re-decodes to the same call)."""


@dataclass(frozen=True)
class Decoded:
    """Result of decoding one reply."""

    kind: str
    """``"calls"``, ``"no_calls"`` or ``"rejected"``."""
    calls: tuple[Call, ...] = ()
    error: str | None = None
    """Why the reply was rejected (shown to the model)."""


class _Reject(Exception):
    """Internal: a reason to reject the reply."""


def _strip(text: str) -> str:
    text = text.strip().lstrip("\ufeff").strip()  # a byte-order mark is not content
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body")
    return text.strip("`\n ")


def decode_reply(text: str, allowed: Container[str], limits: DecodeLimits | None = None) -> Decoded:
    """Decode ``text`` into calls of functions in ``allowed``; never raises on any ``str``."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    limits = limits or DecodeLimits()
    body = _strip(text)
    if not body:
        return Decoded("no_calls")
    if len(body) > limits.max_chars:
        return Decoded(
            "rejected", error=f"reply has {len(body)} characters (limit {limits.max_chars})"
        )
    if not _CALL_START.match(body):
        if _acts_like_code(body):
            return Decoded("rejected", error=_NOT_A_CALL_LIST)
        return Decoded("no_calls")
    body = ("" if body.startswith("[") else "[") + body + ("" if body.endswith("]") else "]")
    elements = _elements(body)
    if isinstance(elements, Decoded):
        return elements
    if not elements:
        return Decoded("no_calls")
    if len(elements) > limits.max_calls:
        return Decoded(
            "rejected", error=f"{len(elements)} calls in one reply (limit {limits.max_calls})"
        )
    parsed, errors = [], []
    for index, node in enumerate(elements):
        try:
            parsed.append(_call(node, allowed, limits.max_depth))
        except _Reject as reason:
            errors.append(f"call {index + 1}: {reason}")
    if errors:
        return Decoded("rejected", error="; ".join(errors) + "; nothing was executed")
    sources = _sources(body, elements)
    return Decoded(
        "calls", calls=tuple(Call(n, k, s) for (n, k), s in zip(parsed, sources, strict=True))
    )


def _sources(body: str, nodes: list[ast.expr]) -> list[str]:
    """Source text of each node (``ast.get_source_segment`` re-splits the whole body per
    node; this splits once). Column offsets are UTF-8 byte offsets."""
    if "\r" in body or "\x0c" in body:  # other line-break conventions: the slow, exact path
        return [ast.get_source_segment(body, node) or "" for node in nodes]
    data = body.encode("utf-8")
    starts = [0]
    position = data.find(b"\n")
    while position != -1:
        starts.append(position + 1)
        position = data.find(b"\n", position + 1)
    return [
        data[
            starts[n.lineno - 1] + n.col_offset : starts[n.end_lineno - 1] + n.end_col_offset
        ].decode()
        for n in nodes
    ]


def _quiet_parse(body: str, mode: str) -> ast.AST:
    """``ast.parse`` without the SyntaxWarnings model text provokes (``1st``, ``"\\d"``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(body, mode=mode)


def _elements(body: str) -> list[ast.expr] | Decoded:
    """The element nodes of the bracketed reply, or a rejection."""
    try:
        tree = _quiet_parse(body, "eval")
    except Exception as exc:  # SyntaxError, ValueError (int digits, NUL), RecursionError, ...
        return Decoded(
            "rejected", error=f"could not parse the reply as a list of calls ({_short(exc)})"
        )
    if not isinstance(tree.body, ast.List):
        return Decoded("rejected", error=_NOT_A_CALL_LIST)
    return tree.body.elts


_NOT_A_CALL_LIST = "the reply must be a Python list of function calls, e.g. [func(arg=value)]"
_ACTING = (
    ast.Call,
    ast.BinOp,
    ast.Attribute,
    ast.Subscript,
    ast.Lambda,
    ast.NamedExpr,
    ast.Starred,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)


def _acts_like_code(body: str) -> bool:
    try:
        module = _quiet_parse(body, "exec")
    except Exception:  # prose: SyntaxError (or a NUL byte, recursion, ...)
        return False
    if any(not isinstance(statement, ast.Expr) for statement in module.body):
        return True
    return any(isinstance(node, _ACTING) for node in ast.walk(module))


def _short(exc: BaseException) -> str:
    message = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {message[:200]}" if message else type(exc).__name__


def _call(node: ast.expr, allowed: Container[str], max_depth: int) -> tuple[str, dict[str, Any]]:
    if not isinstance(node, ast.Call):
        raise _Reject("not a function call")
    if not isinstance(node.func, ast.Name):
        raise _Reject("only bare function names can be called (no attribute access or call chains)")
    name = node.func.id
    if name.startswith("_"):
        raise _Reject(f"private or dunder name {name[:64]!r} is not allowed")
    if name not in allowed:
        raise _Reject(f"function {name[:64]!r} is not available")
    if node.args:
        raise _Reject(f"{name}: positional arguments are not supported; write name=value")
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise _Reject(f"{name}: **kwargs unpacking is not allowed")
        if keyword.arg in kwargs:
            raise _Reject(f"{name}: argument {keyword.arg!r} given twice")
        kwargs[keyword.arg] = _literal(keyword.value, max_depth, f"{name}({keyword.arg}=...)")
    return name, kwargs


_SCALARS = (str, int, float, bool, type(None))


def _literal(node: ast.expr, depth: int, where: str) -> Any:
    """The Python value of a literal node; at most ``depth`` nested containers."""
    if isinstance(node, ast.Constant):
        if type(node.value) in _SCALARS:
            return node.value
        raise _Reject(f"{where}: {type(node.value).__name__} literals are not allowed")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            return -operand.value if isinstance(node.op, ast.USub) else +operand.value
        raise _Reject(f"{where}: unary operators only apply to a number literal")
    if not isinstance(node, (ast.List, ast.Tuple, ast.Dict)):
        raise _Reject(f"{where}: only literal values are allowed, got {type(node).__name__}")
    if depth <= 0:
        raise _Reject(f"{where}: literal nested too deeply")
    if isinstance(node, ast.List):
        return [_literal(e, depth - 1, where) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e, depth - 1, where) for e in node.elts)
    out = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:
            raise _Reject(f"{where}: ** unpacking is not allowed")
        hashable = _literal(key, depth - 1, where)
        if isinstance(hashable, (list, dict)):
            raise _Reject(f"{where}: dict keys must be scalars")
        try:
            out[hashable] = _literal(value, depth - 1, where)
        except TypeError as exc:  # a tuple key holding a list
            raise _Reject(f"{where}: unhashable dict key") from exc
    return out
