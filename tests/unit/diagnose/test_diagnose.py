"""``python -m rcgrpo diagnose`` (rcgrpo/diagnose/): committed run folders, a verl dump, a
hand-made CSV, the errors, the verdict rule and the JSON."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from rcgrpo.diagnose import cli
from rcgrpo.diagnose.verdict import onset_index, rolling_means, verdict
from rcgrpo.train.runlog import ROLLOUTS_GZ, gzip_bytes, metrics_file, open_jsonl, open_table

ROOT = Path(__file__).resolve().parents[3]
RUNS = ("sweep-diag-lr2e-4-16tasks", "cpu-rcgrpo-s0")
"""Committed runs of python -m rcgrpo train: plain GRPO (100 steps) and RC-GRPO with
i.i.d. goals (200 steps; adds the goal split, κ ε² and the advantage split)."""

# The verl example of docs/trl.md ("Diagnose a run"): G = 3, two prompts, two steps.
VERL = {
    1: [("p1", 1.0), ("p1", 1.0), ("p2", 0.0), ("p1", 1.0), ("p2", 1.0), ("p2", 0.0)],
    2: [("p1", 1.0), ("p2", 0.0), ("p1", 1.0), ("p2", 0.0), ("p1", 1.0), ("p2", 0.0)],
}


def _report(*argv: str) -> dict:
    return cli.diagnose(cli._parser().parse_args(list(argv)))


def _same(logged, value) -> bool:
    return (logged is None and math.isnan(value)) or logged == value


@pytest.mark.parametrize("name", RUNS)
def test_a_committed_run_reproduces_its_logged_group_metrics_exactly(name):
    folder = ROOT / "results" / "campaign" / name
    report = _report(str(folder))
    with open_jsonl(metrics_file(folder)) as fh:  # metrics.jsonl.gz in a light copy
        logged = {m["step"]: m for m in map(json.loads, fh.read().splitlines())}
    compared = 0
    for row in report["steps"]:
        for key, value in row.items():
            if "/" in key:
                assert _same(logged[row["step"]][key], value), (row["step"], key)
                compared += 1
    assert report["format"] == "run" and compared >= 20 * len(report["steps"])
    assert "theory/var_bound_iid" in report["steps"][0] or name.startswith("sweep")


def test_a_light_copy_with_a_compressed_table_gives_the_same_report(tmp_path):
    """A light copy stores ``rollouts.jsonl.gz`` (docs/experiments.md, storage): the folder
    and the compressed table file read as the plain table does."""
    plain, packed = ROOT / "results" / "campaign" / RUNS[0], tmp_path / RUNS[0]
    packed.mkdir()
    for path in (plain / "config.json", metrics_file(plain)):
        shutil.copy(path, packed / path.name)
    with open_table(plain) as fh:  # plain or, once packed, compressed: the same bytes
        text = fh.read()
    (packed / ROLLOUTS_GZ).write_bytes(gzip_bytes(text))
    first, second = _report(str(plain)), _report(str(packed))
    assert second["format"] == "run" and len(second["steps"]) == 100
    assert json.dumps(second["steps"]) == json.dumps(first["steps"])  # NaN compared as text
    head = b"".join(text.splitlines(True)[:15])  # step 1: three groups of G = 5
    (tmp_path / "t.jsonl.gz").write_bytes(gzip_bytes(head))
    table = _report(str(tmp_path / "t.jsonl.gz"), "--group-col", "prompt")
    assert table["format"] == "table" and [r["step"] for r in table["steps"]] == [1]


def _verl_dump(folder: Path) -> Path:
    folder.mkdir()
    for step, rows in VERL.items():
        with (folder / f"{step}.jsonl").open("w") as fh:
            for prompt, score in rows:
                row = {"input": prompt, "output": "...", "score": score, "step": step, "acc": score}
                fh.write(json.dumps(row) + "\n")
    return folder


def test_a_verl_dump_gives_the_hand_computed_values(tmp_path):
    report = _report(str(_verl_dump(tmp_path / "rollouts")))
    one, two = report["steps"]
    assert report["format"] == "verl" and (one["groups"], one["group_size"]) == (2, 3)
    # step 1: p1 = (1, 1, 1) all pass, p2 = (0, 1, 0): s̄ = 4/6, s̄³ + (1-s̄)³ = 9/27
    assert one["group/zero_var_frac"] == 0.5 and one["group/zero_var_success_frac"] == 0.5
    assert one["group/zero_var_predicted_pooled"] == pytest.approx(1 / 3, rel=1e-12)
    # σ² of p2 = (1/3)(2/3) = 2/9; mean over the 2 groups 1/9
    assert one["group/var_mean"] == pytest.approx(1 / 9, rel=1e-12)
    # a verl dump: verl's std, ddof 1. p2 = (0, 1, 0): Σ(R - 1/3)² = 2/9 + 4/9 = 2/3, over
    # G - 1 = 2 is 1/3; its spread (1 - 0)/(sqrt(1/3) + 1e-6), p1's 0
    assert report["std"]["ddof"] == 1 and "verl's GRPO divides by torch.std" in report["std"]["why"]
    assert one["adv/gap_mean"] == pytest.approx(0.5 / (math.sqrt(1 / 3) + 1e-6), rel=1e-12)
    # step 2: p1 all pass, p2 all fail; s̄ = 1/2 -> 1/4
    assert two["group/zero_var_frac"] == 1.0 and two["group/zero_var_fail_frac"] == 0.5
    assert two["group/zero_var_predicted_pooled"] == 0.25 and two["adv/gap_max"] == 0.0


CSV = """step,prompt_id,score,goal
0,a,1,high
0,a,1,high
0,a,0,low
0,a,0,low
0,b,1,high
0,b,1,low
0,b,0,high
0,b,0,low
"""


def test_an_explicit_ddof_wins_over_verl_s(tmp_path):
    report = _report(str(_verl_dump(tmp_path / "rollouts")), "--ddof", "0")
    # p2's population variance 2/9: spread 1/(sqrt(2/9) + 1e-6), half of it over the 2 groups
    assert report["std"] == {"ddof": 0, "why": "as --ddof asks"}
    one = report["steps"][0]
    assert one["adv/gap_mean"] == pytest.approx(0.5 / (math.sqrt(2 / 9) + 1e-6), rel=1e-12)


def test_the_std_of_a_table_and_of_a_run_folder(tmp_path):
    rows = "".join(f'{{"step": 1, "group": "g", "reward": {r}}}\n' for r in (0, 1, 0))
    (tmp_path / "t.jsonl").write_text(rows)
    table = _report(str(tmp_path / "t.jsonl"))
    # a table: the paper's population std; (0, 1, 0) has σ² = 2/9, spread 1/(sqrt(2/9) + 1e-6)
    assert table["std"]["ddof"] == 0 and table["std"]["why"].startswith("the paper's")
    assert table["steps"][0]["adv/gap_mean"] == pytest.approx(1 / (math.sqrt(2 / 9) + 1e-6))
    (tmp_path / "a.jsonl").write_text(rows.replace("}", ', "a": 0.5}'))
    recorded = _report(str(tmp_path / "a.jsonl"), "--advantage-col", "a")
    assert recorded["std"] == {"ddof": None, "why": "the advantages are the recorded ones"}
    run = _report(str(ROOT / "results" / "campaign" / RUNS[0]), "--ddof", "1")
    # a run folder: its config's ddof (0), --ddof ignored
    assert run["std"] == {
        "ddof": 0,
        "why": "the run's own, from its config.json; --ddof is ignored",
    }


def test_a_hand_made_csv_with_goals(tmp_path):
    path = tmp_path / "rollouts.csv"
    path.write_text(CSV)
    flags = ["--group-col", "prompt_id", "--reward-col", "score", "--goal-col", "goal"]
    (row,) = _report(str(path), *flags, "--p-high", "0.5")["steps"]
    # a: μ_h = 1, μ_l = 0, σ² = 1/4 all between goals; b: μ_h = μ_l = 1/2, all within
    assert row["group/var_mean"] == 0.25 and row["group/between_frac"] == 0.5
    assert row["group/var_between_mean"] == 0.125 and row["group/var_within_mean"] == 0.125
    # pooled ε = μ_h - μ_l = 3/4 - 1/4; κ = (3/4)(1/4) = 3/16; κ ε² = 3/64
    assert row["group/mode_sep_pooled"] == 0.5 and row["theory/kappa"] == 0.1875
    assert row["theory/var_bound_iid"] == 3 / 64 and row["group/zero_var_frac"] == 0.0


@pytest.mark.parametrize(
    ("text", "flags", "message"),
    [
        ("step,group,score\n0,a,1\n0,a,0\n", [], "no column 'reward'"),
        ("step,group,reward\n0,a,1\n0,a,x\n", [], "reward 'x' is not a number"),
        ("step,group,reward\n0,a,1\n0,b,0\n", [], "groups of size 1"),
        ("step,group,reward\n0,a,1\n0,a,0\n0,b,1\n0,b,0\n0,c,1\n", [], "mixed group sizes"),
    ],
)
def test_a_table_it_cannot_read_exits_2_with_one_line(tmp_path, capsys, text, flags, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert cli.main([str(path), "--out", str(tmp_path / "out"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_mixed_sizes_are_split_or_dropped_and_noted(tmp_path):
    path = tmp_path / "t.jsonl"
    rows = [
        ("a", 1),
        ("a", 0),
        ("b", 1),
        ("b", 1),
        ("b", 0),
        ("b", 0),
        ("c", 1),
        ("d", 0),
        ("d", 0),
    ]
    path.write_text(
        "".join(json.dumps({"step": 3, "group": g, "reward": r}) + "\n" for g, r in rows)
    )
    report = _report(str(path), "--drop-ragged")
    (row,) = report["steps"]
    # G = 2 (a, d); b (4 = 2·G) is two groups (1, 1) and (0, 0); c (size 1) is dropped
    assert (row["groups"], row["group_size"]) == (4, 2)
    assert row["group/zero_var_frac"] == 0.75
    assert any("split" in n for n in report["notes"]) and any(
        "dropped" in n for n in report["notes"]
    )


def test_the_verdict_rule():
    assert rolling_means([0, 1, 1, 0], 2) == [0, 0.5, 1, 0.5]
    assert onset_index([0.2, 0.6, 0.4, 0.5, 0.7], 0.5) == 3
    assert onset_index([0.6, 0.4], 0.5) is None
    keys = ("group/zero_var_frac", "group/zero_var_predicted_pooled")
    rows = [
        {
            "step": s,
            keys[0]: z,
            keys[1]: 0.2,
            "group/zero_var_success_frac": z,
            "group/zero_var_fail_frac": 0.0,
            "reward/success_rate": 0.9,
        }
        for s, z in enumerate([0.0, 0.0, 0.8, 0.9, 1.0])
    ]
    v = verdict(rows, threshold=0.5, window=2, margin=0.1)
    # m = 0, 0, 0.4, 0.85, 0.95: collapsed from step 3; stretch mean z = 0.95 > 0.2 + 0.1
    assert v["collapsed"] and v["onset_step"] == 3 and v["observed"] == pytest.approx(0.95)
    assert not v["explained_by_iid"] and "Collapsed: from step 3" in v["text"]


def test_the_report_json_holds_every_number(tmp_path, capsys):
    dump = _verl_dump(tmp_path / "rollouts")
    out = tmp_path / "report"
    assert cli.main([str(dump), "--out", str(out), "--page", "md"]) == 0
    said = "std ddof 1 (a verl dump: verl's GRPO divides by torch.std, the unbiased std; --ddof 0"
    assert capsys.readouterr().out.splitlines()[1].startswith(f"advantages: {said}")
    data = json.loads((out / "report.json").read_text())
    assert set(data) == {"source", "format", "std", "notes", "summary", "steps", "metrics"}
    assert data["summary"]["means"]["group/zero_var_frac"] == 0.75
    assert data["summary"]["verdict"]["collapsed"] is True  # window mean 0.75 >= 0.5
    assert data["summary"]["verdict"]["onset_step"] == 1
    assert "NaN" not in (out / "report.json").read_text()  # NaN is written as null
    assert all(name in data["metrics"] for name in data["steps"][0] if "/" in name)
    page = (out / "report.md").read_text()
    assert f"Advantages: {said}" in page
    assert page.count("](figures/") == 3 and all(
        (out / "figures" / f).stat().st_size > 1000
        for f in ("collapse.png", "spread.png", "variance.png")
    )
