"""Campaign mechanics: a run folder counts only with the current spec; a killed campaign
continues on another machine from the committed light copies and Stage-1 checkpoints."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from analysis.campaign import config as cc
from analysis.campaign import mechanics as cp
from analysis.campaign import spec as campaign_spec
from analysis.campaigns.pool import driver as ex
from analysis.runs import COMPLETE

FAKE_TRAINER = Path(__file__).with_name("fake_trainer.py")


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """Point the campaign at ``tmp/<machine>/runs/campaign`` and a shared
    ``tmp/results/campaign``; the runs are the fake trainer. Returns a function that
    switches to another machine."""
    monkeypatch.setattr(cp, "RESULTS", tmp_path / "results" / "campaign")
    monkeypatch.setattr(cp, "LAUNCHER", (sys.executable, str(FAKE_TRAINER)))
    monkeypatch.setattr(cp, "POLL_S", 0.01)
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.jsonl"))

    def use(name: str) -> Path:
        monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / name / "runs" / "campaign")
        (tmp_path / "calls.jsonl").write_text("")
        return cp.CAMPAIGN

    use("a")
    return use


def calls(machine_root: Path) -> dict[str, list[str]]:
    log = machine_root.parents[2] / "calls.jsonl"
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    return {r["name"]: r["argv"] for r in rows}


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def complete(folder: Path, spec: cp.RunSpec | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / COMPLETE).write_text("")
    if spec is not None:
        (folder / cp.SPEC_FILE).write_text(json.dumps(spec.record()))
    return folder


SFT, RCTP = ex.stage1(0)["sft"], ex.stage1(0)["rctp"]
GRPO = ex.rl("cpu-grpo", SFT, 0)


def test_the_record_names_checkpoints_by_run_and_the_command_resolves_them():
    rec = GRPO.record()
    assert rec["argv"][-2:] == ["--init", "sft-s0/final"]
    assert rec["needs"] == {"sft-s0": SFT.record()}
    cmd = GRPO.command(lambda run: Path("/x/results") / run, resume=True)
    assert flag(cmd, "--init") == "/x/results/sft-s0/final"
    assert flag(cmd, "--run.name") == "cpu-grpo-s0" and cmd[-1] == "--run.resume"
    assert "/x" not in json.dumps(rec)  # the spec never holds a machine path


def test_an_equal_spec_is_reused_and_a_changed_one_is_stale(machine):
    folder = complete(cp.CAMPAIGN / GRPO.name, GRPO)
    assert cp.locate(GRPO) == folder and cp.status(GRPO) == ("done", folder)
    assert cp.locate(ex.rl("cpu-grpo", ex.stage1(0)["sft"], 0)) == folder  # rebuilt, equal
    argv = list(GRPO.argv)
    for i, new in ((2, "cpu-drgrpo"), (4, "1"), (6, "31")):  # preset, seed, steps
        changed = dataclasses.replace(GRPO, argv=(*argv[:i], new, *argv[i + 1 :]))
        assert cp.status(changed) == ("stale", folder) and cp.locate(changed) is None
    other_sft = dataclasses.replace(SFT, argv=("sft", "--preset", "sft-bfcl-tiny"))
    assert cp.status(ex.rl("cpu-grpo", other_sft, 0))[0] == "stale"  # changed upstream
    (folder / cp.SPEC_FILE).unlink()  # trained before specs were recorded
    assert cp.status(GRPO) == ("stale", folder)


def test_status_prefers_runs_then_results_and_reports_partial_folders(machine):
    assert cp.status(SFT) == ("missing", None)
    (cp.CAMPAIGN / SFT.name).mkdir(parents=True)
    assert cp.status(SFT) == ("partial", cp.CAMPAIGN / SFT.name)
    committed = complete(cp.RESULTS / SFT.name, SFT)
    assert cp.locate(SFT) == committed and cp.locate(SFT, force_train=True) is None
    complete(cp.CAMPAIGN / SFT.name, SFT)
    assert cp.locate(SFT) == cp.CAMPAIGN / SFT.name


def test_a_killed_campaign_continues_on_another_machine_from_committed_copies(machine, monkeypatch):
    camp = ex.build_campaign(seeds=(0,))
    names = [n for e in ("stage1", "factorial", "baselines") for n in camp.experiments[e]]
    a = cp.CAMPAIGN
    monkeypatch.setenv("FAKE_FAIL", "rctp-s0")  # machine a dies in RCTP-FT
    with pytest.raises(RuntimeError, match="run rctp-s0 failed"):
        cp.run_all(camp, names, jobs=1)
    monkeypatch.delenv("FAKE_FAIL")
    assert list(calls(a)) == ["sft-s0", "rctp-s0"]  # dependencies first, one at a time
    sft_copy = cp.RESULTS / "sft-s0"
    assert cp.locate(SFT) == a / "sft-s0"
    assert sorted(p.name for p in sft_copy.iterdir()) == sorted(
        ["campaign.json", ".complete", "config.json", "metrics.jsonl.gz", "summary.json"]
        + ["final", "weak"]
    )
    b = machine("b")  # a fresh clone: only results/ came along
    launched = cp.run_all(camp, names, jobs=2)
    assert "sft-s0" not in launched and set(launched) == set(names) - {"sft-s0"}
    argv = calls(b)
    assert set(argv) == set(launched)
    assert flag(argv["rctp-s0"], "--model.path") == str(sft_copy / "final")
    assert flag(argv["rctp-s0"], "--failures.policy") == str(sft_copy / "weak")
    assert flag(argv["cpu-grpo-s0"], "--init") == str(sft_copy / "final")
    assert flag(argv["cpu-rcgrpo-s0"], "--init") == str(b / "rctp-s0" / "final")
    assert all("--run.resume" not in v for v in argv.values())
    for name in names:
        spec, copy = camp.runs[name], cp.RESULTS / name
        assert cp.locate(spec) == (b / name if name in launched else copy)
        assert (copy / "final").is_dir() is (name in ("sft-s0", "rctp-s0"))
        assert not (copy / "checkpoints").exists()  # light: never the training checkpoints
    assert (cp.RESULTS / "cpu-grpo-s0" / "eval" / "step_0.json.gz").is_file()
    machine("c")  # a third clone has nothing to do
    assert cp.run_all(camp, names) == [] and calls(cp.CAMPAIGN) == {}


def test_a_rerun_resumes_a_current_partial_folder_and_sets_a_stale_one_aside(machine):
    camp = ex.build_campaign(seeds=(0,))
    complete(cp.RESULTS / "sft-s0", SFT)
    for sub in ("final", "weak"):
        (cp.RESULTS / "sft-s0" / sub).mkdir()
        (cp.RESULTS / "sft-s0" / sub / "model.safetensors").write_text("")
    (cp.CAMPAIGN / "rctp-s0").mkdir(parents=True)
    (cp.CAMPAIGN / "rctp-s0" / cp.SPEC_FILE).write_text(json.dumps(RCTP.record()))
    stale = cp.CAMPAIGN / "cpu-grpo-s0"
    stale.mkdir()
    (stale / cp.SPEC_FILE).write_text(json.dumps(ex.rl("cpu-drgrpo", SFT, 0).record()))
    cp.run_all(camp, ["rctp-s0", "cpu-grpo-s0"])
    argv = calls(cp.CAMPAIGN)
    assert argv["rctp-s0"][-1] == "--run.resume"
    assert "--run.resume" not in argv["cpu-grpo-s0"]
    (aside,) = (cp.CAMPAIGN / "stale").iterdir()
    assert aside.name.startswith("cpu-grpo-s0-") and cp.recorded_spec(aside)["argv"][2] == (
        "cpu-drgrpo"
    )


def test_a_stage1_copy_without_its_checkpoint_stops_the_campaign_with_one_line(machine):
    camp = ex.build_campaign(seeds=(0,))
    complete(cp.RESULTS / "sft-s0", SFT)  # logs only, as before checkpoints were committed
    with pytest.raises(RuntimeError, match="sft-s0/final, which is missing"):
        cp.run_all(camp, ["cpu-grpo-s0"], dry_run=True)
    assert calls(cp.CAMPAIGN) == {}


def test_adopt_records_the_spec_only_when_the_config_matches(machine, tmp_path):
    camp = ex.build_campaign(seeds=(0,))
    folder = complete(cp.CAMPAIGN / "cpu-grpo-s0", None)
    config = cc.resolved_config(GRPO, lambda run: tmp_path / "elsewhere" / run)
    config["optim"].pop("lr")  # a field added to the code after the run: not a difference
    config["optim"]["retired_knob"] = 1  # a field removed from the code since: not either
    (folder / "config.json").write_text(json.dumps(config))
    assert cc.adopt(camp, ["cpu-grpo-s0"]) == [folder] and cp.locate(GRPO) == folder
    config["run"]["steps"] = 31
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"\['run.steps'\]"):
        cc.adopt(camp, ["cpu-grpo-s0"])
    with pytest.raises(ValueError, match="not complete"):
        cc.adopt(camp, ["cpu-sft-rc-s0"])


def test_a_recorded_spec_is_current_by_its_resolved_values_not_its_layout():
    want = {
        "name": "r",
        "argv": ["train", "--preset", "p"],
        "needs": {},
        "resolved": {"config": {"algo": {"adv_estimator": "grpo", "kl_beta": 0.1}}, "suite": "a"},
    }
    have = json.loads(json.dumps(want))
    assert campaign_spec.same_spec(have, want)
    have["resolved"]["config"]["algo"]["removed_since"] = 1  # a field the code dropped
    del have["resolved"]["config"]["algo"]["kl_beta"]  # one added since: no difference
    assert campaign_spec.same_spec(have, want)
    have["resolved"]["config"]["algo"] = {"adv_scale": "group"}  # renamed: upgraded first
    assert campaign_spec.same_spec(have, want)
    have["resolved"]["config"]["algo"] = {"adv_estimator": "rloo"}  # a changed value
    assert not campaign_spec.same_spec(have, want)
    assert not campaign_spec.same_spec(
        {**want, "resolved": {**want["resolved"], "suite": "b"}}, want
    )
    assert not campaign_spec.same_spec({k: v for k, v in want.items() if k != "resolved"}, want)
    dep = {**want, "name": "d"}
    parent = {**want, "needs": {"d": dep}}
    changed = {**dep, "resolved": {**dep["resolved"], "suite": "b"}}
    assert not campaign_spec.same_spec(
        {**parent, "needs": {"d": changed}}, parent
    )  # a run it starts from
