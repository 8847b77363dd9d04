"""The README's first screen shows the library: ``pip install -e .`` and the two ``make``
commands, and a Python example that runs as written and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
FIRST_SCREEN = "\n".join(README.splitlines()[:40])


def test_the_first_screen_installs_the_library_and_names_the_two_commands():
    commands = re.findall(r"^(pip install -e \.|make figures|make test) +#", FIRST_SCREEN, re.M)
    assert commands == ["pip install -e .", "make figures", "make test"]
    assert "```python\n" in FIRST_SCREEN


def test_the_python_example_prints_what_its_comments_say():
    """Each ``print(...)  # value: reading`` line's output is ``value``."""
    code = README.split("```python\n", 1)[1].split("```", 1)[0]
    expected = [
        line.split("  # ", 1)[1].split(":", 1)[0]
        for line in code.splitlines()
        if line.startswith("print(")
    ]
    assert len(expected) == 2 and len(code.strip().splitlines()) <= 10
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected


def test_the_readme_stays_short_and_opens_without_rule_codes():
    """At most 150 lines; a rule's code (K3, Q1s, X1a, G5) is a protocol's word, not the first
    80 lines' (a reader meets the claims in plain words first)."""
    lines = README.splitlines()
    assert len(lines) <= 150, len(lines)
    codes = re.findall(r"\b[A-Z]{1,2}[0-9]+[a-z]{0,2}\b", "\n".join(lines[:80]))
    assert codes == [], codes
