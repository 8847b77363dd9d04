"""Every line style, band, interval and point label a figure draws is defined on the figure
itself, not only in its JSON sidecar (issue 49, item 6), on the committed runs and reports
(so marked ``results``: each test draws a figure from them; make figures-check runs them)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from analysis.campaigns.pool import fig_rl_collapse
from analysis.campaigns.regime_d10 import fig_regime_decision_kinds, fig_regime_factorial
from analysis.campaigns.regime_design import fig_regime_g4
from analysis.figures import dynamics as dyn  # noqa: E402

pytestmark = pytest.mark.results


def _texts(legend) -> list[str]:
    return [t.get_text() for t in legend.get_texts()]


@pytest.fixture
def close():
    yield
    plt.close("all")


def test_rl_collapse_keys_its_styles_and_bands(close):
    from analysis.campaign.find import find_runs
    from analysis.campaigns.pool.driver import build_campaign

    found = find_runs(build_campaign(), ("factorial",))["factorial"]
    if any(p is None for p in found.values()):
        pytest.skip("the factorial campaign is not all committed")
    fig = fig_rl_collapse.make_figure({"factorial": list(found.values())})
    # (a) solid observed / dashed predicted; (d) solid high goal / dotted low goal
    key_a, key_d = fig.axes[0].get_legend(), fig.axes[3].get_legend()
    assert [h.get_linestyle() for h in key_a.legend_handles] == ["-", "--"]
    assert _texts(key_a) == ["observed", "predicted  $s^G + (1-s)^G$"]
    assert [h.get_linestyle() for h in key_d.legend_handles] == ["-", ":"]
    assert _texts(key_d) == ["high goal (GRPO arms: all rollouts)", "low goal (RC arms)"]
    # the figure legend: the four arms (colour), then the band
    shown = _texts(fig.legends[0])
    assert (
        len(shown) == 5 and shown[-1] == f"seed mean, 95% t-band; {dyn.SMOOTH}-step trailing mean"
    )


def test_regime_factorial_states_its_intervals(close):
    fig = fig_regime_factorial.make_figure({})
    assert fig.get_supxlabel() == fig_regime_factorial.INTERVALS
    assert "(a) band = 95% t-interval" in fig.get_supxlabel()
    assert "error bar = 95% t-interval" in fig.get_supxlabel()


def test_regime_g4_defines_its_point_labels_and_thresholds(close):
    fig = fig_regime_g4.make_figure({})
    labels = [t.get_text() for t in fig.axes[0].texts if t.get_text() != "(a)"]
    assert sorted(labels) == ["v10", "v7", "v8", "v9"]
    # the title's second line says what every point label is
    assert "v7, v10, v9, v8: RCTP-FT variants 7, 10, 9, 8" in fig.get_suptitle()
    # both dotted threshold lines are in panel (a)'s legend, at G4's thresholds 0.10 / 0.15
    assert _texts(fig.axes[0].get_legend())[2:] == [
        "G4 needs separation ≥ 0.10",
        "G4 needs headroom ≥ 0.15",
    ]
    dotted = [ln.get_ydata()[0] for ln in fig.axes[0].lines if ln.get_linestyle() == ":"]
    assert dotted == [0.10, 0.15]
    assert _texts(fig.axes[2].get_legend()) == ["successes (± 1 SE)", "failures (± 1 SE)"]


def test_regime_decision_kinds_keys_its_arms_goals_and_band(close):
    mod = fig_regime_decision_kinds
    fig = mod.make_figure({})
    # every arm drawn is in panel (a)'s key with its n; RC-GRPO (committed on the five
    # admitted seeds, both goals evaluated) has a solid and a dotted curve in every panel
    arms = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert arms[0] == f"RCTP-FT + RC-GRPO (n={len(mod.pop.ADMITTED)})"
    assert len(arms) == len(mod.dyn.by_preset(mod.committed_runs(mod.ARMS)))
    for ax in fig.axes[:3]:
        assert [ln.get_linestyle() for ln in ax.lines][:2] == ["-", ":"]
    assert _texts(fig.legends[0]) == ["high goal", "low goal", mod.BAND_KEY]
