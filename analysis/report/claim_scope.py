r"""The claims registry's words (:mod:`analysis.report.claims` ties the numbers): every sentence
that says a claim beyond its gate's verdict says so in the same sentence, and no page uses the
words that once said more than the runs show.

A :class:`Gated` entry names a cited anchor (usually the rendered number of a registered
:class:`~analysis.report.claims.Claim`), the files whose prose holds it, the words that stop each
sentence holding it at its gate (``exploratory``, ``not tested``, ``no verdict``), and the
generated block that shows the gate's state: a gate that opens (the block no longer reads so)
makes the sentence stale, and :func:`failures` names it. :data:`OVERREACH` lists phrases no
finding may use (:func:`overreach`); a registered protocol is frozen, so its rule's own words are
not searched. ``tests/results/test_claims.py`` runs both; ``python -m analysis.report.claims``
prints them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from analysis import REPO_ROOT
from analysis.report.claim_files import FINDINGS, PAPER, README

INDEX = "results/INDEX.toml"
SEPARATION, PAIRS = "docs/results/regime-separation.md", "docs/results/collapse-pairs.md"
LIMITS = "paper/sections/limitations.tex"


@dataclass(frozen=True)
class Gated:
    """A claim said short of a verdict (module docstring)."""

    id: str
    cites: tuple[tuple[str, str, str], ...]
    """(file, anchor, stop) triples: every sentence of the file holding ``anchor`` holds ``stop``."""
    gate: tuple[str, str, tuple[str, ...]]
    """(file, block, words): the generated block of the file that still reads each of ``words``."""


GATED: tuple[Gated, ...] = (
    Gated(
        "T1-speed",
        (
            (README, "−1.0 [−1.9, −0.1]", "exploratory"),
            (FINDINGS, "−1.0 [−1.9, −0.1]", "exploratory"),
            (PAPER, "$-1.0$ $[-1.9, -0.1]$", "registered before the runs"),
            (INDEX, "−1.0 [−1.9, −0.1]", "exploratory"),
            (INDEX, "more slowly", "exploratory"),
        ),
        (FINDINGS, "regime-verdicts", ("at steps 25–175 (exploratory)",)),
    ),
    Gated(
        "Q2-no-verdict",
        (
            (README, "holding them apart", "has no verdict"),
            (README, "−1.6 [−3.4, 0.3]", "not tested"),
            (FINDINGS, "keeping them apart changes learning", "has no verdict"),
            (FINDINGS, "−1.6 [−3.4, 0.3]", "not tested"),
            (PAPER, "$-1.6$ $[-3.4, 0.3]$", "not tested"),
            (INDEX, "keeping them apart", "has no verdict"),
            (INDEX, "−1.6 [−3.4, 0.3]", "not tested"),
        ),
        (
            SEPARATION,
            "separation-verdicts",
            tuple(f"not asked: Q1 (X1{k}) does not hold" for k in "abc"),
        ),
    ),
    Gated(
        "collapse-pairs-scope",
        (
            (README, "left no collapse", "other doses and weights untested"),
            (FINDINGS, "no collapse was left", "not shown in general"),
            (INDEX, "left no collapse", "other doses and weights untested"),
            (INDEX, "The conflict is", "not shown in general"),
            (PAIRS, "The conflict is", "not shown in general"),
            (LIMITS, "no collapse was left", "not shown in general"),
        ),
        (PAIRS, "collapse-pairs-verdict", ("**Conflict.**", "C fails at every dose")),
    ),
)
"""Every claim said short of its verdict (module docstring)."""
OVERREACH = (
    "could not be built",
    "cannot both be built",
    "does not speed learning",
    "learns a little more slowly",
)
"""Words that said more than the runs show: the collapse-pairs conflict read beyond the four
designs tried, Q2 read without its verdict, an exploratory speed read as a finding."""
SEARCHED = ("README.md", "docs/**/*.md", "paper/**/*.tex", INDEX)
FROZEN = "docs/protocols/"
"""Registered protocols, frozen once committed: their rules' words are not searched."""
_SPLIT = re.compile(r"(?<!\bDr\.)(?<!e\.g\.)(?<!i\.e\.)(?<=[.;?!])\s+(?=[A-Z])")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def sentences(text: str) -> list[str]:
    """``text``'s sentences, whitespace flattened: a paragraph, a list item or a TOML line ends
    one, and so does ``.``, ``;``, ``?`` or ``!`` before a capital (not ``Dr.``, ``e.g.``)."""
    parts = re.split(r"\n\s*\n|\n\s*(?:[-*] |\\item\b)|\n(?=\w+ = )", text)
    return [s for p in parts for s in _SPLIT.split(_flat(p).strip()) if s]


def _block(text: str, name: str) -> str:
    found = re.search(rf"<!-- begin:{name} -->\n(.*?)<!-- end:{name} -->", text, re.S)
    return found.group(1) if found else ""


def failures(root: Path = REPO_ROOT) -> list[str]:
    """One line per sentence that holds a gated anchor without its stop, per anchor found
    nowhere, and per gate whose block no longer reads as registered."""
    out = []
    for g in GATED:
        for path, anchor, stop in g.cites:
            holding = [s for s in sentences((root / path).read_text()) if anchor in s]
            if not holding:
                out.append(f"{path}: {g.id}: no sentence holds {anchor!r}")
            out += [f"{path}: {g.id}: {s!r} lacks {stop!r}" for s in holding if stop not in s]
        path, block, words = g.gate
        text = _flat(_block((root / path).read_text(), block))
        out += [
            f"{path}: {g.id}: block {block} no longer reads {w!r}" for w in words if w not in text
        ]
    return out


def overreach(root: Path = REPO_ROOT) -> list[str]:
    """``file: phrase`` for each :data:`OVERREACH` phrase (any case, wrapped or not) in a
    searched file outside :data:`FROZEN`."""
    out = []
    for pattern in SEARCHED:
        for path in sorted(root.glob(pattern)):
            rel = path.relative_to(root).as_posix()
            text = _flat(path.read_text()).lower()
            if not rel.startswith(FROZEN):
                out += [f"{rel}: {p!r}" for p in OVERREACH if p in text]
    return out
