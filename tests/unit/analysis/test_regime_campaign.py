"""The regime campaign: its committed runs are its specs, admission follows the pre-registered
rule, and one command trains Stage 1, admits seeds, trains the admitted seeds' arms and
measures their pass@k (a fake trainer and a fake diagnostic)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from analysis.campaign import config as cc
from analysis.campaign import mechanics as cp
from analysis.campaign.arms import arms
from analysis.campaigns.pool import driver as ex
from analysis.campaigns.regime_d10 import driver as regime
from analysis.campaigns.regime_design.gates import G4_SEPARATION
from analysis.runs import COMPLETE

HERE = Path(__file__).parent
ELSEWHERE = Path("/elsewhere")


@pytest.mark.results
def test_every_committed_regime_run_is_its_current_spec():
    """The hand-trained runs of results/regime were adopted: each is done where it is
    committed, and its config.json is what the spec's command resolves to."""
    camp = regime.build()
    committed = {n: s for n, s in camp.runs.items() if s.home == regime.HOME and s.copy.is_dir()}
    assert len(committed) >= 40
    for name, spec in committed.items():
        assert cp.locate(spec) in (spec.folder, spec.copy), name
        have = json.loads((spec.copy / "config.json").read_text())
        assert cc.config_differences(have, spec, lambda r: ELSEWHERE / r) == [], name


def _reports(tmp_path, monkeypatch, separations: dict[int, float]) -> None:
    monkeypatch.setattr(regime, "DIAGNOSTICS", tmp_path / "diagnostics")
    for seed, sep in separations.items():
        high, low = 0.4, 0.4 - sep
        conditions = {"high": {"pass_at_k": {"overall": [high]}}}
        conditions["low"] = {"pass_at_k": {"overall": [low]}}
        path = regime.admission_path(seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"conditions": conditions}))


def test_admission_is_a_separation_of_at_least_ten_points(tmp_path, monkeypatch):
    assert regime.SEPARATION == G4_SEPARATION == 0.10  # the gate's clause, one threshold
    _reports(tmp_path, monkeypatch, {0: 0.0999, 1: 0.10, 2: -0.3})
    assert [regime.admitted(s) for s in (0, 1, 2, 3)] == [False, True, False, None]


def test_seeds_are_taken_in_order_until_enough_are_admitted(tmp_path, monkeypatch):
    monkeypatch.setattr(regime, "SEED_ORDER", (0, 1, 2, 3, 4, 6, 11, 12))
    _reports(tmp_path, monkeypatch, {0: 0.0, 1: 0.2, 2: 0.3})
    monkeypatch.setattr(regime, "TARGET", 4)  # 2 admitted: the next 2 undecided ones
    assert regime.stage1_seeds() == (0, 1, 2, 3, 4) and regime.rl_seeds() == (1, 2)
    _reports(tmp_path, monkeypatch, {3: 0.05, 4: 0.5})  # 3 not admitted: 6 comes in
    assert regime.stage1_seeds() == (0, 1, 2, 3, 4, 6) and regime.rl_seeds() == (1, 2, 4)
    monkeypatch.setattr(regime, "TARGET", 2)  # enough admitted: nothing new, the first two
    assert regime.stage1_seeds() == (0, 1, 2, 3, 4) and regime.rl_seeds() == (1, 2)


def test_each_arm_runs_from_its_own_seed_and_the_rctp_arms_only_on_admitted_or_itt_seeds():
    camp = regime.build()
    admitted = set(regime.rl_seeds())
    for s in regime.stage1_seeds():
        sft, rctp = camp.runs[f"sft-v3-s{s}"], camp.runs[f"rctp-v11-s{s}"]
        pool_seed = regime.POOL_START.get(s, 3)
        assert sft.needs == (f"sft-s{pool_seed}",) and rctp.needs == (sft.name,)
        assert camp.runs[f"sft-s{pool_seed}"] == ex.stage1(pool_seed)["sft"]  # the pool's
        for arm in arms("regime-d10"):
            name = f"{arm.preset}-s{s}"
            if s in regime.PROOF_SEEDS:
                continue
            # the RCTP-FT arms: on admitted seeds, and the factorial's on the ITT seeds
            itt = s in regime.ITT_SEEDS and arm.experiment == "regime-factorial"
            expected = (s in admitted or itt) if arm.start == "rctp" else True
            assert (name in camp.runs) is expected, name
            if expected:
                start = rctp if arm.start == "rctp" else sft
                assert camp.runs[name].needs == (start.name,)
                assert camp.runs[name].argv[:5] == (
                    "train",
                    "--preset",
                    arm.preset,
                    "--run.seed",
                    str(s),
                )
    for s in regime.PROOF_SEEDS:
        argv = camp.runs[f"regime-grpo-s{s}"].argv
        assert argv[5:7] == ("--run.eval-every", "100")
    assert all(s.home == regime.HOME for n, s in camp.runs.items() if not n.startswith("sft-s"))


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    """The regime campaign on one machine under tmp/, with a fake trainer and diagnostic,
    the pool's sft-s3 committed, no proof seeds, seeds (3, 6, 11) and 1 seed to admit."""
    monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / "runs" / "campaign")
    monkeypatch.setattr(cp, "RESULTS", tmp_path / "results" / "campaign")
    monkeypatch.setattr(cp, "LAUNCHER", (sys.executable, str(HERE / "fake_trainer.py")))
    monkeypatch.setattr(cp, "POLL_S", 0.01)
    monkeypatch.setattr(regime, "DIAGNOSTIC", (sys.executable, str(HERE / "fake_diagnostic.py")))
    monkeypatch.setattr(regime, "PROOF", (sys.executable, str(HERE / "fake_diagnostic.py")))
    monkeypatch.setattr(regime, "DIAGNOSTICS", tmp_path / "diagnostics")
    monkeypatch.setattr(regime, "SEED_ORDER", (3, 6, 11))
    monkeypatch.setattr(regime, "PROOF_SEEDS", ())
    monkeypatch.setattr(regime, "TARGET", 1)
    for var, name in (("FAKE_LOG", "calls.jsonl"), ("FAKE_DIAG_LOG", "diag.jsonl")):
        monkeypatch.setenv(var, str(tmp_path / name))
        (tmp_path / name).write_text("")
    monkeypatch.setenv("FAKE_SEPARATION", json.dumps({"3": 0.05, "6": 0.2}))
    pool = ex.stage1(3)["sft"]
    (pool.copy / "final").mkdir(parents=True)
    (pool.copy / "final" / "model.safetensors").write_text("")
    (pool.copy / COMPLETE).write_text("")
    (pool.copy / cp.SPEC_FILE).write_text(json.dumps(pool.record()))
    return tmp_path


@pytest.mark.slow  # trains tiny Stage-1 and RL runs end to end
def test_one_command_trains_stage1_admits_and_trains_the_admitted_arms(fakes):
    regime.run(["stage1", *(a.experiment for a in arms("regime-d10"))], 2, False, False)
    trained = [json.loads(r)["name"] for r in (fakes / "calls.jsonl").read_text().splitlines()]
    diag = [json.loads(r) for r in (fakes / "diag.jsonl").read_text().splitlines()]
    assert "sft-s3" not in trained  # the committed pool SFT is reused
    assert {n for n in trained if not n.startswith("regime-")} == {
        "sft-v3-s3",
        "rctp-v11-s3",
        "sft-v3-s6",
        "rctp-v11-s6",
    }
    assert regime.admitted(3) is False and regime.admitted(6) is True  # 11 never needed
    for seed in (3, 6):  # the checkpoint each admission was measured on is committed
        assert (fakes / "results" / "regime" / f"rctp-v11-s{seed}" / "final").is_dir()
    sft_arms = {a.preset for a in arms("regime-d10") if a.start == "sft"}
    want = {f"{p}-s{s}" for p in sft_arms for s in (3, 6)}
    want |= {f"{a.preset}-s6" for a in arms("regime-d10") if a.start == "rctp"}
    assert {n for n in trained if n.startswith("regime-")} == want
    for name in want:
        assert (fakes / "results" / "regime" / name / "eval" / "step_0.json.gz").is_file()
        assert json.loads(regime.passk_path(name).read_text())["checkpoint"].endswith(
            f"runs/regime/{name}/checkpoints/step_1"
        )
    proofs = {n for n in want if regime.proof_path(n).is_file()}
    assert proofs == {"regime-grpo-s3", "regime-grpo-s6"}  # every SFT + GRPO run, no other
    for name in proofs:  # read from the committed copy
        report = json.loads(regime.proof_path(name).read_text())
        assert Path(report["run"]) == fakes / "results" / "regime" / name
    diag = [a for a in diag if "--init" in a]
    admissions = [a for a in diag if "low" in a]
    assert [a[a.index("--seed") + 1] for a in admissions] == ["3", "6"]
    goals = {a[a.index("--preset") + 1]: a[a.index("--conditions") + 1] for a in diag}
    assert goals["regime-grpo"] == "none" and goals["regime-rcgrpo"] == "high"
    trained_before = len(trained)
    regime.run(regime.experiments(regime.build()), 2, False, False)  # all done: nothing
    assert len((fakes / "calls.jsonl").read_text().splitlines()) == trained_before


def test_an_unknown_experiment_is_refused_before_anything_runs(fakes):
    with pytest.raises(ValueError, match="unknown experiment"):
        regime.run(["stage1", "regime-factorialz"], 1, False, False)
    assert (fakes / "calls.jsonl").read_text() == ""


def test_runs_trains_the_named_runs_and_their_starts_then_their_passk(fakes):
    from analysis.campaign.__main__ import main

    assert main(["--campaign", "regime-d10", "--runs", "regime-grpo-s3", "--jobs", "1"]) == 0
    trained = [json.loads(r)["name"] for r in (fakes / "calls.jsonl").read_text().splitlines()]
    assert trained == ["sft-v3-s3", "regime-grpo-s3"]  # no RCTP-FT, no admission
    assert regime.passk_path("regime-grpo-s3").is_file() and regime.admitted(3) is None
    assert regime.proof_path("regime-grpo-s3").is_file()
    assert main(["--campaign", "regime-d10", "--runs", "regime-grpo-s4"]) == 1  # not in it
