"""The tiny model's numbers that ``smollm2-collapse`` sets its own beside, each read from where it
is committed (``docs/protocols/smollm2-collapse.md``, "Instruments"):

=====================================  ===============================================================
quantity                               committed source
=====================================  ===============================================================
SFT / RCTP-FT greedy held-out success  ``results/collapse/collapse-grpo-s*``, ``collapse-rcgrpo-s*``
                                       step-0 evaluations (1,000 tasks; RC-GRPO's under both goals)
the base's sampled success, mix tasks  ``results/collapse/rctp-collapse-s*/data.json``
goal effect, identical share, ρ̂        ``results/diagnostics/transfer-rctp-collapse-s{3,4,5}.json``
                                       (regime-d10: ``transfer-rctp-v11-s{3,4,5}.json``)
identical share in RL, steps 1–10      RC-GRPO's low-goal slots against RCTP-FT + GRPO's
                                       (:func:`analysis.campaigns.collapse.token.identical_share`)
zero-variance shares                   ``group/*`` metrics of ``collapse-grpo-s*``,
                                       ``collapse-rctp-grpo-s*``
verdicts K1, K2, K3, K6, M2            :func:`analysis.campaigns.collapse.tables.decisions`
K3s, M2s predicted                     :func:`analysis.campaigns.collapse.transfer_table.all_contrasts`
=====================================  ===============================================================

Every function returns display cells ({key: text}); a value over seeds is shown as its mean with
the seeds' range and n (:func:`spread`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaigns.collapse import verdicts as kv
from analysis.campaigns.collapse.driver import SEEDS
from analysis.campaigns.smollm2_collapse import gates
from analysis.runs import is_finished, load_run
from analysis.verdicts import rules as rv

RESULTS = REPO_ROOT / "results" / "collapse"
DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"
DIAGNOSED = (3, 4, 5)
"""The collapse campaign's seeds whose RCTP-FT has a transfer diagnostic."""


def spread(values: Sequence[float], digits: int = 3) -> str:
    """``mean (min to max, n = k)`` over the finite values; ``—`` when there are none."""
    x = [v for v in values if v is not None and math.isfinite(v)]
    if not x:
        return "—"
    mean = sum(x) / len(x)
    if len(x) == 1:
        return f"{mean:.{digits}f} (n = 1)"
    return f"{mean:.{digits}f} ({min(x):.{digits}f} to {max(x):.{digits}f}, n = {len(x)})"


def _runs(preset: str, root: Path) -> list:
    folders = (root / f"{preset}-s{s}" for s in SEEDS)
    return [load_run(f) for f in folders if is_finished(f)]


def _step0(run, goal: str | None = None) -> float:
    return float(rv.evaluation(run, "first", goal)["overall"]["reward"]["mean"])


def stage1(root: Path = RESULTS) -> dict[str, str]:
    """Greedy held-out success at step 0 (SFT; RCTP-FT under each goal) and the base's sampled
    success on the RCTP-FT mix's tasks."""
    rc = _runs(kv.RC, root)
    weak = []
    for s in SEEDS:
        folder = root / f"rctp-collapse-s{s}"
        if is_finished(folder):
            weak.append(load_run(folder).data.get("combined", {}).get("weak_policy_success_rate"))
    return {
        "sft_success": spread([_step0(r) for r in _runs(kv.SFT_GRPO, root)]),
        "rctp_high": spread([_step0(r, "high") for r in rc]),
        "rctp_low": spread([_step0(r, "low") for r in rc]),
        "base_sampled": spread(weak),
        "matched_success": "— (the tiny SFT learned from the demonstrator: no matched SFT)",
    }


def _reports(prefix: str, diagnostics: Path) -> list[dict]:
    return [
        r
        for s in DIAGNOSED
        if (r := gates.diagnostic(diagnostics / f"transfer-{prefix}-s{s}.json")) is not None
    ]


def goal_effect(diagnostics: Path = DIAGNOSTICS) -> dict[str, str]:
    """The transfer diagnostic's numbers on the diagnosed collapse RCTP-FT checkpoints, and ρ̂
    on regime-d10's (a report made before the probe scored the decision token says so)."""
    reps = _reports("rctp-collapse", diagnostics)
    any_kind = [r["goal_effect"]["kinds"]["any"] for r in reps]
    succ = [r["goal_effect"]["success"] for r in reps]
    whole = " (whole-call z)" if any("gradient" not in r["transfer"] for r in reps) else ""
    grads = [r["transfer"]["gradient"] for r in reps if "gradient" in r["transfer"]]
    regime = _reports("rctp-v11", diagnostics)
    return {
        "success_high_low": f"{spread([x['p_high'] for x in succ])} / {spread([x['p_low'] for x in succ])}",
        "success_diff": spread([x["diff"] for x in succ], 4),
        "right_high_low": f"{spread([x['p_high'] for x in any_kind])} / {spread([x['p_low'] for x in any_kind])}",
        "right_diff": spread([x["diff"] for x in any_kind], 4),
        "reading": ", ".join(gates.reading(x) for x in any_kind) or "—",
        "identical": spread([r["goal_effect"]["identical_share"]["identical"] for r in reps]),
        "rho": spread([r["transfer"]["estimate"] for r in reps]) + whole,
        "cos_gain": (
            f"{spread([g['cosine']['estimate'] for g in grads])} / "
            f"{spread([g['gain_ratio']['estimate'] for g in grads])}"
            if grads
            else "— (reports made before the gradient form)"
        ),
        "rho_regime": spread([r["transfer"]["estimate"] for r in regime]),
    }


def rl_start(root: Path = RESULTS) -> dict[str, str]:
    """Identical share of RC-GRPO's low-goal slots against RCTP-FT + GRPO's over steps 1–10,
    and the zero-variance shares at the start and over training."""
    from analysis.campaigns.collapse.token import EARLY, identical_share

    same = []
    for s in SEEDS:
        rc, ref = root / f"{kv.RC}-s{s}", root / f"{kv.RCTP_GRPO}-s{s}"
        if is_finished(rc) and is_finished(ref):
            same.append(
                identical_share(load_run(rc).rollouts, load_run(ref).rollouts, "low", EARLY)
            )
    out = {"identical_rl": spread(same)}
    for key, preset in (("sft", kv.SFT_GRPO), ("rctp", kv.RCTP_GRPO), ("rc", kv.RC)):
        runs = _runs(preset, root)
        first = [gates.group_shares(r, gates.START) for r in runs]
        whole = [gates.group_shares(r) for r in runs]
        out[f"{key}_start"] = (
            f"{spread([x['zero_var'] for x in first])} / {spread([x['predicted'] for x in first])}"
        )
        out[f"{key}_training"] = (
            f"{spread([x['zero_var'] for x in whole])} / {spread([x['predicted'] for x in whole])}"
        )
        out[f"{key}_all_fail"] = spread([x["all_fail"] for x in whole])
        if key == "sft":  # S3's quantity; a reported number there, not a rule
            excess = spread([x["zero_var"] - x["predicted"] for x in whole])
            out["S3"] = f"{excess} (reported beside K1, not a rule)"
    out["Q2s"] = out["Q2f"] = "— (no rule: K5 and X2 compare with a confounded SFT)"
    return out


TINY_RULES = {"S1": "K1", "S2": "K2", "Q1s": "K3s", "Q1f": "K3f", "Q3s": "K6s", "Q3f": "K6f"}
TINY_RULES |= {"Q4s": "M2s", "Q4f": "M2f"}
"""The SmolLM2 rules whose tiny analogue is a registered rule of the collapse campaign."""


def verdicts(root: Path = RESULTS) -> dict[str, str]:
    """{SmolLM2 rule: its tiny analogue's estimate [95% CI] and verdict} (200 steps, 8 prompts a
    step, lr 1e-5; speed over steps 25–175)."""
    from analysis.campaigns.collapse import tables as ct

    decided = {d.rule.id: d for d in ct.decisions(ct.collapse_arms(root))}
    out = {}
    for rule, tiny in TINY_RULES.items():
        d = decided[tiny]
        iv = d.outcome.interval
        est = "—" if iv is None else f"{iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"
        out[rule] = f"{tiny}: {est}, {d.verdict}"
    return out


def predictions(root: Path = RESULTS, diagnostics: Path = DIAGNOSTICS) -> dict[str, str]:
    """The transfer model's leave-one-seed-out noise-bound prediction of K3s and M2s (training
    speed, mean over seeds) beside the measured training-speed contrast."""
    from analysis.campaigns.collapse import transfer_table as tt

    measured = tt.rhos(diagnostics)
    pooled = sum(measured.values()) / len(measured) if measured else 1.0
    per_seed = tt.all_contrasts(root, {s: measured.get(s, pooled) for s in SEEDS})
    out = {}
    for rule, tiny in (("Q1", "K3s"), ("Q4", "M2s")):
        pred = [p[tiny]["leave-one-seed-out"]["noise"] for p in per_seed.values()]
        seen = [p[tiny]["measured"] for p in per_seed.values()]
        out[rule] = f"{tiny}: predicted {spread(pred)}, measured {spread(seen)} (training speed)"
    return out
