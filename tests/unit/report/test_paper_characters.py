r"""Every ``.tex`` pdflatex reads uses only characters the preamble handles, checked without TeX.

pdflatex stops on a character outside ASCII that nothing declared (``! LaTeX Error: Unicode
character ′ (U+2032) not set up``). ``paper/main.tex`` declares the symbols the report's LaTeX
writer maps (:data:`analysis.report.latex.UNICODE_MATH`, :data:`~analysis.report.latex.UNICODE_TEXT`)
with ``\DeclareUnicodeCharacter``, in the forms the writer emits. The declared set is parsed from
``main.tex`` here, so the check and the preamble cannot drift: the hand-written sources, the
committed reference of ``paper/generated/`` and the writer's output stay within ASCII and it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis import REPO_ROOT
from analysis.report.latex import UNICODE_MATH, UNICODE_TEXT, escape

PAPER = REPO_ROOT / "paper"
REFERENCE = REPO_ROOT / "tests" / "reference" / "paper_generated"
SOURCES = sorted(p for p in PAPER.rglob("*.tex") if "generated" not in p.relative_to(PAPER).parts)
"""The hand-written sources (``paper/generated/`` is git-ignored, maybe stale: its committed
reference :data:`GENERATED` stands for it)."""
GENERATED = sorted(REFERENCE.glob("*.tex"))
_DECLARE = re.compile(r"\\DeclareUnicodeCharacter\{([0-9A-Fa-f]{4,6})\}\{")


def _group(text: str, start: int) -> str:
    """The balanced ``{...}`` argument whose opening brace is just before ``start``."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    raise ValueError(f"unbalanced braces after offset {start}")


def declared(preamble: str) -> dict[str, str]:
    r"""Character -> body of every ``\DeclareUnicodeCharacter{hex}{body}`` in ``preamble``."""
    return {
        chr(int(m.group(1), 16)): _group(preamble, m.end()) for m in _DECLARE.finditer(preamble)
    }


def stray(text: str, allowed: set[str]) -> list[str]:
    """``line:column U+XXXX c`` of every character of ``text`` outside ASCII and ``allowed``."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for col, ch in enumerate(line, 1):
            if ord(ch) > 127 and ch not in allowed:
                out.append(f"{n}:{col} U+{ord(ch):04X} {ch}")
    return out


DECLARED = declared((PAPER / "main.tex").read_text(encoding="utf-8"))


def test_declared_and_stray_on_a_hand_made_preamble():
    preamble = r"\DeclareUnicodeCharacter{2032}{\ensuremath{'}}% ′" + "\n"
    preamble += r"\DeclareUnicodeCharacter{00B1}{\ensuremath{\pm{}}}"
    assert declared(preamble) == {"′": r"\ensuremath{'}", "±": r"\ensuremath{\pm{}}"}
    assert stray("H′ ± x\nβ = é", set(declared(preamble))) == ["2:1 U+03B2 β", "2:5 U+00E9 é"]
    assert stray("plain ASCII {}", set()) == []


def test_the_preamble_declares_exactly_the_writers_symbols_in_the_writers_forms():
    writer = {c: f"\\ensuremath{{{form}}}" for c, form in UNICODE_MATH.items()}
    writer |= UNICODE_TEXT
    assert writer == DECLARED
    assert DECLARED["′"] == r"\ensuremath{'}" and len(DECLARED) == 42


def test_the_writer_maps_every_declared_symbol_to_ascii():
    symbols = "".join(DECLARED)
    out = escape(f"gates H′, C′: {symbols}")
    assert out.isascii()
    assert out.startswith("gates H$'$, C$'$: $\\alpha$$\\beta$")
    assert escape("±5 points, 75–150 steps") == "$\\pm$5 points, 75--150 steps"


@pytest.mark.parametrize(
    "path",
    [*SOURCES, *(pytest.param(p, marks=pytest.mark.results) for p in GENERATED)],
    ids=lambda p: str(Path(p).relative_to(REPO_ROOT)),
)
def test_every_tex_file_uses_only_ascii_and_the_declared_characters(path):
    """A hand-written source; or (marked ``results``: text of the committed runs) a file of
    the committed reference of ``paper/generated/``."""
    found = stray(path.read_text(encoding="utf-8"), set(DECLARED))
    rel = path.relative_to(REPO_ROOT)
    assert found == [], f"{rel}: characters main.tex does not declare: {', '.join(found)}"


def test_the_check_reads_every_source_file():
    names = {p.name for p in SOURCES}
    assert {"main.tex", "regime.tex", "theory.tex"} <= names


@pytest.mark.results
def test_the_check_reads_every_reference_file():
    assert {"collapse_verdicts.tex", "macros.tex"} <= {p.name for p in GENERATED}
