"""Theory figure modules: contract, symbol-labelled axes, and one law read off each figure."""

import importlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

NAMES = ("collapse", "gradnorm", "variance", "separation_entropy", "dynamics")


def lines_by_label(ax):
    return {line.get_label(): np.asarray(line.get_ydata(), float) for line in ax.get_lines()}


@pytest.fixture(scope="module")
def figures():
    out = {}
    for name in NAMES:
        module = importlib.import_module(f"analysis.figures.fig_theory_{name}")
        assert module.REQUIRES == () and len(module.CAPTION) > 40
        out[name] = module.make_figure({})
    yield out
    for fig in out.values():
        plt.close(fig)


def test_axes_labelled_with_symbols(figures):
    for name, fig in figures.items():
        labelled = [ax for ax in fig.axes if ax.get_xlabel() and ax.get_ylabel()]
        assert labelled, name
        assert any("$" in ax.get_xlabel() + ax.get_ylabel() for ax in labelled), name


def test_laws_visible_in_figures(figures):
    tree_ax = figures["collapse"].axes[0]
    lines = lines_by_label(tree_ax)
    exact = lines[r"exact $P(\tau_1=\dots=\tau_G)$"]
    assert np.all(exact >= lines[r"$(1-T\varepsilon_{sft})^G$"] - 1e-12)  # Prop 4.2, T eps <= 1
    grad = lines_by_label(figures["gradnorm"].axes[0])
    assert np.all(grad[r"$E\,\|g\|$ (exact)"] <= grad[r"$\sqrt{2T}\,(1-P(R_1=\dots=R_G))$"] + 1e-12)
    var = lines_by_label(figures["variance"].axes[0])
    assert np.all(
        var["i.i.d. tokens (Prop. 4.3), exact"]
        >= var[r"bound $\kappa\Delta^2=0.2\Delta^2$"] - 1e-12
    )
    dyn = lines_by_label(figures["dynamics"].axes[2])
    assert dyn["RCTP + RC-GRPO"][-1] > 0.19 and dyn["GRPO"][100] < 0.01
