"""``rcgrpo/`` is the method and its instruments; the campaigns are ``analysis/``'s.

Two checks on every module of ``rcgrpo/``, read as text and with ``ast`` (never imported):

- **no import of** ``analysis``: no ``import analysis…`` / ``from analysis… import`` statement
  anywhere in the module (module level, inside a function, under any ``if``);
- **no campaign preset named**: no name of the campaigns' presets
  (:data:`analysis.campaigns.presets.PRESETS`: every arm's RL preset and the campaigns' Stage-1
  presets) in code, string, docstring or comment. A name matches as a whole word where a hyphen
  counts as a letter (``collapse-grpo`` is not found in ``collapse-grpo-x`` nor in a suite
  name such as ``collapse1-d10``), and with a run's seed suffix (``cpu-grpo-s0`` names
  ``cpu-grpo``). The synth suites (``regime-d10``, ``collapse1-d10``, …) are the
  environment's and may be named.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def analysis_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every statement of ``source`` that imports ``analysis`` or a module of
    it, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [(node.lineno, n) for n in names if n == "analysis" or n.startswith("analysis.")]
    return sorted(found)


def name_pattern(names) -> re.Pattern:
    """Whole-word matches of ``names`` (a hyphen counts as a letter; a ``-s<seed>`` suffix is
    allowed), longest first."""
    alternatives = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    return re.compile(rf"(?<![\w-])({alternatives})(?!\w|-(?!s\d+\b))")


def campaign_names() -> set[str]:
    from analysis.campaigns.presets import PRESETS

    return set(PRESETS)


def modules() -> list[Path]:
    return sorted((ROOT / "rcgrpo").rglob("*.py"))


def test_rcgrpo_never_imports_analysis():
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: imports {name}"
        for path in modules()
        for line, name in analysis_imports(path.read_text())
    ]
    assert not wrong, "\n".join(wrong)


def test_rcgrpo_names_no_campaign_preset():
    pattern = name_pattern(campaign_names())
    wrong = [
        f"{path.relative_to(ROOT)}:{i}: {m.group(1)}"
        for path in modules()
        for i, line in enumerate(path.read_text().splitlines(), 1)
        for m in pattern.finditer(line)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_checks_find_what_they_look_for():
    source = "import os\ndef f():\n    from analysis.runs import load_run\nimport analysis\n"
    source += "from . import analysis as local\nfrom rcgrpo.diagnose import analysis\n"
    assert analysis_imports(source) == [(3, "analysis.runs"), (4, "analysis")]
    pattern = name_pattern({"collapse-grpo", "collapse-rctp-grpo", "regime-grpo"})
    text = (
        "--preset collapse-grpo; runs/collapse-rctp-grpo-s3; collapse-grpo-x; collapse1-d10; "
        "regime-d10; regime-wide1-grpo; `regime-grpo`"
    )
    assert [m.group(1) for m in pattern.finditer(text)] == [
        "collapse-grpo",
        "collapse-rctp-grpo",
        "regime-grpo",
    ]
    assert {"cpu-grpo", "collapse-grpo", "sft-collapse"} <= campaign_names()
    assert not {"paper-qwen7b", "trl-cpu", "sft-bfcl-gpu", "regime-d10"} & campaign_names()
