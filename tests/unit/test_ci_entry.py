"""``.ci/run``: ``make lint``, ``make test`` (README's test command), ``make test-slow``,
``make test-avx2`` on a CPU with AVX-512, then ``make figures-check``, then ``make paper`` where
latexmk is on PATH; the first failure's status passed through."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_MAKE = """#!/usr/bin/env bash
echo "$*" >> "$CALLS"
[ "$1" != "$FAIL" ]
"""


CPUS = {
    "cpu_avx512": "model name\t: AMD EPYC 9R14\nflags\t\t: avx2 avx512f avx512_bf16\n",
    "cpu_avx2": "model name\t: AMD EPYC 7R13\nflags\t\t: avx2 fma\n",
}


def _ci(tmp_path: Path, fail: str, cpu: str, tex: bool = False) -> tuple[int, list[str], str]:
    """Run .ci/run on a fake ``/proc/cpuinfo`` with a ``make`` on PATH that records its
    arguments and fails on ``fail``; ``tex``: a latexmk is found (``true`` stands for it)."""
    (tmp_path / "make").write_text(FAKE_MAKE)
    (tmp_path / "make").chmod(0o755)
    (tmp_path / "cpuinfo").write_text(CPUS[cpu])
    calls = tmp_path / "calls.txt"
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "CALLS": str(calls)}
    env.update(FAIL=fail, CI_CPUINFO=str(tmp_path / "cpuinfo"))
    env.update(CI_LATEXMK="true" if tex else "no-latexmk-on-this-path")
    proc = subprocess.run(
        [str(ROOT / ".ci" / "run")], env=env, check=False, capture_output=True, text=True
    )
    return proc.returncode, calls.read_text().split("\n")[:-1], proc.stdout


ALL = ["lint", "test", "test-slow", "test-avx2", "figures-check"]


@pytest.mark.parametrize("cpu", sorted(CPUS))
@pytest.mark.parametrize("fail", ["none", *ALL])
def test_ci_runs_its_phases_in_order_and_passes_the_status_through(tmp_path, fail, cpu):
    phases = ALL if cpu == "cpu_avx512" else [p for p in ALL if p != "test-avx2"]
    status, calls, log = _ci(tmp_path, fail, cpu)
    if fail not in phases:
        assert (status, calls) == (0, phases)
    else:
        assert (status, calls) == (1, phases[: phases.index(fail) + 1])
    assert ("EPYC 9R14" if cpu == "cpu_avx512" else "EPYC 7R13") in log
    for phase in calls[: len(calls) - (fail in phases)]:  # each finished phase with its time
        assert re.search(rf"== ci: make {phase}\b.* passed in \d+ s", log), (phase, log)


@pytest.mark.parametrize("fail", ["none", "figures-check", "paper"])
def test_ci_builds_the_paper_last_where_latexmk_is_found(tmp_path, fail):
    phases = ["lint", "test", "test-slow", "figures-check", "paper"]
    status, calls, log = _ci(tmp_path, fail, "cpu_avx2", tex=True)
    ran = phases if fail == "none" else phases[: phases.index(fail) + 1]
    assert (status, calls) == (int(fail != "none"), ran)
    if fail == "none":
        assert re.search(r"== ci: make paper \(latexmk found\) passed in \d+ s", log), log
    (tmp_path / "no-tex").mkdir()
    status, calls, log = _ci(tmp_path / "no-tex", "none", "cpu_avx2", tex=False)
    assert (status, calls) == (0, phases[:4])
    assert "== ci: no latexmk: the PDF is not built" in log


def test_readme_test_command_is_what_make_test_runs():
    # the README gives `make test`; docs/reproduce.md the pytest command it runs
    assert re.search(r"^make test +#", (ROOT / "README.md").read_text(), re.M)
    readme = (ROOT / "docs" / "reproduce.md").read_text()
    commands = re.findall(r"^(\.venv/bin/python -m pytest [^\n#]*?)\s*(?:#|$)", readme, re.M)
    # inside `make test` (CI) the environment says MAKELEVEL=1: a nested make would then print
    # "Entering directory" lines around the recipe
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "-o", ".venv/.bootstrapped", "test", "JOBS=2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert dry.stdout.strip() in commands, (dry.stdout, commands)
