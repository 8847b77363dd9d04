"""``python -m rcgrpo diagnose`` on a malformed table (issue 60): one line on stderr naming the
file and the line of the bad row (``file:line:``), exit 2, nothing written."""

from __future__ import annotations

import json

import pytest

from rcgrpo.__main__ import main as rcgrpo_main

GOOD = {"step": 1, "input": "a", "output": "...", "score": 1.0}


def _diagnose(path, capsys, *flags: str) -> tuple[int, str]:
    code = rcgrpo_main(["diagnose", str(path), "--out", str(path.parent / "out"), *flags])
    captured = capsys.readouterr()
    assert captured.out == ""
    return code, captured.err


def test_a_malformed_line_of_a_verl_dump_names_its_file_and_line(tmp_path, capsys):
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "1.jsonl").write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n")
    # line 3 of 2.jsonl is broken; its blank line 2 still counts
    bad = '{"step": 2, "input": "a", bad}'
    (dump / "2.jsonl").write_text(json.dumps(GOOD | {"step": 2}) + "\n\n" + bad + "\n")
    code, err = _diagnose(dump, capsys)
    # json alone says "line 1 column 27": it was given one line; "bad" starts at column 27
    assert (code, err) == (
        2,
        f"rcgrpo diagnose: {dump / '2.jsonl'}:3: not JSON (Expecting property name "
        "enclosed in double quotes, column 27)\n",
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # a row with a field too many, at file line 3 (the header is line 1)
        ("step,group,reward\n0,a,1\n0,a,0,9\n", "t.csv:3: 4 fields, the header has 3"),
        # a row with a field too few
        ("step,group,reward\n0,a,1\n0,a,0\n0,b\n", "t.csv:4: 2 fields, the header has 3"),
        # a value that is not a number, at its real line
        ("step,group,reward\n0,a,1\n0,a,x\n", "t.csv:3: reward 'x' is not a number"),
    ],
)
def test_a_malformed_csv_row_names_its_line(tmp_path, capsys, text, line):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert _diagnose(path, capsys) == (2, f"rcgrpo diagnose: {tmp_path}/{line}\n")


def test_a_jsonl_line_that_is_not_an_object_names_its_line(tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"step": 0, "group": "a", "reward": 1}) + "\n[1, 2]\n")
    assert _diagnose(path, capsys) == (
        2,
        f"rcgrpo diagnose: {path}:2: not a JSON object (list)\n",
    )


def test_parquet_rows_are_numbered_and_a_broken_file_is_one_line(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    table = {"step": [0, 0, 0], "group": ["a", "a", "a"], "reward": ["1", "0", "x"]}
    pq.write_table(pa.table(table), path)
    assert _diagnose(path, capsys) == (
        2,
        f"rcgrpo diagnose: {path}: row 3: reward 'x' is not a number\n",
    )
    path.write_bytes(path.read_bytes()[:40])  # cut: no footer
    code, err = _diagnose(path, capsys)
    assert code == 2 and err.startswith(f"rcgrpo diagnose: {path}: not a readable Parquet file (")
    assert err.count("\n") == 1
