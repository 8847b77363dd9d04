"""analysis.verdicts.family (Holm within families, TOST, by-construction rules), the
learning-speed reader, the populations and analysis.runs.hosts, on hand-made outcomes and
run folders (the derivations in the comments)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis.campaigns.regime_d10 import driver as campaign
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10.rules import RULES
from analysis.runs import load_run
from analysis.runs.hosts import cpu_kind
from analysis.verdicts import family as fm
from analysis.verdicts import rules as rv

BIG_DF = 1e9  # the t reference is the normal


def rule(rule_id: str) -> rv.Rule:
    return next(r for r in RULES if r.id == rule_id)


def outcome(rule_id: str, mean: float, se: float, seeds: int = 5, note: str = "") -> rv.Outcome:
    half = 1.959964 * se
    iv = rv.Interval(mean, mean - half, mean + half, se, BIG_DF, seeds, 1000, 0.0)
    return rv.Outcome(rule(rule_id), tuple(range(seeds)), iv, "inconclusive", note)


def test_holm_within_the_claims_family_on_a_hand_worked_table():
    # z = mean / se: T1 3 -> p .0027; T2 2 -> p .0455; T4 0 -> p 1. Holm (m = 3):
    # .0027 * 3 = .0081; .0455 * 2 = .0910; 1. T2 holds unadjusted, not after Holm.
    # TOST (m .05): T1 Φ((.03 − .05)/.01) = Φ(−2) = .02275; T2 Φ(−3) = .00135;
    # T4 Φ(−5) = 2.9e-7 -> Holm: T4 8.6e-7, T2 .0027, T1 .02275.
    table = [outcome("T1", 0.03, 0.01), outcome("T2", 0.02, 0.01), outcome("T4", 0.0, 0.01)]
    out = fm.decide(table)
    t1, t2, t4 = out
    assert [d.p for d in out] == pytest.approx([0.0026998, 0.0455003, 1.0], rel=1e-4)
    assert [d.p_holm for d in out] == pytest.approx([0.0080994, 0.0910006, 1.0], rel=1e-4)
    assert [d.p_tost_holm for d in out] == pytest.approx([0.0227501, 0.0026998, 8.6e-7], rel=1e-2)
    assert t1.verdict == "holds"
    assert t2.verdict == "equivalent within ±5 points"  # not "holds": Holm matters
    assert t4.verdict == "equivalent within ±5 points"
    assert {d.family for d in out} == {"claims"}


def test_does_not_hold_on_the_other_side_and_families_are_separate():
    # I2 (claims) alone: z = −5 -> p 5.7e-7, below θ = 0 -> does not hold. D2 (mechanisms)
    # alone in its family: z = 2.5 -> p .0124, m = 1 -> holds (it would not with m = 2 and
    # a claims family p beside it)
    i2, d2 = fm.decide([outcome("I2", -0.05, 0.01), outcome("D2", 0.025, 0.01)])
    assert i2.verdict == "does not hold" and d2.verdict == "holds"
    assert d2.p_holm == pytest.approx(d2.p) and d2.family == "mechanisms"


def test_untested_rules_do_not_count_towards_m():
    # E1's gate failed and E2 has two seeds: neither is tested, so D2 is alone (m = 1)
    gated = outcome("E1", 0.5, 0.01, note="gate B4 regime-rctp-grpo-temp fails")
    few = outcome("E2", 0.5, 0.01, seeds=2, note="2 seeds < 3")
    e1, e2, d2 = fm.decide([gated, few, outcome("D2", 0.025, 0.01)])
    assert math.isnan(e1.p) and math.isnan(e2.p_holm)
    assert e1.verdict == e2.verdict == "inconclusive"
    assert d2.p_holm == pytest.approx(d2.p)


def test_a_rule_that_holds_by_construction_is_labelled_and_not_tested():
    c2 = rv.Outcome(rule("C2"), (3, 4, 5), outcome("C2", 0.4, 0.05).interval, "holds", "")
    (d,) = fm.decide([c2])
    assert d.family == "by construction" and math.isnan(d.p)
    assert d.verdict.startswith("holds (by construction")


def test_in_the_itt_population_the_by_construction_rule_is_tested():
    # C2 0.4 ± 0.05 against θ 0.3: z = 2 -> p .0455, alone in its family -> holds
    c2 = rv.Outcome(rule("C2"), (3, 4, 5), outcome("C2", 0.4, 0.05).interval, "holds", "")
    (d,) = fm.decide([c2], fm.ITT_FAMILIES, labelled={})
    assert d.family == "checks" and d.p_holm == pytest.approx(0.0455003, rel=1e-4)
    assert d.verdict == "holds"


def test_equivalence_only_for_its_rules():
    # T3 (a main effect > 0) is not an equivalence rule: z 0 -> inconclusive, no TOST
    (t3,) = fm.decide([outcome("T3", 0.0, 0.01)])
    assert t3.verdict == "inconclusive" and math.isnan(t3.p_tost)


def test_bound_reads_the_claims_side():
    assert fm.bound(outcome("T1", 0.002, 0.0127)) == "> +2.7 excluded"  # .002 + 1.96 * .0127
    assert fm.bound(outcome("I1", 0.02, 0.01)) == ""  # not a held-out rule


# -- run folders: learning speed, hosts, populations --------------------------------------


def write_run(root: Path, name: str, curve: dict[int, tuple[float, ...]], host=None) -> Path:
    """A run whose evaluation at each step of ``curve`` has per-task rewards (tasks a, b…)."""
    d = root / name
    (d / "eval").mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"run": {"seed": 3}, "algo": {}}))
    for step, ys in curve.items():
        per = [{"task_id": "abc"[i], "reward": y} for i, y in enumerate(ys)]
        overall = {"reward": {"successes": sum(ys), "n": len(ys)}}
        body = {"conditions": {"none": {"per_task": per, "overall": overall}}}
        (d / "eval" / f"step_{step}.json").write_text(json.dumps(body))
    (d / "summary.json").write_text(json.dumps({"host": host} if host else {}))
    return d


def test_speed_is_the_mean_over_steps_25_to_175(tmp_path):
    # task a: 1 at steps 25-75, 0 at 100-175 -> 3/7; task b: 1 everywhere -> 1; step 0 and
    # 200 (0 for both) are outside the window
    curve = {0: (0.0, 0.0), 200: (0.0, 0.0)}
    curve |= {s: (1.0 if s <= 75 else 0.0, 1.0) for s in rv.SPEED_STEPS}
    run = load_run(write_run(tmp_path, "r-s3", curve))
    assert rv.speed()(run) == pytest.approx({"a": 3 / 7, "b": 1.0})
    assert rv.speed_overall(run) == pytest.approx((3 / 7 + 1.0) / 2)


def test_speed_needs_every_evaluation(tmp_path):
    run = load_run(write_run(tmp_path, "r-s3", {0: (1.0,), 100: (1.0,), 200: (1.0,)}))
    with pytest.raises(ValueError, match=r"steps \[25, 50, 75, 125, 150, 175\]"):
        rv.speed()(run)
    assert math.isnan(rv.speed_overall(run))  # a proof run, evaluated every 100 steps


def test_cpu_kind_from_the_summary_then_the_record(tmp_path):
    facts = {"device": "cpu", "cpu_capability": "AVX512"}
    recorded = load_run(write_run(tmp_path, "new-s3", {0: (1.0,)}, host=facts))
    old = load_run(write_run(tmp_path, "old-s3", {0: (1.0,)}))
    unknown = load_run(write_run(tmp_path, "other-s3", {0: (1.0,)}))
    record = {"runs": {"old-s3": {"cpu": "AVX2", "source": "a session note"}}}
    (tmp_path / "hosts.json").write_text(json.dumps(record))
    assert [cpu_kind(r) for r in (recorded, old, unknown)] == ["AVX-512", "AVX2", "?"]


def test_same_host_drops_seeds_whose_arms_ran_on_two_kinds(monkeypatch):
    # seed 4: the first arm on AVX2, the second on AVX-512 -> dropped; 3 and 5 are kept
    t1 = rule("T1")

    def kind(arm: str, seed: int) -> str:
        return "AVX2" if (arm, seed) == (t1.arms[0], 4) else "AVX-512"

    arms = {a: {s: kind(a, s) for s in (3, 4, 5)} for a in t1.arms}
    kept = []

    def spy(rule, found, gates):
        kept.append({a: sorted(runs) for a, runs in found.items()})
        return rv.Outcome(rule, (), None, "inconclusive", "")

    monkeypatch.setattr(rv, "evaluate", spy)
    assert fm.same_host(t1, arms, lambda r: r) is None
    assert kept == [{a: [3, 5] for a in t1.arms}]


def test_populations_agree_with_the_campaign():
    assert campaign.rl_seeds() == pop.ADMITTED
    assert tuple(sorted({*campaign.rl_seeds(), *campaign.ITT_SEEDS})) == pop.ITT
    assert not set(campaign.ITT_SEEDS) & set(pop.ADMITTED)


def test_counts_keeps_sft_arms_on_every_seed_and_rctp_arms_in_their_population():
    assert pop.counts(pop.SFT_GRPO, 6, "admitted") and pop.counts(pop.RCTP_RC, 6, "itt")
    assert not pop.counts(pop.RCTP_RC, 6, "admitted")
    assert not pop.counts(pop.RCTP_RC, 7, "itt")  # reserved
    assert pop.counts(pop.RCTP_RC, 6)  # no population: every unreserved seed
    with pytest.raises(ValueError, match="population"):
        pop.counts(pop.RCTP_RC, 6, "everyone")
