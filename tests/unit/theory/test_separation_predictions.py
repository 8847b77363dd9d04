"""The β predictions: their laws on the bandit, and the registered tables recomputed.

``docs/protocols/regime-d10-separation-beta.md`` registered the output of
:func:`analysis.theory.separation_predictions.markdown` before the β runs; the protocol is
frozen, so the code must still print what it registered.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analysis.theory import separation_predictions as sp

PROTOCOL = Path(__file__).resolve().parents[3] / "docs/protocols/regime-d10-separation-beta.md"


def test_no_learning_keeps_the_start():
    # η = 0: no update, ε(200) = ε(0) = 0.6 − 0.2, no half-life, s_high stays 0.6
    r = sp.predict((0.2, 0.6), beta=0.1, lr=0.0)
    assert r["eps0"] == pytest.approx(0.4) and r["eps_end"] == pytest.approx(0.4)
    assert r["half_life"] is None and r["s_high_end"] == pytest.approx(0.6)


def test_a_stronger_anchor_keeps_more_separation_and_learns_less():
    weak, strong = (sp.predict((0.25, 0.5), b, lr=0.25) for b in (0.1, 3.0))
    assert weak["half_life"] is not None and strong["half_life"] is None
    assert strong["eps_end"] > weak["eps_end"]
    assert strong["s_high_end"] < weak["s_high_end"]


def test_half_life_falls_with_the_learning_rate():
    grid = sp.half_life_table((0.25, 0.5), lr=0.25)
    row = grid[sp.GRID_BETAS.index(0.1)]
    assert np.all(np.diff(row) < 0)  # twice η, about half the steps


@pytest.mark.slow
@pytest.mark.results  # the fit reads the committed runs of results/regime
def test_the_registered_tables_are_what_the_code_prints():
    from analysis.figures.fig_theory_separation_fit import results

    text = PROTOCOL.read_text()
    assert sp.markdown(results()) in text
