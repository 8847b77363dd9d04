"""The new regime's verdict rules (analysis/verdicts/: regime.py, regime_rules.py, checks.py,
calibration.py, table.py): the decision, the seed interval and the calibration
rule by hand, and fake run folders that make every rule come out holds / does not hold /
inconclusive, and every gate fail."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis.campaigns.regime_d10 import calibration as cal
from analysis.campaigns.regime_d10 import checks as rc
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10 import verdict_table as rt
from analysis.campaigns.regime_d10.rules import RULES
from analysis.runs import load_run
from analysis.verdicts import rules as rv

TASKS = ("t0", "t1", "t2")
HHLL = ("high", "high", "low", "low")
INFORMATIVE = (1, 0, 1, 0)  # each goal class {1, 0}: informative, within-goal variance .25
COLLAPSED = (0, 0, 0, 0)


def write_run(
    root: Path,
    arm: str,
    seed: int,
    *,
    k: int = 2,
    entropy: float = 1.0,
    y: float = 1.0,
    y_low: float = 0.0,
    goals=HHLL,
) -> Path:
    """A finished run ``<arm>-s<seed>``: 4 training groups of G 4 at step 1, ``k`` of them
    informative (rewards 1 0 1 0), the rest collapsed (all 0): collapse share (4 − k)/4,
    informative share k/4, within-goal variance .25·k/4; token entropy ``entropy`` on steps
    1-2; held-out success ``y`` on every task at steps 0 and 200 (``y_low`` under low)."""
    d = root / f"{arm}-s{seed}"
    (d / "eval").mkdir(parents=True)
    config = {
        "run": {"seed": seed},
        "rollout": {"group_size": 4},
        "algo": {"eval_condition": "high", "conditioning": "iid"},
    }
    (d / "config.json").write_text(json.dumps(config))
    metrics = [{"step": 0}] + [
        {"step": s, "policy/entropy_high": entropy, "reward/success_low": 0.5} for s in (1, 2)
    ]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in metrics))
    rows = []
    for p in range(4):
        rewards = INFORMATIVE if p < k else COLLAPSED
        rows += [
            {"step": 1, "round": 0, "prompt": p, "reward_token": g, "reward": r}
            for g, r in zip(goals, rewards, strict=True)
        ]
    (d / "rollouts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for step in (0, 200):
        per = {
            c: [{"task_id": t, "reward": v} for t in TASKS]
            for c, v in (("high", y), ("low", y_low))
        }
        conds = {c: {"per_task": p} for c, p in per.items()}
        (d / "eval" / f"step_{step}.json").write_text(json.dumps({"conditions": conds}))
    (d / "summary.json").write_text("{}")
    return d


# -- the decision and the intervals by hand -------------------------------------------


def iv(low, high, seeds=3):
    return rv.Interval((low + high) / 2, low, high, 0.0, 2.0, seeds, 0, 0.0)


@pytest.mark.parametrize(
    "low, high, side, expected",
    [
        (0.1, 0.3, "above", "holds"),
        (-0.3, -0.1, "above", "does not hold"),
        (-0.1, 0.3, "above", "inconclusive"),  # the interval contains θ = 0
        (-0.3, -0.1, "below", "holds"),
        (0.1, 0.3, "below", "does not hold"),
    ],
)
def test_decide(low, high, side, expected):
    assert rv.decide(iv(low, high), 0.0, side) == expected


def test_decide_needs_three_seeds():
    assert rv.decide(iv(0.1, 0.3, seeds=2), 0.0, "above") == "inconclusive"
    assert rv.decide(None, 0.0, "above") == "inconclusive"


def test_seed_interval_by_hand():
    # x = (.1, .2, .3): mean .2, s = .1, SE = .1/√3 = .057735; t_.975,2 = 4.302653,
    # half = .248414; MDE = (4.302653 + t_.80,2 = 1.060660)·.057735 = .309651
    out = rv.seed_interval([0.1, 0.2, 0.3])
    assert (out.mean, out.se, out.df) == pytest.approx((0.2, 0.1 / 3**0.5, 2))
    assert (out.low, out.high) == pytest.approx((0.2 - 0.248414, 0.2 + 0.248414), rel=1e-5)
    assert out.mde == pytest.approx(0.309651, rel=1e-5)
    assert rv.seed_interval([0.1, math.nan]) is None


def test_task_matrix_pairs_common_tasks():
    # seed 0: A {a: 1, b: 0, c: 1}, B {a: 0, b: 0}; seed 1: A {a: 1, b: 1}, B {a: 1, b: 0}
    # common tasks a, b: d = [[1, 0], [0, 1]]
    d, tasks = rv.task_matrix(
        [[{"a": 1, "b": 0, "c": 1}, {"a": 0, "b": 0}], [{"a": 1, "b": 1}, {"a": 1, "b": 0}]],
        (1.0, -1.0),
    )
    assert tasks == ["a", "b"] and d.tolist() == [[1, 0], [0, 1]]


# -- calibration and the match check -------------------------------------------------


def test_choose_by_hand():
    # target .85: g = .5/.85 − 1 = −.412, .8/.85 − 1 = −.059, 1.1/.85 − 1 = +.294 -> τ 1.2
    c = cal.choose("temperature", [1.4, 1.0, 1.2], [1.1, 0.5, 0.8], 0.85)
    assert (c.status, c.chosen) == ("matched", 1.2)
    assert c.values == (1.0, 1.2, 1.4)
    # target .95: no |g| ≤ .1 (−.158, +.158); bracketed by 1.2 (.8) and 1.4 (1.1):
    # next = 1.2 + (.95 − .8)·.2/.3 = 1.3
    c = cal.choose("temperature", [1.0, 1.2, 1.4], [0.5, 0.8, 1.1], 0.95)
    assert c.status == "interpolate" and c.chosen is None
    assert c.next_value == pytest.approx(1.3)
    assert cal.choose("temperature", [1.0, 1.2], [0.5, 0.8], 2.0).status == "extend grid"
    # a tie |g| = 1/16 both ways: the smaller value (less departure from GRPO)
    assert cal.choose("entropy_coef", [0.03, 0.01], [1.0625, 0.9375], 1.0).chosen == 0.01


def test_matched_band():
    assert cal.matched(0.1) and cal.matched(-0.1) and not cal.matched(0.11)
    assert not cal.matched(math.nan)
    assert cal.relative_gap(1.1, 1.0) == pytest.approx(0.1)


def test_calibrate_runs(tmp_path):
    target = write_run(tmp_path, "rc", 9, entropy=0.85)
    cands = []
    for tau, h in ((1.0, 0.5), (1.15, 0.8)):  # the pre-registered grid
        d = write_run(tmp_path, f"tau{tau}", 9, entropy=h)
        cfg = json.loads((d / "config.json").read_text())
        cfg["rollout"]["temperature"] = tau
        (d / "config.json").write_text(json.dumps(cfg))
        cands.append(load_run(d))
    choice = cal.calibrate(load_run(target), cands, "temperature")
    assert (choice.status, choice.chosen) == ("matched", 1.15)
    with pytest.raises(ValueError, match="seed 9"):
        cal.calibrate(load_run(write_run(tmp_path, "rc", 0)), cands, "temperature")
    # leaving a grid value out (here 1.0, whose g is −.41) is refused, not chosen around
    with pytest.raises(ValueError, match=r"grid .* no run at \[1\.0\]"):
        cal.calibrate(load_run(target), cands[1:], "temperature")


def test_high_like_entropy_falls_back():
    import pandas as pd

    df = pd.DataFrame(
        [
            {"step": 0, "policy/entropy": 9.0},
            {"step": 1, "policy/entropy": 0.2},
            {"step": 2, "policy/entropy": 0.4},
        ]
    )
    assert cal.high_like_entropy(df) == pytest.approx(0.3)  # step 0 is not training


# -- every rule on constructed runs ----------------------------------------------------

# rule id -> pass? -> {arm: write_run kwargs} whose per-seed value lies on the claim's side
# (pass) or the other (fail); collapse (4 − k)/4, informative k/4, within .0625·k
PASS_K = {True: (3, 1), False: (1, 3)}


def seed_pair(a, b, key="k"):
    return lambda ok: {a: {key: PASS_K[ok][0]}, b: {key: PASS_K[ok][1]}}


REALISE = {
    "C1": lambda ok: {pop.SFT_GRPO: {"k": 1 if ok else 3}},  # collapse .75 | .25 vs θ .5
    "C2": lambda ok: {pop.RCTP_RC: {"y": 1.0 if ok else 0.0, "y_low": 0.0}},  # 1 | 0 vs .3
    # entropy RC/GRPO − 1 = 0 | .5 against θ .1 (below)
    "C3": lambda ok: {pop.RCTP_RC: {"entropy": 1.0 if ok else 1.5}, pop.RCTP_GRPO: {}},
    "I1": seed_pair(pop.RCTP_RC, pop.RCTP_GRPO),
    "I2": seed_pair(pop.RCTP_RC, pop.RCTP_GRPO),
    "E1": seed_pair(pop.RCTP_RC, pop.TEMP_MATCHED),  # collapse arm − RC: .75 − .25
    "E2": seed_pair(pop.RCTP_RC, pop.TEMP_MATCHED),
    "E4": seed_pair(pop.RCTP_RC, pop.COEF_MATCHED),
    "E5": seed_pair(pop.RCTP_RC, pop.COEF_MATCHED),
    "S1": seed_pair(pop.RCTP_STRAT, pop.RCTP_RC),  # collapse iid − strat: .75 − .25
}


def realise(rule: rv.Rule, ok: bool) -> dict[str, dict]:
    if rule.id in REALISE:
        return REALISE[rule.id](ok)
    # task × seed: y = 1 where w > 0, 0 where w < 0 (d = Σ|w|·… > 0), reversed to fail
    return {a: {"y": float((w > 0) == ok)} for a, w in zip(rule.arms, rule.weights, strict=True)}


def verdict_of(tmp_path: Path, rule: rv.Rule, oks: tuple[bool, ...]) -> rv.Outcome:
    found: dict[str, list[Path]] = {}
    for seed, ok in enumerate(oks):
        kwargs = realise(rule, ok)
        for arm in dict.fromkeys((*rule.arms, pop.RCTP_RC)):
            found.setdefault(arm, []).append(write_run(tmp_path, arm, seed, **kwargs.get(arm, {})))
    results, _ = rt.outcomes(pop.load_arms(found))
    return next(o for o in results if o.rule.id == rule.id)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
@pytest.mark.parametrize(
    "oks, expected",
    [
        ((True, True, True), "holds"),
        ((False, False, False), "does not hold"),
        # (a, b, a): mean a − Δ/3, half 4.303·Δ/3 = 1.43Δ: the interval contains θ
        ((True, False, True), "inconclusive"),
        ((True, True), "inconclusive"),  # two seeds
    ],
)
def test_every_rule(tmp_path, rule, oks, expected):
    out = verdict_of(tmp_path, rule, oks)
    assert out.verdict == expected, (out.interval, out.note)
    assert len(out.seeds) == len(oks)
    if len(oks) < rv.MIN_SEEDS and rule.gate is None:  # says why, even where Δ ≥ MDE
        assert out.note == "2 seeds < 3"


def test_reserved_seeds_never_count(tmp_path):
    found = {pop.SFT_GRPO: [write_run(tmp_path, pop.SFT_GRPO, s, k=1) for s in (0, 1, 7, 9)]}
    out = rv.evaluate(RULES[0], pop.load_arms(found), {})
    assert out.seeds == (0, 1) and out.verdict == "inconclusive" and out.note == "2 seeds < 3"


def test_missing_arm_is_named(tmp_path):
    found = {pop.RCTP_RC: [write_run(tmp_path, pop.RCTP_RC, s) for s in range(3)]}
    out = rv.evaluate(next(r for r in RULES if r.id == "T1"), pop.load_arms(found), {})
    assert out.verdict == "inconclusive" and out.note == "not yet run: regime-rctp-grpo"


def test_arms_on_disjoint_seeds_are_named_as_such(tmp_path):
    """The campaign's SFT + GRPO runs (seeds 0-2) and its admitted RCTP-FT seeds (3, 4) can
    share no seed: the rule is inconclusive and says why."""
    found = {
        pop.RCTP_GRPO: [write_run(tmp_path, pop.RCTP_GRPO, s) for s in (3, 4)],
        pop.SFT_GRPO: [write_run(tmp_path, pop.SFT_GRPO, s) for s in (0, 1, 2)],
    }
    out = rv.evaluate(next(r for r in RULES if r.id == "T2"), pop.load_arms(found), {})
    assert out.seeds == () and out.interval is None
    assert out.verdict == "inconclusive" and out.note == "no seed has a run of every arm"


# -- the gates and bookkeeping checks ----------------------------------------------------


def test_entropy_gate_fails_at_twenty_percent(tmp_path):
    found = {pop.RCTP_RC: [], pop.TEMP_MATCHED: []}
    for s in range(3):
        found[pop.RCTP_RC].append(write_run(tmp_path, pop.RCTP_RC, s, k=3, entropy=1.0))
        found[pop.TEMP_MATCHED].append(write_run(tmp_path, pop.TEMP_MATCHED, s, k=1, entropy=1.2))
    results, checks = rt.outcomes(pop.load_arms(found))
    gate = next(c for c in checks if c.id == f"B4 {pop.TEMP_MATCHED}")
    assert gate.value == pytest.approx(0.2) and not gate.passed
    e1 = next(o for o in results if o.rule.id == "E1")
    assert e1.verdict == "inconclusive" and e1.note.startswith("gate B4")
    assert e1.interval.low > 0  # it would hold with matched entropy


def test_stratified_gate_needs_exact_halves(tmp_path):
    strat = {
        s: load_run(write_run(tmp_path, "strat", s, goals=("high", "low", "low", "low")))
        for s in range(3)
    }
    iid = {s: load_run(write_run(tmp_path, "iid", s)) for s in range(3)}
    check = rc.goals_balanced(strat, iid)
    assert check.value == 0 and not check.passed
    strat = {s: load_run(write_run(tmp_path, "strat2", s)) for s in range(3)}
    assert rc.goals_balanced(strat, iid).passed


def test_binomial_half_by_hand():
    # N = 10,000: 0.5 ∓ 2.575829·√(.25/10,000) = 0.5 ∓ .012879
    assert rc.binomial_half(10_000) == pytest.approx((0.487121, 0.512879), rel=1e-5)


def test_bookkeeping_checks(tmp_path):
    d = write_run(tmp_path, pop.RCTP_RC, 0)
    rows = [{"step": 0}] + [
        # z .5, G 4: spread range (1 − z)·[2, 4/√3] = [1, 1.1547]; σ² − bound = .01 > 0
        {
            "step": s,
            "adv/gap_mean": g,
            "group/zero_var_frac": 0.5,
            "group/var_mean": 0.11,
            "theory/var_bound_iid": 0.1,
            "reward/success_low": 0.0,
        }
        for s, g in ((1, 1.0), (2, 1.154))
    ]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = {0: load_run(d)}
    b1, b2, b3 = rc.bound_gap(runs), rc.spread_restates_collapse(runs), rc.low_goal_alive(runs)
    assert b1.passed and b1.value == pytest.approx(0.01)
    assert b2.passed and b2.value == pytest.approx((2.0 + 2.308) / 2)  # c̄ = gap / (1 − z)
    assert not b3.passed and b3.value == 0  # the low goal never succeeds: flagged


def test_markdown_lists_every_rule_and_check(tmp_path):
    found = {pop.RCTP_RC: [write_run(tmp_path, pop.RCTP_RC, s) for s in range(3)]}
    text = rt.markdown(rt.report(pop.load_arms(found)))
    for rule in RULES:
        assert f"| {rule.id} |" in text
    assert "| B1 |" in text and "| B3 |" in text


def test_plan_scales_contrasts():
    from analysis.paired_design import Components

    c = Components(0.0, 0.0, 0.25)
    by_id = {rid: m for rid, m, _ in rt.planned(c, 1000, 3)}
    # a main effect (weights ±½ on 4 cells, Σw² = 1) has half a difference's variance:
    # MDE ratio 1/√2 at the same df
    assert by_id["T3"] / by_id["T1"] == pytest.approx(2**-0.5)


def test_population_std_premise():
    from types import SimpleNamespace as NS

    assert rc.population_std(NS(config={"algo": {"adv_estimator": "grpo"}}))
    assert rc.population_std(NS(config={"algo": {"adv_scale": "group"}}))  # older configs
    assert not rc.population_std(NS(config={"algo": {"adv_scale": "none"}}))
    assert not rc.population_std(NS(config={"algo": {"adv_estimator": "rloo"}}))
    assert not rc.population_std(NS(config={"algo": {"adv_estimator": "grpo", "adv_ddof": 1}}))
