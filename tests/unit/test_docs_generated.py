"""Generated blocks are up to date: docs/metrics.md, docs/synth.md, the README's studies table,
docs/findings.md's results, the campaigns' results pages (docs/results/).

Writers: ``python -m rcgrpo docs`` (library blocks) and ``python -m analysis.report
--write-readme`` (blocks computed from the committed runs).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis.report import docs_tables
from analysis.report import markdown as md
from analysis.report import readme_results as rr
from analysis.report.runtable import Column, Row, TableSpec
from analysis.runs import index as ix
from analysis.runs.extractors import first, last
from analysis.runs.sources import layout_resolver
from analysis.stats import Estimate
from rcgrpo import docs_cli, metrics_cli
from rcgrpo.docblocks import markers, update_file
from rcgrpo.env.synth_families import FAMILIES
from rcgrpo.metrics import METRICS

ROOT = Path(__file__).resolve().parents[2]


def _block(text: str, name: str) -> str:
    """The body of generated block ``name`` in ``text`` (between its marker lines)."""
    begin, end = markers(name)
    return text.split(begin + "\n", 1)[1].split(end, 1)[0]


def test_library_blocks_are_up_to_date():
    for path, blocks in docs_cli.generated_blocks().items():
        stale = update_file(path, blocks, check=True)
        assert stale == [], f"{path}: {stale} stale; run `python -m rcgrpo docs`"


def test_generated_docs_hold_every_metric_and_family():
    table = _block((ROOT / "docs" / "metrics.md").read_text(), "metrics")
    assert len(table.splitlines()) == 2 + len(METRICS)
    for name in METRICS:
        assert table.count(f"| `{name}` |") == 1, name
    families = _block((ROOT / "docs" / "synth.md").read_text(), "synth-families")
    assert [line.split("`")[1] for line in families.splitlines()[2:]] == [f.name for f in FAMILIES]


def test_markdown_escapes_pipes():
    # '|' inside a cell would split the markdown row: every row has exactly 4 unescaped pipes
    for line in metrics_cli.markdown_table().splitlines():
        assert line.replace("\\|", "").count("|") == 4, line


def test_metrics_cli_prints_the_registry(capsys):
    assert metrics_cli.main(["--markdown"]) == 0
    assert capsys.readouterr().out == metrics_cli.markdown_table()
    assert metrics_cli.main([]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in METRICS)


def test_docs_cli_check_write_and_missing(tmp_path, capsys):
    for name, blocks in docs_cli.GENERATED.items():
        text = "".join(f"# {name}\n{markers(b)[0]}\nold\n{markers(b)[1]}\n" for b in blocks)
        (tmp_path / name).write_text(text)
    assert docs_cli.main(["--check", "--docs", str(tmp_path)]) == 1
    assert docs_cli.main(["--docs", str(tmp_path)]) == 0
    assert docs_cli.main(["--check", "--docs", str(tmp_path)]) == 0
    (tmp_path / "metrics.md").write_text("# no markers\n")
    assert docs_cli.main(["--docs", str(tmp_path)]) == 2
    assert "block 'metrics'" in capsys.readouterr().err


@pytest.mark.results
def test_run_blocks_are_up_to_date():
    stale = [
        f"{path.name}: {name}"
        for path, blocks in rr.generated_files().items()
        for name in update_file(path, blocks, check=True)
    ]
    stale += [
        f"INDEX.toml: {study} {name}"
        for study, fields in rr.index_rows().items()
        for name in ix.set_fields(study, fields, check=True)
    ]
    assert stale == [], f"blocks {stale} stale; run `python -m analysis.report --write-readme`"


def test_campaign_and_figure_tables_count_what_the_code_has():
    from analysis.campaigns.pool import report as pool
    from analysis.campaigns.pool.driver import build_campaign
    from analysis.figures.__main__ import discover

    camp = build_campaign()
    campaign = pool.campaign_block().splitlines()
    assert campaign[-1].startswith(f"| all | | | {len(camp.runs)} | ")
    cells = [row.strip("| ").split(" | ") for row in campaign[2:]]
    assert [int(c[3]) for c in cells[:-1]] == [len(names) for names in camp.experiments.values()]
    committed = [int(c[4]) for c in cells[:-1]]
    assert all(0 <= k <= len(n) for k, n in zip(committed, camp.experiments.values(), strict=True))
    assert int(cells[-1][-2]) == sum(committed)
    assert len(docs_tables.figures_markdown().splitlines()) == 2 + len(discover())


def test_first_sentence_and_seed_patterns_hand_worked():
    doc = "The paper's Fig. 2 from :mod:`analysis.runs`, i.i.d. tokens. Second.\n\nMore."
    assert docs_tables.first_sentence(doc) == "The paper's Fig. 2 from `runs`, i.i.d. tokens."
    assert docs_tables.first_sentence("No full stop") == "No full stop"
    names = ["sft-s0", "rctp-s0", "sft-s1", "rctp-s1", "lone"]
    assert docs_tables._pattern(names) == (["sft-s{seed}", "rctp-s{seed}", "lone"], [0, 1])
    # with the runs' --run.seed, a step-count suffix is not a seed
    sweep = ["sft-s3", "sweep-pool16-s200"]
    assert docs_tables._pattern(sweep, {"sft-s3": 3, "sweep-pool16-s200": 3}) == (
        ["sft-s{seed}", "sweep-pool16-s200"],
        [3],
    )
    assert docs_tables._run_seed(("train", "--run.seed", "2", "--init", "x")) == 2
    assert docs_tables._run_seed(("sft",)) is None


@pytest.mark.results
def test_verdicts_block_is_the_placeholder_until_the_module_exists():
    body = _block((ROOT / "docs" / "findings.md").read_text(), "verdicts")
    from analysis.campaigns.pool import report as pool

    assert body == pool.verdicts_block()
    assert body.strip()


def test_fmt_markdown_hand_worked():
    assert md.fmt_markdown(Estimate(0.625, 0.0125, 3), 1, percent=True) == "62.5 ± 1.2"
    assert md.fmt_markdown(Estimate(0.3, None, 1)) == "0.30"
    assert md.fmt_markdown(Estimate(math.nan, None, 0)) == "—"
    assert md.fmt_markdown(None) == "—"


def _run(root: Path, name: str, start: float, end: float) -> None:
    run = root / name
    run.mkdir(parents=True)
    (run / "config.json").write_text("{}")
    rows = [{"step": 0, "reward/eval_success": start}, {"step": 1, "reward/eval_success": end}]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "summary.json").write_text("{}")


def test_markdown_table_hand_worked(tmp_path):
    # experiment a: starts 0.2 / 0.4 -> mean 0.3, s = 0.1414, half-width
    # t(0.975, 1) * s / sqrt(2) = 12.706 * 0.1 = 1.2706; ends 0.5 / 0.5 -> 0.5 ± 0
    _run(tmp_path, "a-s0", 0.2, 0.5)
    _run(tmp_path, "a-s1", 0.4, 0.5)
    spec = TableSpec(
        "t",
        "",
        "",
        ("arm",),
        (Column("start", first("reward/eval_success")), Column("end", last("reward/eval_success"))),
        (Row(("A",), "a"), Row(("B",), "b")),
    )
    resolve = layout_resolver(tmp_path)
    found = {"a": resolve("a"), "b": resolve("b")}
    assert md.markdown_table(spec, found) == (
        "| arm | start | end | seeds |\n"
        "|---|--:|--:|--:|\n"
        "| A | 0.30 ± 1.27 | 0.50 ± 0.00 | 2 |\n"
        "| B | *not yet run: `b`* |  |  |\n"
    )


@pytest.mark.results  # the generated blocks are computed from the committed runs
def test_readme_main_exit_codes(tmp_path, capsys, monkeypatch):
    # every generated file in a tmp tree, so the real README and docs are never written
    readme, docs, empty = tmp_path / "README.md", tmp_path / "docs", tmp_path / "runs"
    index = tmp_path / "INDEX.toml"
    index.write_text(ix.INDEX.read_text().replace('summary = "', 'summary = "stale '))
    docs.mkdir()
    empty.mkdir()
    # the blocks of the empty runs folder, computed once: each readme_main call below would
    # compute the same ones again (most from the committed runs); its exit codes are tested
    generated = rr.generated_files(rr._resolver(empty), readme, docs, index)
    monkeypatch.setattr(rr, "generated_files", lambda resolve, r, d, i: generated)
    for path, blocks in generated.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{markers(n)[0]}\nold\n{markers(n)[1]}\n" for n in blocks))
    assert rr.readme_main(True, empty, readme, docs, index) == 1
    assert rr.readme_main(False, empty, readme, docs, index) == 0
    assert rr.readme_main(True, empty, readme, docs, index) == 0
    row = index.read_text().split('id = "collapse-pairs"')[1].split("[[study]]")[0]
    assert "stale " not in row  # its verdict module wrote its fields; hand-written rows keep theirs
    assert "not yet run" in _block((docs / "findings.md").read_text(), "results")
    assert "| study | suite | status |" in _block(readme.read_text(), "campaigns")
    readme.write_text("no markers\n")
    assert rr.readme_main(False, empty, readme, docs, index) == 2
    capsys.readouterr()


def test_theory_block_hand_worked():
    report = {
        "seed": 0,
        "configs_per_statement": 2,
        "seconds": 1.5,
        "statements": [
            {"statement": "a", "configs": 3, "comparisons": 1200, "violations": 0},
            {"statement": "b", "configs": 2, "comparisons": 34, "violations": 1},
        ],
    }
    assert docs_tables.theory_markdown(report) == (
        "| id | configurations | comparisons | violations |\n"
        "|---|--:|--:|--:|\n"
        "| `a` | 3 | 1,200 | 0 |\n"
        "| `b` | 2 | 34 | 1 |\n"
        "| all 2 | | 1,234 | 1 |\n"
        "\n"
        "Seed 0, 2 random configurations per statement, 1.5 s for the whole check.\n"
    )
