"""Generated blocks in markdown files: the text between ``<!-- begin:NAME -->`` and
``<!-- end:NAME -->``.

A generated block holds what the code can compute (the metric table, the synth families, the
headline results): its writer replaces the block, and a test compares the file with what the
writer would produce, so a count or a result in the docs cannot drift from the code. The
block body always starts on the line after the begin marker and ends with a newline before
the end marker::

    <!-- begin:metrics -->
    | name | meaning | formula |
    ...
    <!-- end:metrics -->
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

_NAME = re.compile(r"[a-z][a-z0-9-]*")


def markers(name: str) -> tuple[str, str]:
    """The begin and end marker lines of block ``name`` (lowercase letters, digits, ``-``)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"block name must match {_NAME.pattern}, got {name!r}")
    return f"<!-- begin:{name} -->", f"<!-- end:{name} -->"


def _split(text: str, name: str) -> tuple[str, str, str]:
    begin, end = markers(name)
    if text.count(begin) != 1 or text.count(end) != 1:
        raise ValueError(f"needs {begin} and {end} exactly once each")
    head, rest = text.split(begin)
    body, tail = rest.split(end)
    return head, body, tail


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the body of block ``name`` replaced by ``body`` (a final newline added)."""
    head, _, tail = _split(text, name)
    begin, end = markers(name)
    body = body if body.endswith("\n") or not body else body + "\n"
    return f"{head}{begin}\n{body}{end}{tail}"


def update_file(path: Path, blocks: Mapping[str, str], check: bool = False) -> list[str]:
    """Replace ``blocks`` (name -> body) in ``path``; returns the names that changed.

    With ``check`` the file is left alone (the caller reports the stale names). Raises
    :class:`ValueError` naming the file when a block's markers are missing.
    """
    text = Path(path).read_text()
    new = text
    changed = []
    for name, body in blocks.items():
        try:
            updated = replace_block(new, name, body)
        except ValueError as err:
            raise ValueError(f"{path}: block {name!r}: {err}") from None
        if updated != new:
            changed.append(name)
        new = updated
    if changed and not check:
        Path(path).write_text(new)
    return changed
