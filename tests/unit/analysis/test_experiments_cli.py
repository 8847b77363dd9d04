"""Every command of the campaign parses with the real CLI parsers, fresh and resumed; the
experiments are what their docstring says; the committed light copies match their specs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from analysis.campaign import config as cc
from analysis.campaign import mechanics as cp
from analysis.campaign import spec as campaign_spec
from analysis.campaigns import presets
from analysis.campaigns.pool import driver as ex
from analysis.runs import is_finished
from rcgrpo.env import synth
from rcgrpo.precision import Host, resolve_amp
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.config import upgrade_config

CAMPAIGN = ex.build_campaign()
ELSEWHERE = Path("/elsewhere/results")
"""Where the Stage-1 runs were located (any folder: the command is built at launch)."""


def parse(spec: cp.RunSpec, resume: bool = False):
    cmd = spec.command(lambda run: ELSEWHERE / run, resume)[len(cp.LAUNCHER) :]
    sub, argv = cmd[0], cmd[1:]
    return sub, parse_cli(sub, argv)


@pytest.mark.parametrize("name", sorted(CAMPAIGN.runs))
@pytest.mark.parametrize("resume", [False, True])
def test_campaign_command_parses(name, resume):
    spec = CAMPAIGN.runs[name]
    sub, cfg = parse(spec, resume)
    assert cfg.run.resume is resume
    assert cfg.run.name == name and str(cfg.run.root) == str(cp.CAMPAIGN)
    if sub == "train":
        campaign_rl = ("factorial", "baselines", "stratified")
        if any(name in CAMPAIGN.experiments[e] for e in campaign_rl):
            assert spec.argv[:3] == ("train", "--preset", cfg.preset)  # the preset as it is
            assert [a for a in spec.argv if str(a).startswith("--")] == [
                "--preset",
                "--run.seed",
                "--init",
            ]
            recipe = ex.RECIPE  # every campaign RL run at the sweep's recipe
            assert cfg.run.steps == recipe.steps and cfg.run.eval_every == 25
            assert cfg.optim.lr == recipe.lr and cfg.algo.kl_beta == recipe.kl_beta
            assert cfg.tasks.num_train == recipe.train_tasks
            assert cfg.rollout.prompts_per_step == recipe.prompts
        (dep,) = spec.needs  # an RL run starts from one Stage-1 run's final model
        assert cfg.init == str(ELSEWHERE / dep / "final")
        _, s1 = parse(CAMPAIGN.runs[dep])
        assert cfg.tasks.synth_preset == s1.sft.synth_preset  # trained on the same suite
    elif sub == "rctp":
        assert cfg.model.path == str(ELSEWHERE / f"sft-s{cfg.run.seed}" / "final")
        assert cfg.failures.policy == str(ELSEWHERE / f"sft-s{cfg.run.seed}" / "weak")


def _arm(spec: cp.RunSpec) -> tuple[int, str, bool]:
    """(seed, stage of the Stage-1 model it starts from, whether it samples reward goals)."""
    _, cfg = parse(spec)
    (dep,) = spec.needs
    _, s1 = parse(CAMPAIGN.runs[dep])
    assert s1.run.seed == cfg.run.seed  # from the Stage 1 of its own seed
    return cfg.run.seed, s1.stage, cfg.algo.conditioning == "iid"


def test_the_factorial_crosses_the_stage1_model_with_reward_sampling_on_every_seed():
    arms = [_arm(CAMPAIGN.runs[n]) for n in CAMPAIGN.experiments["factorial"]]
    cells = {(stage, sampled) for stage in ("sft", "rctp") for sampled in (False, True)}
    assert sorted(arms) == sorted((s, *c) for s in ex.SEEDS for c in cells)


def test_the_baselines_start_from_sft_without_reward_goals():
    arms = [_arm(CAMPAIGN.runs[n]) for n in CAMPAIGN.experiments["baselines"]]
    assert arms and all(stage == "sft" and not sampled for _, stage, sampled in arms)


AVX2 = Host("cpu", cpu_capability="AVX2", cpu_flags=frozenset({"avx2"}))
AVX512_BF16 = Host("cpu", cpu_capability="AVX512", cpu_flags=frozenset({"avx512f", "avx512_bf16"}))


STAGE1 = [n for n in CAMPAIGN.experiments["stage1"] if n in CAMPAIGN.runs]


@pytest.mark.parametrize("host", [AVX2, AVX512_BF16], ids=["cpu_avx2", "cpu_avx512_bf16"])
def test_a_spec_is_what_was_asked_on_every_cpu(host, monkeypatch):
    """The committed Stage-1 runs resolved ``sft.amp auto`` to bf16 on an AVX512-BF16 CPU;
    on an AVX2 CPU the same command resolves it to fp32. Neither is a spec difference: the
    spec holds ``auto`` (so does the committed config.json: the ``results`` test below);
    the resolution is in summary.json."""
    for module in ("rcgrpo.precision", "rcgrpo.train.stage1.setup"):
        monkeypatch.setattr(f"{module}.probe_host", lambda device, h=host: h, raising=False)
    assert resolve_amp("auto", host).amp == ("bf16" if host is AVX512_BF16 else "fp32")
    for name in STAGE1:
        spec = CAMPAIGN.runs[name]
        assert cc.resolved_config(spec, lambda r: ELSEWHERE / r)["sft"]["amp"] == "auto"


@pytest.mark.results
@pytest.mark.parametrize("host", [AVX2, AVX512_BF16], ids=["cpu_avx2", "cpu_avx512_bf16"])
def test_the_committed_stage1_runs_asked_auto_and_resolved_bf16(host, monkeypatch):
    """The committed Stage-1 light copies are their spec on every CPU (``auto`` in
    config.json) and record the bf16 their AVX512-BF16 machine resolved in summary.json."""
    for module in ("rcgrpo.precision", "rcgrpo.train.stage1.setup"):
        monkeypatch.setattr(f"{module}.probe_host", lambda device, h=host: h, raising=False)
    for name in STAGE1:
        spec = CAMPAIGN.runs[name]
        folder = cp.locate(spec)
        if folder is not None and folder.parent == cp.RESULTS:
            have = json.loads((folder / "config.json").read_text())
            assert cc.config_differences(have, spec, lambda r: ELSEWHERE / r) == []
            summary = json.loads((folder / "summary.json").read_text())
            assert summary["precision"]["requested"] == "auto"
            assert summary["precision"]["amp"] == "bf16"  # what their machine resolved


@pytest.mark.results
def test_the_committed_light_copies_match_their_current_spec():
    found = {n: cp.locate(s) for n, s in CAMPAIGN.runs.items()}
    committed = {n: p for n, p in found.items() if p is not None and p.parent == cp.RESULTS}
    assert committed, "no committed light copy counts as done"
    for name, folder in committed.items():
        have = json.loads((folder / "config.json").read_text())
        assert cc.config_differences(have, CAMPAIGN.runs[name], lambda r: ELSEWHERE / r) == []


COMMITTED_RL = sorted(
    n
    for e in ("factorial", "baselines", "stratified")
    for n in CAMPAIGN.experiments[e]
    if is_finished(cp.RESULTS / n)
)


@pytest.mark.parametrize("name", COMMITTED_RL)
@pytest.mark.results
def test_a_preset_and_seed_reproduce_the_committed_run(name):
    """``python -m rcgrpo train --preset NAME --run.seed S`` (the Stage-1 checkpoint given with
    ``--init``) resolves to the committed run's config.json, but for the machine's paths."""
    folder = cp.RESULTS / name
    have = json.loads((folder / "config.json").read_text())
    preset, seed = name.rsplit("-s", 1)
    cfg = parse_cli("train", ["--preset", preset, "--run.seed", seed, "--init", "X"])
    want = json.loads(json.dumps(dataclasses.asdict(cfg)))
    machine = frozenset({"init", "run.root", "run.resume"})
    assert campaign_spec.differences(upgrade_config(have), want, machine) == []
    assert (want["run"]["name"], want["run"]["seed"]) == (name, int(seed))


def test_the_spec_records_resolved_values_and_the_suite():
    spec = CAMPAIGN.runs["cpu-grpo-s0"]
    rec = spec.record()
    config = rec["resolved"]["config"]
    assert config["optim"]["lr"] == ex.RECIPE.lr and config["tasks"]["num_train"] == 16
    assert "init" not in config and "root" not in config["run"]  # machine facts
    assert len(rec["resolved"]["suite"]) == 64  # sha256 hex
    assert rec["needs"]["sft-s0"]["resolved"]["config"]["stage"] == "sft"


@pytest.mark.results
def test_the_committed_spec_is_the_current_one():
    spec = CAMPAIGN.runs["cpu-grpo-s0"]
    rec = spec.record()
    config = rec["resolved"]["config"]
    recorded = cp.recorded_spec(cp.RESULTS / "cpu-grpo-s0")
    # The committed spec is the current one, values included, on the config fields both know:
    # a field added to the config since the run (tasks.num_eval_between) is no difference.
    assert campaign_spec.same_spec(recorded, rec)
    have, want = recorded["resolved"]["config"], config
    assert campaign_spec.differences(upgrade_config(have), want) == []
    assert (
        have["optim"] == want["optim"] and recorded["resolved"]["suite"] == rec["resolved"]["suite"]
    )


def forget_pins() -> None:
    """Resolve specs anew (a test changes what they resolve to)."""
    cc.pinned.cache_clear()
    cc._fingerprint.cache_clear()


@pytest.fixture
def fresh_pins():
    forget_pins()
    yield
    forget_pins()


def test_a_changed_preset_value_makes_the_committed_run_stale(fresh_pins, monkeypatch):
    spec = CAMPAIGN.runs["cpu-grpo-s0"]
    assert cp.status(spec)[0] == "done"
    forget_pins()
    monkeypatch.setattr(presets.PRESETS["cpu-grpo"].optim, "lr", 2e-4)
    assert cp.status(spec) == ("stale", cp.RESULTS / "cpu-grpo-s0")


def test_a_changed_task_suite_makes_the_committed_run_stale(fresh_pins, monkeypatch):
    spec = CAMPAIGN.runs["cpu-grpo-s0"]
    assert cp.status(spec)[0] == "done"
    forget_pins()
    cpu = synth.SYNTH_PRESETS["cpu"]
    monkeypatch.setitem(
        synth.SYNTH_PRESETS,
        "cpu",
        dataclasses.replace(cpu, distractor_functions=cpu.distractor_functions + 1),
    )
    assert cp.status(spec) == ("stale", cp.RESULTS / "cpu-grpo-s0")
    assert cp.status(CAMPAIGN.runs["sft-s0"])[0] == "stale"  # Stage 1 trained on it too
