"""The collapse campaign as code (docs/protocols/collapse-campaign.md): its arms are the
regime-d10 arms on ``collapse1-d10`` at the design's RL recipe, its Stage-1 presets are the
recipe of the committed design runs, its campaign lists exactly the runs the protocol names,
and its rules partition into their families and decide hand-known runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from analysis import REPO_ROOT
from analysis.campaign import arms as am
from analysis.campaign import spec
from analysis.campaigns import presets as ps
from analysis.campaigns.collapse import driver as cc
from analysis.campaigns.collapse import presets as collapse
from analysis.campaigns.collapse import verdicts as kv
from analysis.campaigns.collapse.arms import REPEATS
from analysis.verdicts import family as fm
from analysis.verdicts import rules as rv
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.config import to_dict, upgrade_config
from rcgrpo.train.stage1.config import preset as stage1_preset

DESIGN = REPO_ROOT / "results" / "collapse"
TASKS = tuple(f"t{i}" for i in range(12))


def test_the_collapse_arms_are_regime_d10_arms_on_collapse1_at_g5_and_lr_1e5():
    """Each collapse arm is its regime-d10 arm (start, role, change) on the collapse suite, G 5,
    lr 1e-5, from the collapse Stage-1 checkpoints; the matched arm's G is 3."""
    mine = am.arms("collapse")
    assert [a.preset for a in mine] == [*REPEATS.values(), "collapse-shuffled-grpo"]
    for old, new in REPEATS.items():
        a, b = am.arm(old), am.arm(new)
        assert (a.start, a.role if new != "collapse-rctp-grpo-g3" else "rctp_grpo_g3") == (
            b.start,
            b.role,
        )
        have, want = ps.arm_sections(a), ps.arm_sections(b)
        inits = {"sft": collapse.SFT_INIT, "rctp": collapse.RCTP_INIT}
        assert want["init"] == inits[b.start]
        assert want["tasks"]["synth_preset"] == "collapse1-d10" and want["optim"]["lr"] == 1e-5
        group = 3 if new == "collapse-rctp-grpo-g3" else 5
        assert want["rollout"]["group_size"] == group
        have["tasks"]["synth_preset"], have["optim"]["lr"] = "collapse1-d10", 1e-5
        have["rollout"]["group_size"] = group
        assert have | {"init": want["init"]} == want, new
    colours = [a.colour for a in mine]
    assert len(set(colours)) == len(colours)  # the campaign's figures draw them together
    assert {a.experiment for a in mine} == {
        "collapse-factorial",
        "collapse-mechanisms",
        "collapse-control",
    }


def test_the_control_is_rctp_grpo_from_the_shuffled_goal_rctp_ft():
    """collapse-shuffled-grpo differs from collapse-rctp-grpo in its Stage-1 checkpoint only,
    and that checkpoint's preset differs from rctp-collapse in its goal labels (and name)."""
    have, want = (
        ps.arm_sections(am.arm("collapse-rctp-grpo")),
        ps.arm_sections(am.arm("collapse-shuffled-grpo")),
    )
    assert want["init"] == collapse.SHUFFLED_INIT
    assert have | {"init": want["init"]} == want
    base = _flat(to_dict(stage1_preset("rctp-collapse")))
    control = _flat(to_dict(stage1_preset("rctp-collapse-shuffled")))
    changed = {k: (base[k], control[k]) for k in base if base[k] != control[k]}
    assert changed == {
        "goals.labels": ("reward", "shuffled"),
        "run.name": ("rctp-collapse", "rctp-collapse-shuffled"),
    }


@pytest.mark.results
def test_collapse_grpo_is_the_recipe_of_the_design_pilots():
    """The gate-C pilot at lr 1e-5 (variant 4) ran ``--preset regime-grpo --tasks.synth_preset
    collapse1-d10 --rollout.group_size 5 --optim.lr 1e-5`` for 50 steps: ``collapse-grpo`` with
    that length and cadence resolves to its config.json but for names and paths."""
    folder = DESIGN / "pilot-grpo-c4-s31"
    have = json.loads((folder / "config.json").read_text())
    argv = ["--preset", "collapse-grpo", "--run.seed", "31", "--run.steps", "50"]
    cfg = parse_cli("train", [*argv, "--run.name", "pilot-grpo-c4-s31", "--init", "X"])
    want = json.loads(json.dumps(dataclasses.asdict(cfg)))
    skip = frozenset({"preset", "init", "run.root", "run.resume"})
    assert spec.differences(upgrade_config(have), want, skip) == []


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
    return out


@pytest.mark.parametrize(
    ("name", "run", "specific"),
    [
        ("sft-collapse", "sft-c2-s31", {"run.name", "run.seed"}),
        (
            "rctp-collapse",
            "rctp-c5-s31",
            {"run.name", "run.seed", "model.path", "failures.policy"},
        ),
    ],
)
@pytest.mark.results
def test_the_stage1_presets_are_the_recipe_of_the_design_runs(name, run, specific):
    """Every key of the committed design run's config.json but its name, seed and start
    checkpoint equals the preset's (variant 2's SFT, variant 5's RCTP-FT)."""
    have = _flat(json.loads((DESIGN / run / "config.json").read_text()))
    want = _flat(to_dict(stage1_preset(name)))
    assert {
        k: (v, want.get(k)) for k, v in have.items() if k not in specific and want.get(k) != v
    } == {}


def test_the_campaign_is_stage1_then_eight_arms_on_five_seeds():
    camp = cc.build()
    assert cc.SEEDS == (3, 4, 5, 6, 11)
    stage1 = [f"{k}-collapse-s{s}" for s in cc.SEEDS for k in ("sft", "rctp")]
    stage1 += [f"rctp-collapse-shuffled-s{s}" for s in cc.SEEDS]
    assert camp.experiments["stage1"] == stage1
    assert camp.experiments["collapse-factorial"] == [
        f"{a}-s{s}"
        for s in cc.SEEDS
        for a in ("collapse-grpo", "collapse-sft-rc", "collapse-rctp-grpo", "collapse-rcgrpo")
    ]
    assert len(camp.experiments["collapse-mechanisms"]) == 15
    assert camp.experiments["collapse-control"] == [
        f"collapse-shuffled-grpo-s{s}" for s in cc.SEEDS
    ]
    control = camp.runs["collapse-shuffled-grpo-s4"]
    assert [r.name for r in control.starts_from] == ["rctp-collapse-shuffled-s4"]
    shuffled = camp.runs["rctp-collapse-shuffled-s4"]
    assert [r.name for r in shuffled.starts_from] == ["sft-collapse-s4"]
    assert shuffled.argv[1:] == (
        "--preset",
        "rctp-collapse-shuffled",
        *camp.runs["rctp-collapse-s4"].argv[3:],
    )
    rc = camp.runs["collapse-rcgrpo-s4"]
    assert [r.name for r in rc.starts_from] == ["rctp-collapse-s4"]
    assert [r.name for r in camp.runs["rctp-collapse-s4"].starts_from] == ["sft-collapse-s4"]
    assert [r.name for r in camp.runs["sft-collapse-s4"].starts_from] == ["sft-s3"]
    assert {s.home for n, s in camp.runs.items() if n != "sft-s3"} == {"collapse"}


def test_the_rules_partition_into_families_and_name_collapse_arms():
    ids = [r.id for r in kv.RULES]
    assert len(set(ids)) == len(ids)
    assert sorted(ids) == sorted(i for f in kv.FAMILIES.values() for i in f)
    for r in kv.RULES:
        assert all(am.arm(a).regime == "collapse" for a in r.arms), r.id
    assert set(kv.EQUIVALENCE) == {i for i in ids if i[0] in "KMX" and i[-1] in "sf"}
    assert kv.FAMILIES["control"] == ("X1s", "X1f", "X2s", "X2f")


def write_run(root: Path, preset: str, seed: int, first: tuple, last: tuple) -> Path:
    """Evaluations at steps 0, 25, …, 200 of the SFT + GRPO arm: per-task reward ``first`` at
    step 0 and ``last`` at every later step."""
    d = root / f"{preset}-s{seed}"
    (d / "eval").mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"run": {"seed": seed}}))
    (d / "metrics.jsonl").write_text(json.dumps({"step": 0}) + "\n")
    (d / "rollouts.jsonl").write_text("")
    for step in range(0, 201, 25):
        ys = first if step == 0 else last
        per_task = [{"task_id": t, "reward": y} for t, y in zip(TASKS, ys, strict=True)]
        (d / "eval" / f"step_{step}.json").write_text(
            json.dumps({"conditions": {"none": {"per_task": per_task}}})
        )
    (d / "summary.json").write_text("{}")
    return d


def test_k2_a_gain_of_one_task_in_twelve_on_every_seed_is_no_stall(tmp_path):
    """SFT + GRPO gains exactly task t0 (0 -> 1) on three seeds: d = 1 on t0, 0 elsewhere,
    the same on every seed, mean 1/12. Only the task component: MS_task = S Σ_t (d_t − 1/12)² /
    (T − 1) = 3 (121 + 11)/144 / 11 = 0.25, SE = √(MS_task / (S T)) = √(0.25 / 36) = 0.083;
    t = (0.083 − 0.05) / 0.083 = 0.4 on 11 df: K2 ('gain < 0.05') is inconclusive."""
    found = [write_run(tmp_path, kv.SFT_GRPO, s, (0,) * 12, (1,) + (0,) * 11) for s in (3, 4, 5)]
    arms = rv.load_arms({kv.SFT_GRPO: found})
    k2 = next(r for r in kv.RULES if r.id == "K2")
    out = rv.evaluate(k2, arms, {})
    assert out.interval.mean == pytest.approx(1 / 12)
    assert out.interval.se == pytest.approx((0.25 / 36) ** 0.5, rel=1e-6)
    (decided,) = fm.decide([out], kv.FAMILIES, kv.EQUIVALENCE, kv.MARGIN)
    assert decided.verdict == "inconclusive"
