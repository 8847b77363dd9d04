"""Experiment tables from run folders: extractors, mean ± CI over seeds, missing runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis.campaigns.pool.tables import EXPERIMENTS, TABLES
from analysis.report.__main__ import generate
from analysis.report.runtable import Column, Row, TableSpec, missing_experiments, render
from analysis.runs import is_finished, load_run
from analysis.runs.extractors import (
    difference,
    first,
    frac_steps_at_least,
    last,
    mean_over_training,
    training_success,
    window,
)
from analysis.runs.sources import (
    MissingRunsError,
    collect,
    discover_runs,
    layout_resolver,
    matches,
)


def write_run(root: Path, name: str, rows: list[dict], finished: bool = True, rl=True) -> Path:
    """A run folder as the trainer writes it (config, metrics, [rollouts], [summary])."""
    run = root / name
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"preset": name}))
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if rl:
        (run / "rollouts.jsonl").write_text("")
    if finished:
        (run / "summary.json").write_text("{}")
    return run


def rl_rows(start: float, end: float, var: list[float], bound: list[float]) -> list[dict]:
    """Step 0 = evaluation only; steps 1..n = training rows (+ final eval on the last)."""
    rows = [{"step": 0, "reward/eval_success": start}]
    for i, (v, b) in enumerate(zip(var, bound, strict=True), start=1):
        rows.append(
            {"step": i, "group/var_mean": v, "theory/var_bound_iid": b, "adv/gap_mean": float(i)}
        )
    rows[-1]["reward/eval_success"] = end
    return rows


@pytest.fixture
def runs(tmp_path):
    # experiment "a": 2 seeds; "b": 1 seed; "c": unfinished only
    write_run(tmp_path, "a-s0", rl_rows(0.1, 0.5, [0.2, 0.1, 0.3, 0.0], [0.1, 0.2, 0.1, 0.1]))
    write_run(tmp_path, "a-s1", rl_rows(0.3, 0.9, [0.2, 0.2], [0.1, 0.1]))
    write_run(tmp_path / "b", "s0", rl_rows(0.0, 0.25, [0.05], [0.2]))
    write_run(tmp_path, "c-s0", rl_rows(0.0, 0.0, [0.1], [0.1]), finished=False)
    return tmp_path


def test_extractors_on_one_run(runs):
    run = load_run(runs / "a-s0")
    # first/last read every row (step 0 is the start evaluation); training means skip step 0
    assert first("reward/eval_success")(run) == 0.1
    assert last("reward/eval_success")(run) == 0.5
    assert difference(last("reward/eval_success"), first("reward/eval_success"))(run) == 0.4
    assert mean_over_training("group/var_mean")(run) == pytest.approx(0.15)  # (.2+.1+.3+0)/4
    # 4 steps: 10% -> ceil(0.4) = 1 step; gap = step index
    assert window("adv/gap_mean", "early")(run) == 1.0
    assert window("adv/gap_mean", "late")(run) == 4.0
    assert window("adv/gap_mean", "late", 0.5)(run) == 3.5  # steps 3, 4
    # var >= bound at steps 1 (.2>=.1), 3 (.3>=.1); not 2 (.1<.2), 4 (0<.1) -> 1/2
    assert frac_steps_at_least("group/var_mean", "theory/var_bound_iid")(run) == 0.5
    assert math.isnan(last("no/such_metric")(run))
    with pytest.raises(ValueError, match="part"):
        window("x", "middle")


def test_training_success_reads_the_high_goal_where_the_run_draws_goals(tmp_path):
    every = [{"step": 0}] + [{"step": i, "reward/success_rate": i / 10} for i in range(1, 11)]
    plain = load_run(write_run(tmp_path, "plain", every))
    # 10 steps: 10% = 1 step; the no-goal run reads every rollout
    assert training_success("early")(plain) == pytest.approx(0.1)
    assert training_success("late")(plain) == pytest.approx(1.0)
    assert training_success("late", 0.2)(plain) == pytest.approx(0.95)  # steps 9, 10
    goals = [{**r, "reward/success_high": 2 * r["reward/success_rate"]} for r in every[1:]]
    rc = load_run(write_run(tmp_path, "rc", [{"step": 0}, *goals]))
    assert training_success("early")(rc) == pytest.approx(0.2)
    assert training_success("late")(rc) == pytest.approx(2.0)


def test_resolver_layout_and_finished_only(runs):
    # sorted by path: a-s0 < a-s1 < b/s0 < c-s0
    assert [p.name for p in discover_runs(runs)] == ["a-s0", "a-s1", "s0", "c-s0"]
    assert discover_runs(runs, kind="sft") == []
    assert not is_finished(runs / "c-s0")
    found = collect(["a", "b", "c", "a"], layout_resolver(runs))
    assert list(found) == ["a", "b", "c"]
    assert [p.name for p in found["a"]] == ["a-s0", "a-s1"]
    assert [p.parent.name for p in found["b"]] == ["b"]
    assert found["c"] == []  # unfinished runs do not count
    assert matches("cpu-grpo", Path("runs/cpu-grpo-s12"))
    assert not matches("cpu-grpo", Path("runs/cpu-grpo-dapo-s1"))
    assert discover_runs(runs / "nowhere") == []
    with pytest.raises(ValueError, match="kind"):
        discover_runs(runs, kind="gpu")


def test_campaign_resolver_locates_complete_runs_with_the_current_spec(tmp_path, monkeypatch):
    import analysis.campaign.mechanics as cp
    from analysis.campaign.find import campaign_resolver
    from analysis.campaigns.pool.driver import build_campaign

    campaign, results = tmp_path / "runs" / "campaign", tmp_path / "results" / "campaign"
    monkeypatch.setattr(cp, "CAMPAIGN", campaign)
    monkeypatch.setattr(cp, "RESULTS", results)
    specs = build_campaign().runs

    def done(root: Path, name: str, spec_of: str | None = None) -> None:
        write_run(root, name, rl_rows(0, 0, [0.1], [0.1]), finished=False)
        (root / name / ".complete").write_text("")  # the campaign's marker
        spec = specs[spec_of or name].record()
        (root / name / "campaign.json").write_text(json.dumps(spec))

    done(campaign, "cpu-grpo-s0")
    done(results, "cpu-grpo-s1")  # committed light copy
    write_run(campaign, "cpu-grpo-s2", rl_rows(0, 0, [0.1], [0.1]), finished=False)  # killed
    done(results, "cpu-grpo-s2", spec_of="cpu-drgrpo-s0")  # stale: another spec
    done(campaign, "cpu-rctp-grpo-s0")
    resolve = campaign_resolver(build_campaign())
    assert resolve("cpu-grpo") == [campaign / "cpu-grpo-s0", results / "cpu-grpo-s1"]
    assert resolve("sft") == []


SPEC = TableSpec(
    name="t",
    caption="cap",
    label="tab:t",
    label_headers=("method",),
    columns=(
        Column("final", last("reward/eval_success"), 1, True),
        Column("var", mean_over_training("group/var_mean"), 3),
    ),
    rows=(Row(("A",), "a", ("",)), Row(("B",), "b", ("ref",)), Row(("C",), "c", ("ref2",))),
    after_headers=("paper",),
)


def test_render_numbers_over_seeds(runs):
    found = collect(SPEC.requires, layout_resolver(runs))
    tex = render(SPEC, found, allow_missing=True)
    # a: final 0.5, 0.9 -> mean 70%, s = 0.28284, t(.975, 1) = 12.706,
    #    half = 12.706 * 0.28284 / sqrt(2) = 2.541 -> 254.1%
    # var: 0.15 and 0.2 -> mean 0.175, s = 0.035355, half = 12.706 * 0.035355 / sqrt(2) = 0.318
    assert r"A & $70.0 \pm 254.1$ & $0.175 \pm 0.318$ & $2$ &  \\" in tex
    # b: one seed -> no interval; its trailing static cell stays
    assert r"B & $25.0$ & $0.050$ & $1$ & ref \\" in tex
    assert r"C & \multicolumn{3}{c}{\textit{not yet run: c}} & ref2 \\" in tex


def test_missing_runs_raise_naming_them(runs):
    found = collect(SPEC.requires, layout_resolver(runs))
    assert missing_experiments(SPEC, found) == ["c"]
    with pytest.raises(MissingRunsError, match=r"experiment\(s\) c \(needed by t: c\)"):
        render(SPEC, found)
    err = MissingRunsError({"t2": ["y", "x"], "t1": ["x"]})
    assert err.missing == {"t2": ["x", "y"], "t1": ["x"]}
    assert "x, y (needed by t1: x; t2: x, y)" in str(err) and "--allow-missing" in str(err)


def test_table_rows_must_fit_the_header():
    with pytest.raises(ValueError, match="needs 1 label and 1 trailing"):
        TableSpec("x", "c", "l", ("m",), (), (Row(("A",), "a"),), after_headers=("p",))


def test_report_tables_declare_their_experiments():
    names = set(EXPERIMENTS.values())
    for table in TABLES:
        assert table.requires and set(table.requires) <= names, table.name
        header = table.header()
        assert len(table.alignment()) == len(header)
    assert {t.name for t in TABLES} == {
        "stage1",
        "factorial",
        "collapse",
        "separation",
        "baselines",
        "entropy",
        "training",
    }


@pytest.mark.results  # the regime and collapse tables read the committed runs
def test_generate_strict_vs_allow_missing(tmp_path):
    report = {
        "configs_per_statement": 5,
        "seed": 0,
        "seconds": 1.0,
        "statements": [
            {
                "statement": "prop_4_3",
                "configs": 8,
                "comparisons": 30,
                "violations": 0,
                "status": "ok",
                "worst_slack": 0.0,
                "max_err_over_tol": 0.5,
            }
        ],
    }
    theory = tmp_path / "theory.json"
    theory.write_text(json.dumps(report))
    out, empty = tmp_path / "gen", tmp_path / "runs"
    with pytest.raises(MissingRunsError) as err:
        generate(theory, empty, tmp_path, out, allow_missing=False)
    assert set(err.value.missing) == {t.name for t in TABLES}
    assert (out / "theory_table.tex").is_file() and not (out / "factorial.tex").exists()
    missing = generate(theory, empty, tmp_path, out, allow_missing=True)
    arms = {"cpu-grpo", "cpu-sft-rc", "cpu-rctp-grpo", "cpu-rcgrpo"}
    assert set(missing["factorial"]) == arms
    factorial = (out / "factorial.tex").read_text()
    assert factorial.count("not yet run") == 4 and "$" not in factorial.split("midrule")[1][:60]
    macros = (out / "macros.tex").read_text()
    assert r"\newcommand{\TheoryComparisons}{$30$}" in macros
    assert r"\newcommand{\ReportMissingRuns}{cpu-dapo," in macros
    with pytest.raises(FileNotFoundError, match="make theory"):
        generate(tmp_path / "none.json", empty, tmp_path, out, allow_missing=True)
