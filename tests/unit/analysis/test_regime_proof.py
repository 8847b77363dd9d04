"""The proof-run criterion (analysis.diagnostics.regime.proof): McNemar by hand, each check's
boundary, the verdict across seeds, and the committed proof reports against a recomputation
from their run folders."""

from __future__ import annotations

import json
import math

import pytest

from analysis import REPO_ROOT
from analysis.campaigns.regime_wide1.proof import seeds_verdict
from analysis.diagnostics.regime import proof
from analysis.diagnostics.regime.proof import mcnemar_exact, proof_verdict


def test_mcnemar_exact_by_hand():
    # b = 1 (1 -> 0), c = 5 (0 -> 1): p = 2 * P(X <= 1), X ~ Bin(6, 1/2) = 2 * 7/64
    before = [True, False, False, False, False, False, True, False]
    after = [False, True, True, True, True, True, True, False]
    out = mcnemar_exact(before, after)
    assert (out["b"], out["c"], out["n"]) == (1, 5, 8)
    assert out["p"] == pytest.approx(14 / 64)
    # b = 0, c = 6: p = 2 / 64; no discordant pair: p = 1
    assert mcnemar_exact([False] * 6, [True] * 6)["p"] == pytest.approx(2 / 64)
    assert mcnemar_exact([True, False], [True, False])["p"] == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact([True], [True, False])


def _block(success, decisions):
    rows = [
        {"task_id": f"t{i}", "reward": float(s), "decisions": [{"right": r} for r in d]}
        for i, (s, d) in enumerate(zip(success, decisions, strict=True))
    ]
    return {"per_task": rows}


def test_proof_verdict_checks_and_boundaries():
    # 40 tasks: 30 with one point, 10 without; start 10 successes, end 26 (+0.40, c 16, b 0)
    points = [[True]] * 30 + [[]] * 10
    start = _block([True] * 5 + [False] * 25 + [True] * 5 + [False] * 5, points)
    end_points = [[True]] * 24 + [[False]] * 6 + [[]] * 10  # 24 of 30 right = 0.80
    end = _block([True] * 21 + [False] * 9 + [True] * 5 + [False] * 5, end_points)
    out = proof_verdict(start, end)
    assert out["gain"] == pytest.approx(0.40)
    assert out["mcnemar"]["b"] == 0 and out["mcnemar"]["c"] == 16
    assert out["mcnemar"]["p"] == pytest.approx(2 * 0.5**16)
    assert out["decisions_right_end"] == pytest.approx(0.80)  # exactly the bound: holds
    assert out["no_point_change"] == 0.0 and out["qualifies"] is True
    # one fewer right point: 23/30 < 0.80
    end_points[0] = [False]
    assert (
        proof_verdict(
            start,
            _block(end["per_task"] and [r["reward"] == 1 for r in end["per_task"]], end_points),
        )["checks"]["decisions"]
        is False
    )


def test_proof_verdict_no_point_loss_and_gain_significance():
    points = [[True]] * 50 + [[]] * 50
    start = _block([False] * 50 + [True] * 50, points)
    # no-point tasks lose 1 of 50 (-0.02, holds), 2 of 50 (-0.04, fails)
    for lost, ok in ((1, True), (2, False)):
        end = _block([True] * 20 + [False] * 30 + [False] * lost + [True] * (50 - lost), points)
        out = proof_verdict(start, end)
        assert out["checks"]["no_point_loss"] is ok
        assert out["no_point_change"] == pytest.approx(-lost / 50)
    # a gain of 0.10 that is not significant: 10 tasks, c 2, b 1 -> p = 1 (binomtest(2, 3))
    pts = [[True]] * 10
    s = [True] + [False] * 9
    e = [False, True, True] + [False] * 7
    out = proof_verdict(_block(s, pts), _block(e, pts))
    assert math.isclose(out["gain"], 0.10) and out["mcnemar"]["p"] == pytest.approx(1.0)
    assert out["checks"]["gain"] is False
    bare = {
        "per_task": [{k: v for k, v in r.items() if k != "decisions"} for r in start["per_task"]]
    }
    with pytest.raises(ValueError, match="no decision records"):
        proof_verdict(start, bare)
    with pytest.raises(ValueError, match="different tasks"):
        proof_verdict(start, {"per_task": start["per_task"][:-1]})


def _record(seed, gain, qualifies=True):
    return {"seed": seed, "gain": gain, "qualifies": qualifies}


def test_seeds_verdict_needs_every_seed_each_qualifying_and_the_mean_gain():
    # a missing seed: no verdict yet (None), whatever the others show
    v = seeds_verdict([_record(0, 0.5), _record(7, 0.6)], seeds=(0, 1, 2))
    assert (v["missing"], v["holds"], v["gain"]["n"]) == ([1, 2], None, 1)
    # gains 0.05, 0.10, 0.15: mean 0.10 (the bound) holds; t(0.975, 2) * 0.05 / sqrt(3)
    v = seeds_verdict([_record(0, 0.05), _record(1, 0.10), _record(2, 0.15)])
    assert v["holds"] is True
    assert v["gain"]["mean"] == pytest.approx(0.10)
    assert v["gain"]["half_width"] == pytest.approx(4.302653 * 0.05 / math.sqrt(3), rel=1e-6)
    # mean just below the bound; or one seed failing its own criterion
    assert seeds_verdict([_record(0, 0.05), _record(1, 0.10), _record(2, 0.14)])["holds"] is False
    v = seeds_verdict([_record(0, 0.5), _record(1, 0.5, qualifies=False), _record(2, 0.5)])
    assert (v["every_seed_qualifies"], v["holds"]) == (False, False)
    # the design seed is not a proof seed: it never enters the mean
    v = seeds_verdict([_record(0, 0.2), _record(1, 0.2), _record(2, 0.2), _record(7, 0.9)])
    assert v["gain"]["mean"] == pytest.approx(0.2)


@pytest.mark.parametrize("suite", sorted(proof.PROOF_RUNS))
@pytest.mark.results
def test_committed_proof_reports_match_their_runs(suite):
    """Each ``results/diagnostics/regime-proof-<run>.json`` is what the criterion computes
    from the committed run folder now, and every committed proof run has its report."""
    if suite != "regime-d10" and not proof.has_runs(REPO_ROOT, suite):
        pytest.skip(f"no proof run on {suite} committed yet")
    records = proof.committed_records(REPO_ROOT, suite)
    assert records, "no committed proof run"
    for rec in records:
        name = rec["run"].rsplit("/", 1)[-1]
        report = json.loads(
            (REPO_ROOT / "results" / "diagnostics" / f"regime-proof-{name}.json").read_text()
        )
        assert {k: report[k] for k in report if k != "run"} == {
            k: rec[k] for k in report if k != "run"
        }
        assert rec["tasks"] >= 1000 and rec["steps"] == [0, 200]


@pytest.mark.results
def test_every_committed_proof_report_is_what_its_run_gives():
    """Each ``results/diagnostics/regime-proof-*.json`` (proof runs and the G4′ runs from
    RCTP-FT, on their recorded condition) is :func:`proof.run_verdict` of the committed run."""
    reports = sorted((REPO_ROOT / "results" / "diagnostics").glob("regime-proof-*.json"))
    assert len(reports) >= 6
    for path in reports:
        report = json.loads(path.read_text())
        again = proof.run_verdict(REPO_ROOT / report["run"], report["condition"])
        assert {k: again[k] for k in again if k != "run"} == {
            k: report[k] for k in report if k != "run"
        }, path.name


def test_the_cli_writes_one_runs_report_with_out(tmp_path, capsys, monkeypatch):
    """``--out`` writes what the CLI prints for the same run (the campaign's proof step uses
    it); with more than one run it is refused."""
    monkeypatch.chdir(REPO_ROOT)
    run = "results/regime/regime-grpo-s3"
    assert proof.main([run]) == 0
    printed = capsys.readouterr().out
    out = tmp_path / "sub" / "report.json"
    assert proof.main([run, "--out", str(out)]) == 0
    assert out.read_text() == printed and json.loads(printed)["run"] == run
    with pytest.raises(SystemExit):
        proof.main([run, "results/regime/regime-grpo-s4", "--out", str(out)])
