"""The regime campaign's admissions on the committed Stage-1 runs: which seeds' RCTP-FT goals
separated, and by how much, as docs/results/regime-d10.md (admission) reports them, in the campaign's
record and in the generated admission table. Numbers measured, not hand-computed (the admission
rule on fake reports: tests/unit/analysis/test_regime_campaign.py); marked ``results``: ``make
figures-check`` runs them, ``make test`` and ``make test-slow`` leave them out."""

from __future__ import annotations

import json

import pytest

from analysis.campaigns.regime_d10 import driver as regime
from analysis.campaigns.regime_d10 import tables as rt

pytestmark = pytest.mark.results


def test_the_committed_admissions_are_the_documented_ones():
    """docs/results/regime-d10.md (admission): seeds 0-2 not admitted (separation -0.010, +0.001, -0.024),
    3-5 admitted (+0.352, +0.346, +0.114)."""
    assert [regime.admitted(s) for s in range(6)] == [False] * 3 + [True] * 3
    report = json.loads(regime.admission_path(5).read_text())
    assert regime.separation(report) == pytest.approx(0.405 - 0.290625)
    assert regime.rl_seeds()[:3] == (3, 4, 5)


def test_the_admission_table_reads_each_seeds_report_in_the_preregistered_order():
    head, rows = rt.admission_rows()
    assert head[-2:] == ["separation", "admitted"]
    by_seed = {int(r[0]): r for r in rows}
    assert list(by_seed)[:6] == [0, 1, 2, 3, 4, 5]  # order of analysis.campaigns.regime_d10.driver
    assert by_seed[5][1:] == ["`results/campaign/sft-s3/final`", "0.405", "0.291", "+0.114", "yes"]
    assert by_seed[0][1] == "`results/campaign/sft-s0/final`" and by_seed[0][4:] == ["−0.010", "no"]
    assert rt.admission_block().splitlines()[1] == "|---|---|--:|--:|--:|--:|"
