"""The theory table / macros from the JSON report, and the setup table from the presets."""

from __future__ import annotations

import json

import pytest

from analysis.campaigns.pool.setup_table import (
    fmt_value,
    get,
    role_configs,
    setup_rows,
    setup_table,
    tiny_parameters,
)
from analysis.report.theory_table import statement_label, theory_macros, theory_table

REPORT = {
    "configs_per_statement": 200,
    "seed": 3,
    "seconds": 14.04,
    "statements": [
        {
            "statement": "prop_4_3",
            "configs": 203,
            "comparisons": 779,
            "violations": 0,
            "worst_slack": -6.94e-18,
            "max_err_over_tol": 0.2751,
            "status": "ok",
        },
        {
            "statement": "my_new_check",
            "configs": 5,
            "comparisons": 10,
            "violations": 2,
            "worst_slack": None,
            "max_err_over_tol": 3.5,
            "status": "VIOLATED",
        },
    ],
}


def test_theory_table_rows_and_total():
    tex = theory_table(REPORT)
    assert (
        r"Prop.~4.3 (variance bound) & $203$ & $779$ & $0$ & $-6.9\times10^{-18}$ & "
        r"$0.275$ & ok \\" in tex
    )
    # an unknown statement id is escaped, a violation is shown in bold, None is a dash
    assert r"my\_new\_check & $5$ & $10$ & $2$ & -- & $3.500$ & \textbf{violated} \\" in tex
    assert r"all &  & $789$ & $2$ &  &  & violated \\" in tex
    assert "$200$ random configurations per statement" in tex and "seed $3$" in tex


def test_theory_macros():
    macros = theory_macros(REPORT)
    assert r"\newcommand{\TheoryComparisons}{$789$}" in macros
    assert r"\newcommand{\TheoryViolations}{$2$}" in macros
    assert r"\newcommand{\TheorySeconds}{$14.0$}" in macros
    assert statement_label("def_4_1") == r"Def.~4.1 (collapse)"


@pytest.mark.parametrize("bad", [{}, {"statements": []}, {"statements": [{"statement": "x"}]}])
def test_theory_table_rejects_other_json(bad):
    with pytest.raises(ValueError, match="report"):
        theory_table(bad)


@pytest.mark.parametrize(
    ("value", "latex"),
    [
        (5, "$5$"),
        (0.1, "$0.1$"),
        (5e-05, r"$5\times10^{-5}$"),
        (1e-06, "$10^{-6}$"),
        (2e-3, "$0.002$"),
        (True, "yes"),
        ("token-mean", "token-mean"),
        ("multi_turn", r"multi\_turn"),
        (("multi_turn", "combined"), r"multi\_turn, combined"),
    ],
)
def test_fmt_value(value, latex):
    assert fmt_value(value) == latex


def test_setup_table_reads_the_presets_without_runs():
    from analysis.campaigns.presets import RL

    configs, sources = role_configs(None)
    assert sources == [
        r"preset \code{cpu-rcgrpo}",
        r"preset \code{sft-synth-cpu}",
        r"preset \code{rctp-synth-cpu}",
    ]
    rows = {r[0]: r for r in setup_rows(configs)}
    rl = RL["cpu-rcgrpo"]
    assert rows["group size $G$"][1:] == ["5", f"${rl.rollout.group_size}$"]
    assert rows["KL coefficient $\\beta$"][2] == fmt_value(rl.algo.kl_beta)
    # tiny Qwen2, 1,024-token vocabulary, tied embeddings: docs/policy.md's 1.82M parameters
    assert tiny_parameters() == pytest.approx(1.82e6, rel=0.01)
    with pytest.raises(KeyError, match="algo.nope"):
        get(configs["rl"], "algo.nope")


def test_setup_table_prefers_the_resolved_config_of_a_run(tmp_path):
    # the campaign overrides run.steps; the table must show what ran, not the preset
    from analysis.campaigns.presets import RL
    from rcgrpo.train.config import to_dict

    cfg = to_dict(RL["cpu-rcgrpo"])
    cfg["run"]["steps"] = 60
    run = tmp_path / "cpu-rcgrpo-s0"
    run.mkdir()
    (run / "config.json").write_text(json.dumps(cfg))
    tex = setup_table(lambda group: [run] if group == "cpu-rcgrpo" else [])
    assert r"RL steps & 400 & $60$ \\" in tex
    assert r"RC-GRPO (run \code{cpu-rcgrpo-s0})" in tex and r"(preset \code{sft-synth-cpu})" in tex
