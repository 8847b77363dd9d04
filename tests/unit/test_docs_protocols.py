"""Protocols are frozen, and the docs are split by kind.

A page under ``docs/protocols/`` registers rules before the runs they decide; a later change is
a new protocol that cites it. So each protocol's text must equal its text in the commit that
first added it (``git log --diff-filter=A``). The test skips when git or that history is not
available (a tarball, a shallow clone that lacks the commit).

No page is longer than ``MAX_PAGE_LINES`` besides its generated tables, ``docs/regime.md`` (once
a 1,380-line diary) stays within ``MAX_REGIME_LINES``, and no page names an internal issue
number: a reader of the docs cannot look one up.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PROTOCOLS = sorted((DOCS / "protocols").glob("*.md"))
MAX_PAGE_LINES = 400
"""Any page's limit in lines besides generated tables: reference, protocols and lab notes."""
MAX_REGIME_LINES = 300
"""``docs/regime.md``'s limit, generated tables included."""
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
ISSUE_EXEMPT = {"protocols/regime-d10-separation.md"}
"""Frozen before this rule: it names an issue in its text, and a protocol cannot change."""


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def _registered_text(path: Path) -> str:
    """The text of ``path`` in the commit that first added it; skips the test when git or that
    history is unavailable."""
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("no git repository")
    rel = path.relative_to(ROOT).as_posix()
    log = _git("log", "--no-renames", "--diff-filter=A", "--format=%H", "--", rel)
    commits = log.stdout.split()
    if log.returncode != 0 or not commits:
        pytest.skip(f"{rel}: no commit adds it (uncommitted, or history unavailable)")
    first = commits[-1]
    if first in _shallow_boundary():
        # a shallow clone's oldest commit adds every file: the registering one may be older
        pytest.skip(f"{rel}: history truncated at {first[:7]} (shallow clone)")
    shown = _git("show", f"{first}:{rel}")
    if shown.returncode != 0:
        pytest.skip(f"{rel}: commit {first[:7]} not in this clone")
    return shown.stdout


def _shallow_boundary() -> set[str]:
    """The commits a shallow clone is cut at (empty for a full clone)."""
    path = _git("rev-parse", "--git-path", "shallow").stdout.strip()
    shallow = ROOT / path if path else None
    return set(shallow.read_text().split()) if shallow and shallow.is_file() else set()


def _generated_lines(text: str) -> int:
    """Lines between ``<!-- begin:NAME -->`` and ``<!-- end:NAME -->`` markers, markers included."""
    n, inside = 0, False
    for line in text.splitlines():
        if line.startswith("<!-- begin:"):
            inside = True
        if inside:
            n += 1
        if line.startswith("<!-- end:"):
            inside = False
    return n


def test_generated_lines_hand_worked():
    text = "a\n<!-- begin:x -->\n| 1 |\n| 2 |\n<!-- end:x -->\nb\n"
    assert _generated_lines(text) == 4  # two markers and two rows; 'a' and 'b' count as prose


def test_there_are_protocols():
    assert len(PROTOCOLS) >= 3


@pytest.mark.parametrize("path", PROTOCOLS, ids=lambda p: p.name)
def test_protocol_is_frozen(path):
    registered = _registered_text(path)
    assert path.read_text() == registered, (
        f"{path.relative_to(ROOT)} differs from the commit that registered it: a protocol is "
        "frozen once committed; write a new protocol that cites it"
    )


PAGES = sorted(DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_length(page):
    text = page.read_text()
    prose = len(text.splitlines()) - _generated_lines(text)
    assert prose <= MAX_PAGE_LINES, (
        f"{page.relative_to(ROOT)}: {prose} lines besides generated tables"
    )


def test_regime_reference_is_short():
    assert len((DOCS / "regime.md").read_text().splitlines()) <= MAX_REGIME_LINES


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_no_internal_issue_numbers(page):
    if page.relative_to(DOCS).as_posix() in ISSUE_EXEMPT:
        pytest.skip("frozen protocol")
    found = ISSUE.findall(page.read_text())
    assert not found, f"{page.relative_to(ROOT)} names {found}: say what the issue was about"
