"""analysis.campaigns.regime_separation.tables: the separation study's verdict and half-life blocks,
with no run of its arms (every rule inconclusive) and on constructed run folders whose
verdicts and half-lives are known by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy import stats

from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_separation import tables as st
from analysis.campaigns.regime_separation import verdicts as sep

TASKS = tuple(f"t{i}" for i in range(12))
NINE = (1,) * 9 + (0,) * 3
"""High-goal reward per task of the anchored arm: 9 of 12 tasks succeed."""
HALF = (1, 0) * 6


def write_run(
    root: Path, preset: str, seed: int, high: tuple, low: tuple | None, between, frac=0.5
) -> None:
    """A finished run: evaluations at steps 0, 25, …, 200 (per task reward ``high[i]`` under
    the high goal, ``low[i]`` under the low goal when given, every step) and training steps
    1–200 logging ``group/between_frac`` = ``between(step)`` and ``reward/high_frac``."""
    d = root / f"{preset}-s{seed}"
    (d / "eval").mkdir(parents=True)
    config = {"preset": preset, "run": {"seed": seed}, "algo": {"eval_condition": "high"}}
    (d / "config.json").write_text(json.dumps(config))
    rows = [{"step": 0}] + [
        {"step": s, "group/between_frac": between(s), "reward/high_frac": frac}
        for s in range(1, 201)
    ]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "rollouts.jsonl").write_text("")
    goals = (("high", high),) + ((("low", low),) if low is not None else ())
    conds = {
        g: {"per_task": [{"task_id": t, "reward": y} for t, y in zip(TASKS, ys, strict=True)]}
        for g, ys in goals
    }
    for step in range(0, 201, 25):
        (d / "eval" / f"step_{step}.json").write_text(json.dumps({"conditions": conds}))
    (d / "summary.json").write_text("{}")


def _cells(markdown: str) -> dict[str, list[str]]:
    """First cell -> the row's cells, for every table row below a header."""
    out = {}
    for line in markdown.splitlines():
        if line.startswith("| ") and not line.startswith("| rule ") and "---" not in line:
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            out[cells[0]] = cells
    return out


def test_no_run_of_the_study_every_rule_inconclusive_and_named(tmp_path):
    verdicts = _cells(st.verdicts_markdown(tmp_path))
    assert list(verdicts) == [r.id for r in sep.RULES]  # all 21, in registered order
    assert len(verdicts) == 21
    col = st.HEADER.index("verdict")
    for rid, cells in verdicts.items():
        assert cells[col].startswith("inconclusive (n = 0 seeds; not yet run: "), rid
    assert verdicts["X3s"][col].endswith("regime-rcgrpo-goalnorm, regime-rcgrpo)")
    half = _cells(st.half_life_markdown(tmp_path))
    assert list(half)[1:] == list(st.HALF_LIFE_ARMS)
    assert all(half[a][2] == "not yet run" for a in st.HALF_LIFE_ARMS)
    assert "undefined: no finished SFT + RC run" in st.half_life_markdown(tmp_path)
    tex = st.verdicts_latex(tmp_path)
    assert "\\label{tab:separation-verdicts}" in tex
    assert tex.count("inconclusive (n = 0 seeds") == 21


@pytest.fixture
def study(tmp_path) -> Path:
    # anchored: separation .75 on seeds 3-5, between-goal share .5 throughout (never reaches
    # the level); RC-GRPO and within-goal normalisation: the same reward on every task and
    # step, RC-GRPO's share .5 until step 20 / 30 / 40 then .0625; β = 1 on seeds 3, 4 only;
    # G = 4 on seed 3, one goal; SFT + RC at .125 throughout: the goal-blind level is .125
    for s, switch in zip((3, 4, 5), (20, 30, 40), strict=True):
        write_run(tmp_path, sep.ANCHORED, s, NINE, (0,) * 12, lambda t: 0.5)
        write_run(tmp_path, sep.RC, s, HALF, HALF, lambda t, k=switch: 0.5 if t <= k else 0.0625)
        write_run(tmp_path, sep.GOALNORM, s, HALF, HALF, lambda t: 0.0625)
        write_run(tmp_path, pop.SFT_RC, s, HALF, HALF, lambda t: 0.125)
    for s in (3, 4):
        write_run(tmp_path, sep.BETA1, s, HALF, HALF, lambda t: 0.5)
    write_run(tmp_path, sep.G4, 3, HALF, None, lambda t: 0.0, frac=1.0)
    return tmp_path


def test_verdicts_on_constructed_runs_hand_worked(study):
    # X1c: separation .75 every seed, task component alone: MS_A = 3/11 * 2.25, SE = √(MS_A
    # / 36) = .1306, t = 4.98 on 11 df, p < .001, the only tested rule of Q1 -> holds.
    # X3s, X3f: the difference is 0 on every task, SE 0 -> p = 1, TOST p = 0: equivalent.
    # X4cs = X4cf (every step alike): d per task = NINE - HALF = (0,1,0,1,0,1,0,1,0,0,-1,0),
    # mean .25, Σ(d - .25)² = 4.25, MS_A = 3 · 4.25 / 11, SE = √(MS_A / 36) = .1794,
    # t = 1.393 on 11 df; Holm over the two tested rules of the family: 2p
    ds = {d.rule.id: d for d in st.decisions(st.separation_arms(study))}
    cell = {rid: st.verdict_cell(d) for rid, d in ds.items()}
    assert cell["X1c"] == "holds"
    assert ds["X1c"].p < 0.001 and ds["X1c"].p_holm == ds["X1c"].p
    assert cell["X3s"] == cell["X3f"] == "equivalent within ±5 points"
    assert ds["X3f"].p == 1.0 and ds["X3f"].p_tost_holm == 0.0
    se = math.sqrt(3 * 4.25 / 11 / 36)
    p = 2 * stats.t.sf(0.25 / se, 11)
    for rid in ("X4cs", "X4cf"):
        assert ds[rid].outcome.interval.mean == pytest.approx(0.25, rel=1e-12)
        assert ds[rid].p == pytest.approx(p, rel=1e-6)
        assert ds[rid].p_holm == pytest.approx(2 * p, rel=1e-6)
        assert cell[rid] == "inconclusive"  # tested: neither holds nor equivalent
    assert cell["X1a"] == cell["X4af"] == "inconclusive (n = 2 seeds)"
    assert cell["X4df"] == "inconclusive (n = 1 seed)"
    assert cell["X1b"] == "inconclusive (n = 0 seeds; not yet run: regime-rcgrpo-beta3)"
    assert cell["X2cs"] == "inconclusive (n = 0 seeds; not yet run: regime-rctp-grpo)"
    rows = _cells(st.verdicts_markdown(study))
    assert rows["X1c"][st.HEADER.index("n seeds")] == "3 (3, 4, 5)"
    assert rows["X1c"][st.HEADER.index("tasks")] == "12"
    assert rows["X1c"][st.HEADER.index("estimate [95% CI]")].startswith("0.750 [")
    assert rows["X3s"][st.HEADER.index("p TOST Holm")] == "< 0.001"


def test_half_lives_on_constructed_runs_hand_worked(study):
    # level .125. RC-GRPO: .5 up to step k, then .0625; the 10-step trailing mean after n low
    # steps is (5 - .4375 n) / 10 <= .125 from n = 9: steps 29, 39, 49, mean 39, sd 10,
    # half-width t(.975, 2) · 10 / √3 = 24.84. Within-goal normalisation: .0625 from the
    # first full window, step 10. SFT + RC: .125 = the level, step 10. Anchored, β = 1: never.
    text = st.half_life_markdown(study)
    assert "Goal-blind level: 0.125" in text
    rows = _cells(text)
    assert rows[sep.RC][2:] == [
        "3 of 3",
        "39.0 [14.2, 63.8]",
        "3",
        "s3: 29, s4: 39, s5: 49",
    ]
    assert rows[sep.GOALNORM][2:5] == ["3 of 3", "10.0 [10.0, 10.0]", "3"]
    assert rows[pop.SFT_RC][2:4] == ["3 of 3", "10.0 [10.0, 10.0]"]
    assert rows[sep.ANCHORED][2:] == [
        "0 of 3",
        "not reached",
        "0",
        "s3: not reached, s4: not reached, s5: not reached",
    ]
    assert rows[sep.BETA1][1:3] == ["3, 4", "0 of 2"]
    assert rows[sep.G4][1:3] == ["3", "one goal: no between-goal share"]
    assert rows[sep.BETA3][2] == "not yet run"
