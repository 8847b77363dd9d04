"""Every relative link in README.md and docs/**/*.md resolves (a protocol's, in the commit that
registered it); docs/index.md lists every page.

Links are markdown ``[text](target)`` outside code; a ``#anchor`` must be a heading of the
target file under GitHub's slug rule (lowercase, punctuation dropped, spaces to ``-``, a
repeated heading gets ``-1``, ``-2``, ...).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def links(text: str) -> list[str]:
    """Link targets outside fenced blocks and inline code."""
    return _LINK.findall(_CODE.sub("", _FENCE.sub("", text)))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading (inline code marks and links reduced to their text)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        base = slug(heading)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def test_slug_and_link_rules_hand_worked():
    assert slug("Add a metric, a preset, a figure") == "add-a-metric-a-preset-a-figure"
    assert (
        slug("Conventions that differ from TRL / verl") == "conventions-that-differ-from-trl--verl"
    )
    assert slug("The `cpu` preset") == "the-cpu-preset"
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}
    assert links("[x](a.md) `[y](b.md)` [z](c.md#d)\n```\n[w](e.md)\n```\n") == ["a.md", "c.md#d"]


def registered_target(page: Path, dest: Path) -> bool:
    """A protocol (``docs/protocols/``) is frozen at the commit that added it
    (``test_docs_protocols.py``), so its link to code moved since resolves in that commit."""
    if DOCS / "protocols" not in page.parents or not dest.is_relative_to(ROOT):
        return False
    git = ("git", "-C", str(ROOT))
    rel = page.relative_to(ROOT).as_posix()
    log = subprocess.run(
        (*git, "log", "--diff-filter=A", "--format=%H", "--", rel), capture_output=True, text=True
    )
    commits = log.stdout.split()
    if log.returncode != 0 or not commits:
        return False
    target = f"{commits[-1]}:{dest.relative_to(ROOT).as_posix()}"
    return subprocess.run((*git, "cat-file", "-e", target), capture_output=True).returncode == 0


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    broken = []
    for target in links(page.read_text()):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists() and not registered_target(page, dest):
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
            broken.append(f"{target}: no heading #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_index_lists_every_docs_page():
    index = DOCS / "index.md"
    listed = {(DOCS / t.partition("#")[0]).resolve() for t in links(index.read_text())}
    pages = {p.resolve() for p in DOCS.rglob("*.md")} - {index.resolve()}
    missing = sorted(str(p.relative_to(DOCS)) for p in pages - listed)
    assert not missing, f"docs/index.md does not link {missing}"


def test_readme_links_the_docs_index():
    assert "docs/index.md" in links((ROOT / "README.md").read_text())
