"""The new regime's Table 1 analogue (analysis/campaigns/regime_d10/tables.py) on fake run folders,
by hand: means ± 95% t half-widths over seeds, the evaluation goal of the RC arms, per
category and decision-point columns, dashes for an arm without runs."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.campaigns.regime_d10.tables import cell, table1_block


def rate(k: int, n: int) -> dict:
    return {"successes": k, "n": n}


def condition(success: int, fs: int, decisions: int) -> dict:
    return {
        "overall": {"reward": rate(success, 10)},
        "per_category": {"synth/file_system": {"reward": rate(fs, 4)}},
        "decisions": {"right": rate(decisions, 5)},
    }


def write_run(root: Path, arm: str, seed: int, start: int, end: int, goal: str = "none") -> None:
    """Finished run ``<arm>-s<seed>``: success start/10 and end/10 under ``goal``; under any
    other goal 0/10 (so reading the wrong one shows)."""
    d = root / f"{arm}-s{seed}"
    (d / "eval").mkdir(parents=True)
    (d / "config.json").write_text(
        json.dumps({"run": {"seed": seed}, "algo": {"eval_condition": goal}})
    )
    for step, k in ((0, start), (200, end)):
        conds = {goal: condition(k, 2, 4)}
        if goal == "high":
            conds["low"] = condition(0, 0, 0)
        (d / "eval" / f"step_{step}.json").write_text(json.dumps({"conditions": conds}))
    (d / "metrics.jsonl").write_text(json.dumps({"step": 0}) + "\n")
    (d / "summary.json").write_text("{}")


def test_cell_is_the_mean_with_its_t_half_width():
    # two seeds 0.5, 0.7: s = 0.1414, SE = 0.1, t(0.975, 1) = 12.706
    assert cell([0.5, 0.7]) == "60.0 ± 127.1"
    assert cell([0.25]) == "25.0"
    assert cell([]) == "—"


def test_table1_rows_by_hand(tmp_path):
    write_run(tmp_path, "regime-grpo", 0, 2, 6)
    write_run(tmp_path, "regime-grpo", 1, 4, 8)
    write_run(tmp_path, "regime-rcgrpo", 3, 7, 9, goal="high")
    write_run(tmp_path, "regime-rcgrpo", 9, 0, 0, goal="high")  # reserved seed: never counts
    rows = {
        tuple(c.strip() for c in line.strip("|").split("|")[:2]): line
        for line in table1_block(tmp_path).splitlines()[2:]
    }
    grpo = [c.strip() for c in rows[("SFT", "GRPO")].strip("|").split("|")]
    # seeds; start (.2, .4); end (.6, .8); Δ (.4, .4); no speed (no evaluation at steps
    # 25-175); file_system 2/4; decisions 4/5
    want = ["0, 1", "30.0 ± 127.1", "70.0 ± 127.1", "40.0 ± 0.0", "—", "50.0 ± 0.0"]
    assert grpo[2:10] == [*want, "80.0 ± 0.0", "48.75"]
    rc = [c.strip() for c in rows[("RCTP-FT", "RC-GRPO")].strip("|").split("|")]
    assert rc[2:6] == ["3", "70.0", "90.0", "20.0"]  # the high goal, not low; seed 9 left out
    assert rc[-2:] == ["85.00", "48.75"]
    empty = [c.strip() for c in rows[("SFT", "RC sampling")].strip("|").split("|")]
    assert empty[2:8] == ["—"] * 6


def test_table1_shows_a_baseline_only_once_it_has_runs(tmp_path):
    write_run(tmp_path, "regime-grpo", 0, 2, 6)
    lines = table1_block(tmp_path).splitlines()[2:]
    assert len(lines) == 4  # the factorial's cells, with or without runs
    write_run(tmp_path, "regime-rctp-dapo", 3, 5, 9, goal="high")
    lines = table1_block(tmp_path).splitlines()[2:]
    assert len(lines) == 5
    dapo = [c.strip() for c in lines[-1].strip("|").split("|")]
    # after the factorial; high goal; no paper number for an arm the paper did not run
    assert dapo[:6] == ["RCTP-FT", "GRPO (high goal) + DAPO", "3", "50.0", "90.0", "40.0"]
    assert dapo[-2:] == ["—", "—"]


def test_readme_block_shows_the_claims_and_counts_the_other_rules(tmp_path):
    from analysis.campaigns.regime_d10.rules import RULES
    from analysis.campaigns.regime_d10.tables import README_RULES, readme_block
    from analysis.verdicts.family import BY_CONSTRUCTION

    block = readme_block(tmp_path).splitlines()  # no runs: every rule is inconclusive
    # C2 holds by construction: a sentence below the table, not a row
    shown = [r.id for r in RULES if r.id[0] in README_RULES and r.id not in BY_CONSTRUCTION]
    rows = [line.split("|")[1].strip() for line in block[2 : 2 + len(shown)]]
    assert rows == shown and all("inconclusive" in line for line in block[2 : 2 + len(shown)])
    assert block[-2].startswith("C2 (RCTP-FT: success under high ≫ under low) inconclusive")
    other = sum(r.id[0] not in README_RULES for r in RULES)
    assert block[-1].startswith(
        f"The other {other} rules (entropy-matched arms, DAPO and Dr. GRPO, stratified goals): "
        f"{other} inconclusive. p: two-sided t test"
    )


def write_final(folder: Path, preset: str, seed: int, greedy: float, passk: list[float]) -> None:
    report = {
        "preset": preset,
        "conditions": {
            "high": {
                "ks": list(range(1, 9)),
                "greedy": {"overall": greedy},
                "pass_at_k": {"overall": passk},
            }
        },
    }
    (folder / f"regime-final-{preset}-s{seed}.json").write_text(json.dumps(report))


def test_passk_rows_by_hand(tmp_path):
    from analysis.campaigns.regime_d10.tables import passk_block

    ks = [0.5, 0.6, 0.65, 0.7, 0.72, 0.74, 0.76, 0.8]
    write_final(tmp_path, "regime-rcgrpo", 3, 0.6, ks)
    write_final(tmp_path, "regime-rcgrpo", 4, 0.8, [k + 0.1 for k in ks])
    write_final(tmp_path, "regime-rcgrpo", 9, 0.0, [0.0] * 8)  # reserved: never counts
    write_final(tmp_path, "regime-grpo", 5, 0.5, ks)
    (tmp_path / "regime-final-regime-grpo-s6.json").write_text(  # another preset's report
        json.dumps({"preset": "regime-sft-rc", "conditions": {"none": {}}})
    )
    lines = passk_block(tmp_path).splitlines()
    assert lines[0].split("|")[4:9] == [" greedy ", " pass@1 ", " pass@2 ", " pass@4 ", " pass@8 "]
    rows = {tuple(c.strip() for c in line.strip("|").split("|")[:2]): line for line in lines[2:]}
    rc = [c.strip() for c in rows[("RCTP-FT", "RC-GRPO")].strip("|").split("|")]
    # seeds 3, 4: greedy .6, .8 -> 70.0 ± 127.1; pass@1 .5, .6 -> 55.0 ± 63.5;
    # pass@8 .8, .9 -> 85.0 ± 63.5 (SE 0.05, t 12.706)
    assert rc[2:5] == ["3, 4", "70.0 ± 127.1", "55.0 ± 63.5"]
    assert rc[-1] == "85.0 ± 63.5"
    grpo = [c.strip() for c in rows[("SFT", "GRPO")].strip("|").split("|")]
    assert grpo[2:] == ["5", "50.0", "50.0", "60.0", "70.0", "80.0"]
    empty = [c.strip() for c in rows[("SFT", "RC sampling")].strip("|").split("|")]
    assert empty[2:] == ["—"] * 6
