"""fig_regime_decision_kinds: the per-kind extraction on a hand-made evaluation, and the
figure on constructed runs (an arm with a low-goal evaluation, one without)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from analysis.campaigns.regime_d10 import fig_regime_decision_kinds as fig_kinds  # noqa: E402
from analysis.campaigns.regime_separation import verdicts as sep  # noqa: E402
from analysis.runs import load_run  # noqa: E402


def _kinds(rename: tuple, resolve: tuple, stop: tuple) -> dict:
    """A ``decisions`` block: (successes, n) per kind, as the evaluator writes it."""
    per = {
        k: {"mean": s / n if n else 0.0, "successes": s, "n": n}
        for k, (s, n) in zip(fig_kinds.KINDS, (rename, resolve, stop), strict=True)
    }
    return {"right": {"successes": 0, "n": 0}, "per_kind": per}


def evaluation(high: tuple, low: tuple | None) -> dict:
    """One ``eval/step_N.json``: ``high`` / ``low`` = ((s, n) of each kind) per goal."""
    goals = (("high", high),) + ((("low", low),) if low is not None else ())
    return {"step": 0, "conditions": {g: {"decisions": _kinds(*k)} for g, k in goals}}


def test_kind_rates_hand_made_evaluation():
    # the counts of regime-rcgrpo-s3's step 25 under high, with resolve_close never met
    doc = evaluation(((42, 42), (0, 0), (158, 163)), ((21, 42), (0, 0), (143, 163)))
    high = fig_kinds.kind_rates(doc, "high")
    assert high["rename_copy"] == 1.0
    assert math.isnan(high["resolve_close"])  # n = 0: no occurrence, no rate
    assert high["stop_early"] == pytest.approx(158 / 163, rel=1e-15)
    assert fig_kinds.kind_rates(doc, "low")["rename_copy"] == 0.5
    assert fig_kinds.kind_rates(doc, "none") == {}
    only_high = evaluation(((1, 4), (2, 4), (3, 4)), None)
    assert fig_kinds.kind_rates(only_high, "low") == {}


def write_run(root: Path, preset: str, seed: int, low: bool) -> Path:
    """Evaluations at steps 0, 100, 200: under high, rename_copy right on k of 4 at the k-th
    evaluation (0, 1, 2 of 4); under low (when evaluated) always 1 of 4."""
    d = root / f"{preset}-s{seed}"
    (d / "eval").mkdir(parents=True)
    (d / "config.json").write_text(json.dumps({"preset": preset, "run": {"seed": seed}}))
    (d / "metrics.jsonl").write_text(json.dumps({"step": 0}) + "\n")
    (d / "summary.json").write_text("{}")
    for k, step in enumerate((0, 100, 200)):
        doc = evaluation(((k, 4), (4, 4), (4, 4)), ((1, 4), (4, 4), (4, 4)) if low else None)
        (d / "eval" / f"step_{step}.json").write_text(json.dumps(doc))
    return d


def test_kind_curves_read_every_evaluation_in_step_order(tmp_path):
    run = load_run(write_run(tmp_path, sep.RC, 3, low=True))
    high, low = fig_kinds.kind_curves(run, "high"), fig_kinds.kind_curves(run, "low")
    assert high["rename_copy"].to_dict() == {0: 0.0, 100: 0.25, 200: 0.5}
    assert low["rename_copy"].to_dict() == {0: 0.25, 100: 0.25, 200: 0.25}
    assert sorted(high) == sorted(fig_kinds.KINDS)


def test_figure_draws_both_goals_and_keys_an_arm_without_low(tmp_path, monkeypatch):
    paths = [write_run(tmp_path, sep.RC, s, low=True) for s in (3, 4)]
    paths.append(write_run(tmp_path, sep.G4, 3, low=False))
    monkeypatch.setattr(fig_kinds, "committed_runs", lambda presets: paths)
    fig = fig_kinds.make_figure({})
    try:
        axes = fig.axes[:3]
        # per panel: RC-GRPO high (solid) and low (dotted), G = 4 high only
        for ax in axes:
            assert [ln.get_linestyle() for ln in ax.lines] == ["-", ":", "-"]
        assert list(axes[0].lines[0].get_ydata()) == [0.0, 0.25, 0.5]  # both seeds alike
        legend = [t.get_text() for t in axes[0].get_legend().get_texts()]
        assert legend == [
            "RCTP-FT + RC-GRPO (n=2)",
            "RCTP-FT + GRPO, G = 4 (n=1, high goal only)",
        ]
        keys = [t.get_text() for t in fig.legends[0].get_texts()]
        assert keys == ["high goal", "low goal", fig_kinds.BAND_KEY]
        assert [ax.get_title() for ax in axes] == [fig_kinds.TITLES[k] for k in fig_kinds.KINDS]
    finally:
        plt.close(fig)


def test_a_run_without_goal_token_is_drawn_at_its_one_condition_and_keyed_so(tmp_path):
    """SFT + GRPO evaluates under condition ``none``: its curve is the solid one, its key
    says it has no goal token; draw() takes any kinds in the order of their titles."""
    d = write_run(tmp_path, "collapse-grpo", 3, low=False)
    for path in (d / "eval").iterdir():
        doc = json.loads(path.read_text())
        doc["conditions"] = {"none": doc["conditions"]["high"]}
        path.write_text(json.dumps(doc))
    run = load_run(d)
    assert fig_kinds.kind_curves(run, "high")["rename_copy"].to_dict() == {
        0: 0.0,
        100: 0.25,
        200: 0.5,
    }
    assert fig_kinds.kind_curves(run, "low") == {}
    titles = {"stop_early": "stop", "rename_copy": "rename"}
    fig = fig_kinds.draw([d], titles, key="upper left")
    try:
        assert [ax.get_title() for ax in fig.axes[:2]] == ["stop", "rename"]
        assert [ln.get_linestyle() for ln in fig.axes[1].lines] == ["-"]
        legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert legend == ["SFT + GRPO (n=1, no goal token)"]
    finally:
        plt.close(fig)
