"""The claims registry's parsing and renderers on hand-written tables (analysis/report/claims.py)."""

from analysis.report import claims

TABLE = """intro
<!-- begin:demo -->
| rule | estimate [95% CI] | verdict |
|---|--:|---|
| K3s | 0.004 [-0.006, 0.014] | equivalent |
| K5f | 0.381 [0.314, 0.449] | holds |
<!-- end:demo -->
"""


def test_blocks_reads_rows_by_header():
    rows = claims.blocks(TABLE)["demo"]
    assert rows[1] == {
        "rule": "K5f",
        "estimate [95% CI]": "0.381 [0.314, 0.449]",
        "verdict": "holds",
    }
    assert claims.numbers(rows[0]["estimate [95% CI]"]) == [0.004, -0.006, 0.014]


def test_renderers_by_hand():
    x = [0.004, -0.006, 0.014]
    assert claims.points_md(x) == "+0.4 [−0.6, 1.4]"
    assert claims.points_tex(x) == "$+0.4$ $[-0.6, 1.4]$"
    assert claims.share_md([0.799, 0.786, 0.812]) == "0.799 [0.786, 0.812]"
    assert claims.share_tex([0.161, 0.087, 0.235]) == "0.161 $[0.087, 0.235]$"
    assert claims.abs_points([-0.110]) == "11.0"
    assert claims.pm_tex([0.106, 0.014]) == "0.106 $\\pm$ 0.014"
    assert claims.points_md([-0.0, -0.003, 0.003]) == "−0.0 [−0.3, 0.3]"


def test_rendered_picks_the_row_and_column():
    claim = claims.Claim("K5f", "demo", "K5f", "estimate [95% CI]", ())
    tables = claims.blocks(TABLE)
    assert claims.rendered(claim, tables, "points_md") == "+38.1 [31.4, 44.9]"
