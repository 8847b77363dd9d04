"""``python -m analysis.theory check``: table, JSON, exit code on a violation."""

import json

from analysis import theory
from analysis.theory import __main__ as cli
from analysis.theory.report import StatementResult


def test_check_writes_json_and_exits_zero(tmp_path, capsys):
    path = tmp_path / "report.json"
    rc = cli.main(
        [
            "check",
            "--configs",
            "2",
            "--workers",
            "1",
            "--json",
            str(path),
            "--only",
            "def_4_1",
            "lemma_a_2",
            "lemma_a_3_a_4",
        ]
    )
    assert rc == 0
    report = json.loads(path.read_text())
    assert [e["statement"] for e in report["statements"]] == [
        "def_4_1",
        "lemma_a_2",
        "lemma_a_3_a_4",
    ]
    for e in report["statements"]:
        assert e["violations"] == 0 and e["status"] == "ok" and e["configs"] >= 2
    out = capsys.readouterr().out
    assert "worst slack" in out and "lemma_a_2" in out


def test_violation_exits_nonzero(monkeypatch, capsys):
    def fake(statement, num_configs, seed):
        res = StatementResult(statement, "fake")
        res.add("x", ">=", 1.0, 0.0, 0.0, "exact", {})
        return res

    monkeypatch.setattr(cli, "run_check", fake)
    assert cli.main(["check", "--configs", "1", "--workers", "1", "--only", "def_4_1"]) == 1
    assert "VIOLATED" in capsys.readouterr().out


def test_unknown_statement_rejected(capsys):
    assert cli.main(["check", "--only", "nope"]) == 2
    assert set(theory.STATEMENTS) >= {"def_4_1", "prop_4_2", "prop_4_3", "remark_4_4"}
