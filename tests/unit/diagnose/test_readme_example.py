"""The README's "Diagnose your own GRPO run" shows real output: its command, run on the
committed verl dump ``examples/verl-rollouts`` (the example of docs/trl.md, G = 3, two prompts,
two steps), prints the verdict it quotes and writes a report.md holding every row of its table."""

from __future__ import annotations

import shlex
from pathlib import Path

from rcgrpo.diagnose import cli

ROOT = Path(__file__).resolve().parents[3]
SECTION = "## Diagnose your own GRPO run"


def _section() -> str:
    return (ROOT / "README.md").read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]


def test_the_readme_output_is_what_the_command_gives(tmp_path, capsys, monkeypatch):
    section = _section()
    command = section.split("```bash\n", 1)[1].split("```", 1)[0].split(" #", 1)[0].strip()
    argv = shlex.split(command)
    assert argv[:4] == ["python", "-m", "rcgrpo", "diagnose"]
    monkeypatch.chdir(ROOT)  # the README's path is relative to the repository root
    assert cli.main([*argv[4:], "--out", str(tmp_path)]) == 0
    verdict = capsys.readouterr().out.splitlines()[0]
    # the quoted verdict, its ellipses as gaps: step 1 on, 3 of 4 groups constant
    quoted = section.split("prints the verdict (*", 1)[1].split("*)", 1)[0]
    parts = [" ".join(p.split()) for p in quoted.split("…") if p.strip()]
    assert parts and all(p in verdict for p in parts), (parts, verdict)
    table = [line for line in section.splitlines() if line.startswith("| ")]
    report = (tmp_path / "report.md").read_text().splitlines()
    assert len(table) >= 5 and all(line in report for line in table), table
    # hand-worked (docs/trl.md): step 1 zero-variance 1/2, step 2 1 -> mean 0.75
    assert (
        "| `group/zero_var_frac` | 0.75 | observed collapse: groups with all rewards equal |"
        in table
    )
