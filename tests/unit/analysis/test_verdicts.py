"""Pre-registered verdicts (analysis/campaigns/pool/verdicts.py): the decision rule by hand, and fake run
folders that make every rule come out holds / does not hold / inconclusive."""

from __future__ import annotations

import json
import math

import pytest

from analysis.campaigns.pool.report import verdicts_tex
from analysis.campaigns.pool.verdicts import (
    ENTROPY,
    HIGHTEMP,
    RCTP,
    RCTP_GRPO,
    RCTP_RC,
    RCTP_STRAT,
    RULES,
    SFT_GRPO,
    SFT_RC,
    decide,
    outcomes,
)
from analysis.report.verdict_table import verdicts_markdown
from analysis.runs import load_run, seed_of
from analysis.runs.sources import layout_resolver
from analysis.stats import Estimate

STEPS = 4  # the 25% windows hold one step each: early = step 1, late = step 4


def write_run(root, group: str, seed: int, steps: list[dict]) -> None:
    """A finished run folder ``<group>-s<seed>``: step 0 (no training metrics), then
    ``steps`` as training steps 1.."""
    d = root / f"{group}-s{seed}"
    d.mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"run": {"seed": seed}}))
    rows = [{"step": 0}] + [{"step": s, **m} for s, m in enumerate(steps, start=1)]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "summary.json").write_text("{}")


def flat(**metrics: float) -> list[dict]:
    return [dict(metrics) for _ in range(STEPS)]


# claim id -> x -> {arm: training-step rows} whose per-seed value is exactly x (by hand)
REALISE = {
    "1a": lambda x: {SFT_GRPO: flat(**{"group/zero_var_frac": x})},
    # early = 1, late = 1 + x: late / early - 1 = x
    "1b": lambda x: {SFT_GRPO: [{"adv/gap_mean": g} for g in (1.0, 1.0, 1.0, 1.0 + x)]},
    "2": lambda x: {RCTP: flat(**{"sft/eval_combined": 0.6, "sft/eval_combined_low": 0.6 - x})},
    "3a": lambda x: {RCTP_RC: flat(**{"group/var_mean": 0.1 + x, "theory/var_bound_iid": 0.1})},
    "3b": lambda x: {
        RCTP_RC: flat(**{"adv/gap_mean": 1.0 + x}),
        RCTP_GRPO: flat(**{"adv/gap_mean": 1.0}),
    },
    "3c": lambda x: {
        RCTP_RC: flat(**{"adv/gap_mean": 1.0 + x}),
        SFT_GRPO: flat(**{"adv/gap_mean": 1.0}),
    },
    "4a": lambda x: {
        RCTP_RC: flat(**{"policy/entropy_high": 0.5 * (1 + x)}),
        RCTP_GRPO: flat(**{"policy/entropy_high": 0.5}),
    },
    "4b": lambda x: {RCTP_RC: flat(**{"group/between_frac": x})},
    # RCTP-FT cells 0.5 + x, SFT cells 0.5: ½[(rg - sg) + (rr - sr)] = x and rg - sr = x
    "5a": lambda x: {
        RCTP_GRPO: flat(**{"reward/eval_success": 0.5 + x}),
        RCTP_RC: flat(**{"reward/eval_success": 0.5 + x}),
        SFT_GRPO: flat(**{"reward/eval_success": 0.5}),
        SFT_RC: flat(**{"reward/eval_success": 0.5}),
    },
    "5c": lambda x: {
        RCTP_RC: flat(**{"reward/eval_success": 0.5 + x}),
        RCTP_GRPO: flat(**{"reward/eval_success": 0.5}),
    },
    "6a": lambda x: {
        RCTP_RC: flat(**{"group/zero_var_frac": 0.3 + x}),
        RCTP_STRAT: flat(**{"group/zero_var_frac": 0.3}),
    },
    "6b": lambda x: {
        RCTP_STRAT: flat(**{"reward/eval_success": 0.5 + x}),
        RCTP_RC: flat(**{"reward/eval_success": 0.5}),
    },
}
REALISE["5b"] = REALISE["5a"]
for _claim, _arm in (("7a", ENTROPY), ("7b", HIGHTEMP)):
    REALISE[_claim] = lambda x, arm=_arm: {
        arm: flat(**{"group/zero_var_frac": 0.3 + x}),
        RCTP_RC: flat(**{"group/zero_var_frac": 0.3}),
    }


def claim_id(rule) -> str:
    return rule.claim.split()[0]


def world(root, rule, values: list[float]) -> None:
    """Runs of every arm of ``rule``, seed i realising per-seed value ``values[i]``."""
    for seed, x in enumerate(values):
        for arm, steps in REALISE[claim_id(rule)](x).items():
            write_run(root, arm, seed, steps)


def side_sign(rule) -> float:
    return 1.0 if rule.side == "above" else -1.0


SCENARIOS = {
    # clearly on the predicted side: mean θ ± 0.2, spread 0.01
    "holds": lambda rule: [rule.threshold + side_sign(rule) * (0.2 + d) for d in (-0.01, 0, 0.01)],
    "does not hold": lambda rule: [
        rule.threshold - side_sign(rule) * (0.2 + d) for d in (-0.01, 0, 0.01)
    ],
    # centred on θ: the interval straddles it
    "inconclusive": lambda rule: [rule.threshold + d for d in (-0.1, 0.0, 0.1)],
}


def test_every_rule_has_a_realiser_and_a_valid_side():
    assert sorted(claim_id(r) for r in RULES) == sorted(REALISE)
    assert {r.side for r in RULES} <= {"above", "below"}


@pytest.mark.parametrize("verdict", list(SCENARIOS))
@pytest.mark.parametrize("rule", RULES, ids=claim_id)
def test_each_rule_comes_out_each_way(rule, verdict, tmp_path):
    values = SCENARIOS[verdict](rule)
    world(tmp_path, rule, values)
    [out] = outcomes(layout_resolver(tmp_path), rules=[rule])
    assert out.seeds == (0, 1, 2) and out.missing == ()
    assert out.values == pytest.approx(values, abs=1e-12)
    assert out.verdict == verdict


@pytest.mark.parametrize("rule", RULES, ids=claim_id)
def test_two_seeds_are_inconclusive_however_clear(rule, tmp_path):
    world(tmp_path, rule, SCENARIOS["holds"](rule)[:2])
    [out] = outcomes(layout_resolver(tmp_path), rules=[rule])
    assert out.estimate.n == 2 and out.verdict == "inconclusive"


def test_hand_computed_interval_and_pairing_by_seed(tmp_path):
    # 5c: RC-GRPO - GRPO at seeds 0, 1, 2 = 0.03, 0.05, 0.07 (seed 3 of RC-GRPO has no GRPO
    # partner and is dropped). Mean 0.05, s = 0.02, t_{0.975, 2} = 4.302653:
    # half-width 4.302653 * 0.02 / sqrt(3) = 0.049683 -> [0.000317, 0.099683] contains 0.02
    rule = next(r for r in RULES if claim_id(r) == "5c")
    world(tmp_path, rule, [0.03, 0.05, 0.07])
    write_run(tmp_path, RCTP_RC, 3, flat(**{"reward/eval_success": 0.9}))
    [out] = outcomes(layout_resolver(tmp_path), rules=[rule])
    assert out.seeds == (0, 1, 2)
    assert out.estimate.mean == pytest.approx(0.05)
    assert out.estimate.half_width == pytest.approx(4.302653 * 0.02 / math.sqrt(3), rel=1e-6)
    assert out.verdict == "inconclusive"


def test_decision_rule_by_hand():
    est = Estimate(mean=0.3, half_width=0.1, n=3)  # CI [0.2, 0.4]
    assert decide(est, 0.1, "above") == "holds"
    assert decide(est, 0.5, "above") == "does not hold"
    assert decide(est, 0.3, "above") == "inconclusive"
    assert decide(est, 0.5, "below") == "holds"
    assert decide(est, 0.1, "below") == "does not hold"
    assert decide(Estimate(0.3, 0.1, 3), 0.2, "above") == "inconclusive"  # ℓ = θ: not > θ
    assert decide(Estimate(0.3, 0.1, 2), 0.1, "above") == "inconclusive"  # n < 3
    assert decide(Estimate(0.3, None, 1), 0.1, "above") == "inconclusive"
    assert decide(None, 0.1, "above") == "inconclusive"
    with pytest.raises(ValueError, match="side must be one of"):
        decide(est, 0.1, "over")


def test_missing_arm_is_inconclusive_and_named(tmp_path):
    rule = next(r for r in RULES if claim_id(r) == "6a")
    for seed in range(3):
        write_run(tmp_path, RCTP_RC, seed, flat(**{"group/zero_var_frac": 0.5}))
    [out] = outcomes(layout_resolver(tmp_path), rules=[rule])
    assert (out.missing, out.seeds, out.estimate, out.verdict) == (
        (RCTP_STRAT,),
        (),
        None,
        "inconclusive",
    )


def test_seed_from_config_or_folder_name(tmp_path):
    write_run(tmp_path, "cpu-grpo", 4, flat())
    assert seed_of(load_run(tmp_path / "cpu-grpo-s4")) == 4
    d = tmp_path / "cpu-grpo-s7"
    d.mkdir()
    (d / "config.json").write_text("{}")
    assert seed_of(load_run(d)) == 7
    d = tmp_path / "odd"
    d.mkdir()
    (d / "config.json").write_text("{}")
    with pytest.raises(ValueError, match="no run.seed"):
        seed_of(load_run(d))


def test_tables_render_one_row_per_rule(tmp_path):
    rule = next(r for r in RULES if claim_id(r) == "1a")
    world(tmp_path, rule, [0.7, 0.7, 0.7])  # zero spread: CI [0.7, 0.7] > 0.5
    resolve = layout_resolver(tmp_path)
    md = verdicts_markdown(outcomes(resolve), "").splitlines()
    rows = [line for line in md if line.startswith("| ")]
    assert len(rows) == 1 + len(RULES)
    assert rows[1] == (
        "| 1a SFT + GRPO: many zero-variance groups | share of groups with σ_g = 0, mean "
        "over training | 0.700 [0.700, 0.700] | 3 | one-sample; holds if CI > 0.5 | holds |"
    )
    assert rows[-1].endswith(f"| inconclusive (not yet run: {HIGHTEMP}, {RCTP_RC}) |")
    tex = verdicts_tex(resolve)
    assert r"\label{tab:verdicts}" in tex
    assert r"claim & quantity & estimate [95\% CI] & n & test & verdict \\" in tex
    assert tex.count(r" \\") == 1 + len(RULES)  # header + one row per rule
    assert "0.700 [0.700, 0.700] & 3 & one-sample; holds if CI $>$ 0.5 & holds" in tex
