"""One registry of campaigns (analysis/campaign/registry.py): ``python -m analysis.campaign
--campaign ID`` lists, dry-runs and trains each by its id; the regime-wide1 campaign's dry run
is exactly the commands its runs not done need, and one command trains it (a fake trainer and a
fake diagnostic)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from analysis.campaign import arms as am
from analysis.campaign import config as cc
from analysis.campaign import mechanics as cp
from analysis.campaign import registry
from analysis.campaign.__main__ import main
from analysis.campaigns.pool import driver as ex
from analysis.campaigns.regime_d10 import driver as regime
from analysis.campaigns.regime_wide1 import driver as wide1
from analysis.campaigns.regime_wide1.arms import FACTORIAL as WIDE1_FACTORIAL
from analysis.runs import COMPLETE
from analysis.runs import index as ix

HERE = Path(__file__).parent
STATES = ("done", "stale", "partial", "missing")


CAMPAIGNS = registry.campaigns()


def test_the_campaign_ids_are_the_regimes_of_the_arms():
    # the campaigns whose arms are in analysis.campaign.arms; collapse-pairs keeps its own records
    legacy = tuple(c for c in CAMPAIGNS if c in am.REGIMES)
    assert legacy == am.REGIMES == ("pool", "regime-d10", "regime-wide1", "collapse")
    assert tuple(CAMPAIGNS)[len(legacy) :] == (
        "collapse-pairs",
        "collapse-pairs-map",
        "collapse-pairs-inverted",
        "smollm2-collapse",
        "smollm2-instruments",
    )
    assert all(c.id == key for key, c in CAMPAIGNS.items())
    for key in legacy:  # every RL run of such a campaign is an arm of its regime
        runs = CAMPAIGNS[key].build().runs.values()
        presets = {str(s.argv[2]) for s in runs if s.argv[0] == "train"}
        assert presets and {am.arm(p).regime for p in presets} == {key}, key


@pytest.mark.parametrize("campaign_id", list(CAMPAIGNS))
def test_list_shows_every_run_of_the_campaign_once_with_its_status(campaign_id, capsys):
    assert main(["--campaign", campaign_id, "--list"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    camp = CAMPAIGNS[campaign_id].build()
    assert [r[1] for r in rows] == [n for names in camp.experiments.values() for n in names]
    assert sorted(r[1] for r in rows) == sorted(camp.runs)  # each run once
    assert {r[0] for r in rows} == {e for e, names in camp.experiments.items() if names}
    assert {r[2].rstrip(":") for r in rows} <= set(STATES)


def test_ids_prints_the_ids_and_an_unknown_id_is_one_line(capsys):
    assert main(["--ids"]) == 0
    assert capsys.readouterr().out.split() == [
        "pool",
        "regime-d10",
        "regime-wide1",
        "collapse",
        "collapse-pairs",
        "collapse-pairs-map",
        "collapse-pairs-inverted",
        "smollm2-collapse",
        "smollm2-instruments",
    ]
    assert main(["--campaign", "regime", "--list"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "error: campaign must be one of pool, regime-d10, regime-wide1, collapse, collapse-pairs, "
        "collapse-pairs-map, collapse-pairs-inverted, smollm2-collapse, smollm2-instruments, "
        "got 'regime'\n"
    )


@pytest.mark.results
def test_every_wide1_run_folder_is_the_regime_wide1_row_of_the_results_index():
    rows = ix.studies()
    for name, spec in wide1.build().runs.items():
        folder = str(spec.copy.relative_to(ix.RESULTS))
        want = ["pool"] if name == "sft-s3" else ["regime-wide1"]
        assert ix.owners(folder, rows) == want, folder


def test_every_wide1_run_parses_on_regime_wide1_from_the_stage1_of_its_seed():
    """Each command through the real CLI parsers (nothing runs): on the suite
    ``regime-wide1-d10``, named ``<kind>-s<seed>`` with that seed, each starting from the
    checkpoint of its own seed (the pool's sft-s3 for the regime SFT)."""
    camp = wide1.build()
    for name, spec in camp.runs.items():
        if name == "sft-s3":
            continue
        cfg = cc.resolved_config(spec, lambda run: Path("/elsewhere") / run)
        seed = int(name.rsplit("-s", 1)[1])
        assert (cfg["run"]["name"], cfg["run"]["seed"]) == (name, seed)
        section = "tasks" if spec.argv[0] == "train" else "sft"
        assert cfg[section]["synth_preset"] == "regime-wide1-d10", name
        start = {"sft": "sft-s3", "rctp": f"sft-wide1-s{seed}"}.get(spec.argv[0])
        if spec.argv[0] == "train":
            start = f"{am.arm(str(spec.argv[2])).start}-wide1-s{seed}"
        assert spec.needs == (start,), name
    assert len(camp.runs) == 1 + len(wide1.SEEDS) * (2 + len(WIDE1_FACTORIAL))


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    """The campaigns on one machine under tmp/ with a fake trainer and diagnostic, the pool's
    sft-s3 committed."""
    monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / "runs" / "campaign")
    monkeypatch.setattr(cp, "RESULTS", tmp_path / "results" / "campaign")
    monkeypatch.setattr(cp, "LAUNCHER", (sys.executable, str(HERE / "fake_trainer.py")))
    monkeypatch.setattr(cp, "POLL_S", 0.01)
    monkeypatch.setattr(regime, "DIAGNOSTIC", (sys.executable, str(HERE / "fake_diagnostic.py")))
    monkeypatch.setattr(regime, "PROOF", (sys.executable, str(HERE / "fake_diagnostic.py")))
    monkeypatch.setattr(regime, "DIAGNOSTICS", tmp_path / "diagnostics")
    for var, name in (("FAKE_LOG", "calls.jsonl"), ("FAKE_DIAG_LOG", "diag.jsonl")):
        monkeypatch.setenv(var, str(tmp_path / name))
        (tmp_path / name).write_text("")
    start = ex.stage1(3)["sft"]
    (start.copy / "final").mkdir(parents=True)
    (start.copy / "final" / "model.safetensors").write_text("")
    (start.copy / COMPLETE).write_text("")
    (start.copy / cp.SPEC_FILE).write_text(json.dumps(start.record()))
    return tmp_path


def _trained(root: Path) -> list[str]:
    return [json.loads(r)["name"] for r in (root / "calls.jsonl").read_text().splitlines()]


def test_the_wide1_dry_run_is_the_command_of_every_run_not_done(fakes, capsys):
    """Seed 3's Stage 1 and seed 4's SFT committed (trained, exported, then runs/ wiped): the
    dry run is seed 4's RCTP-FT, the Stage 1 of seeds 5, 6, 11, then the four arms of every
    seed, each with its checkpoint where it is or will be."""
    committed = ["sft-wide1-s3", "rctp-wide1-s3", "sft-wide1-s4"]
    assert main(["--campaign", "regime-wide1", "--jobs", "1", "--runs", *committed[1:]]) == 0
    assert _trained(fakes) == committed
    for name in _trained(fakes):
        shutil.rmtree(cp.runs_dir("regime") / name)
    capsys.readouterr()
    assert main(["--campaign", "regime-wide1", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    runs, results = fakes / "runs" / "regime", fakes / "results" / "regime"
    pool = fakes / "results" / "campaign" / "sft-s3" / "final"

    def cmd(stage: str, preset: str, seed: int, *argv: object) -> str:
        name = {"sft": "sft-wide1", "rctp": "rctp-wide1"}.get(stage, preset) + f"-s{seed}"
        words = [*cp.LAUNCHER, stage, "--preset", preset, "--run.seed", seed, *argv]
        return " ".join(map(str, [*words, "--run.root", runs, "--run.name", name]))

    sft4 = results / "sft-wide1-s4" / "final"
    want = [cmd("rctp", "rctp-regime-wide1", 4, "--model.path", sft4, "--failures.policy", sft4)]
    for s in (5, 6, 11):
        sft = runs / f"sft-wide1-s{s}" / "final"
        want.append(cmd("sft", "sft-regime-wide1", s, "--model.path", pool))
        want.append(
            cmd("rctp", "rctp-regime-wide1", s, "--model.path", sft, "--failures.policy", sft)
        )
    for s in (3, 4, 5, 6, 11):
        where = {"sft": results if s in (3, 4) else runs, "rctp": results if s == 3 else runs}
        for preset, start in (
            ("regime-wide1-grpo", "sft"),
            ("regime-wide1-sft-rc", "sft"),
            ("regime-wide1-rctp-grpo", "rctp"),
            ("regime-wide1-rcgrpo", "rctp"),
        ):
            init = where[start] / f"{start}-wide1-s{s}" / "final"
            want.append(cmd("train", preset, s, "--init", init))
    assert lines == want
    assert len(lines) == 1 + 2 * 3 + 4 * 5 == 27
    assert _trained(fakes) == committed  # nothing ran


def test_one_command_trains_the_wide1_campaign_and_reports_each_rl_run(fakes, monkeypatch):
    monkeypatch.setattr(wide1, "SEEDS", (3,))
    assert main(["--campaign", "regime-wide1", "--jobs", "1"]) == 0  # one at a time: in order
    arms = [f"{p}-s3" for p in WIDE1_FACTORIAL]
    assert _trained(fakes) == ["sft-wide1-s3", "rctp-wide1-s3", *arms]  # no admission between
    diag = [json.loads(r) for r in (fakes / "diag.jsonl").read_text().splitlines()]
    goals = {
        a[a.index("--preset") + 1]: a[a.index("--conditions") + 1] for a in diag if "--init" in a
    }
    assert goals == {p: "none" if p == "regime-wide1-grpo" else "high" for p in WIDE1_FACTORIAL}
    assert all(regime.passk_path(n).is_file() for n in arms)
    assert [n for n in arms if regime.proof_path(n).is_file()] == ["regime-wide1-grpo-s3"]
    assert main(["--campaign", "regime-wide1"]) == 0  # all done: nothing more
    assert len(_trained(fakes)) == 6
