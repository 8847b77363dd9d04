"""The per-step instrumentation grid: one axis per panel, a line per (run, logged metric)."""

from __future__ import annotations

import json

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from analysis.notebook.instrumentation import PANELS, Panel, plot_instrumentation  # noqa: E402
from analysis.runs import load_run  # noqa: E402


def write(tmp_path, name, rows):
    run = tmp_path / name
    run.mkdir()
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return load_run(run)


def test_lines_per_run_and_metric(tmp_path):
    rows = [{"step": 0, "reward/eval_success": 0.1}] + [
        {"step": s, "reward/mean": 0.1 * s, "reward/mean_high": 0.2 * s, "policy/kl_ref": 0.01}
        for s in (1, 2, 3)
    ]
    a = write(tmp_path, "a", rows)
    b = write(tmp_path, "b", [{"step": 1, "reward/mean": 0.5}, {"step": 2, "reward/mean": None}])
    fig = plot_instrumentation([a, b])
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(PANELS) == 8
    reward = axes[0]
    labels = [line.get_label() for line in reward.get_lines()]
    # step 0 (evaluation only) and metrics a run never logged are left out
    assert labels == ["a: all", "a: high", "b: all"]
    assert list(reward.get_lines()[0].get_xdata()) == [1, 2, 3]
    assert list(reward.get_lines()[2].get_xdata()) == [1]  # b's null at step 2 dropped
    grad = axes[7]
    assert grad.get_lines() == [] and grad.texts[0].get_text() == "not logged"
    plt.close(fig)


def test_single_run_labels_and_custom_panels(tmp_path):
    run = write(tmp_path, "only", [{"step": 1, "policy/grad_norm": 2.0}])
    panels = (Panel("g", "norm", (("policy/grad_norm", "pre-clip"),)),)
    fig = plot_instrumentation([run], panels, ncols=3)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(fig.axes) == 3 and len(visible) == 1
    assert [line.get_label() for line in visible[0].get_lines()] == ["pre-clip"]
    plt.close(fig)
    with pytest.raises(ValueError, match="runs"):
        plot_instrumentation([])
    with pytest.raises(ValueError, match="ncols"):
        plot_instrumentation([run], ncols=0)
