"""Every number the findings page (docs/findings.md) and the paper's collapse and separation prose cite equals
the generated table it comes from (analysis/report/claims.py). docs/results.md is kept equal to
the committed runs by make report-check; marked ``results``: make figures-check runs it."""

from __future__ import annotations

import pytest

from analysis.report import claims

pytestmark = pytest.mark.results


def test_every_cited_number_matches_its_table():
    assert claims.failures() == []


def test_a_number_typed_by_hand_that_drifts_fails(tmp_path):
    # the findings page's K1 sentence with one digit changed: the registry names it
    for name in (claims.FINDINGS, claims.PAPER):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        text = (claims.REPO_ROOT / name).read_text()
        if name == claims.FINDINGS:
            assert "0.799 [0.786, 0.812]" in text
            text = text.replace("0.799 [0.786, 0.812]", "0.798 [0.786, 0.812]")
        (tmp_path / name).write_text(text)
    assert claims.failures(tmp_path) == [
        "docs/findings.md: K1 should read '0.799 [0.786, 0.812]' (collapse-verdicts)"
    ]
