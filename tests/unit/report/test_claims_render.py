"""The claims registry's parsing and renderers on hand-written tables (analysis/report/claims.py),
and its gated sentences and overreach check on hand-written text (analysis/report/claim_scope.py)."""

from analysis.report import claim_scope, claims

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


TWO_TABLES = """<!-- begin:demo -->
| rule | estimate [95% CI] |
|---|--:|
| T1 | 0.002 [-0.023, 0.027] |

| rule | learning speed [95% CI], pts |
|---|--:|
| T1 | -1.0 [-1.9, -0.1] |
<!-- end:demo -->
"""


def test_a_blocks_later_tables_are_read_by_number():
    tables = claims.blocks(TWO_TABLES)
    assert tables["demo"] == [{"rule": "T1", "estimate [95% CI]": "0.002 [-0.023, 0.027]"}]
    claim = claims.Claim("T1-speed", "demo#2", "T1", "learning speed [95% CI], pts", ())
    # the cell is in points already: -1.0 stays -1.0, written with true minus signs
    assert claims.rendered(claim, tables, "pts_md") == "−1.0 [−1.9, −0.1]"
    assert claims.rendered(claim, tables, "pts_tex") == "$-1.0$ $[-1.9, -0.1]$"


def test_sentences_end_at_a_stop_a_list_item_or_a_paragraph():
    text = (
        "RC-GRPO ends level (T1; margin set after the runs); An exploratory measure has it\n"
        "slower. Dr. GRPO ends lower.\n- a bullet, e.g. This one\n\nA paragraph."
    )
    assert claim_scope.sentences(text) == [
        "RC-GRPO ends level (T1; margin set after the runs);",
        "An exploratory measure has it slower.",
        "Dr. GRPO ends lower.",
        "a bullet, e.g. This one",
        "A paragraph.",
    ]


def test_a_sentence_without_its_stop_and_an_overreach_are_named(tmp_path, monkeypatch):
    gated = claim_scope.Gated("demo", (("a.md", "−1.0", "exploratory"),), ("b.md", "x", ("ok",)))
    monkeypatch.setattr(claim_scope, "GATED", (gated,))
    (tmp_path / "a.md").write_text("It learns −1.0 slower. Exploratory: −1.0, exploratory.\n")
    (tmp_path / "b.md").write_text("<!-- begin:x -->\nstill ok\n<!-- end:x -->\n")
    assert claim_scope.failures(tmp_path) == [
        "a.md: demo: 'It learns −1.0 slower.' lacks 'exploratory'"
    ]
    (tmp_path / "b.md").write_text("<!-- begin:x -->\nopened\n<!-- end:x -->\n")
    assert claim_scope.failures(tmp_path)[-1] == "b.md: demo: block x no longer reads 'ok'"
    # a phrase wrapped over two lines is found; a frozen protocol's rule is not searched
    (tmp_path / "docs" / "protocols").mkdir(parents=True)
    (tmp_path / "docs" / "note.md").write_text("The test could not\nbe built.\n")
    (tmp_path / "docs" / "protocols" / "p.md").write_text("If so, it cannot both be built.\n")
    assert claim_scope.overreach(tmp_path) == ["docs/note.md: 'could not be built'"]
