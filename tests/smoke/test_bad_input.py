"""The bad-input table of issue 60, run as a user runs it (``python -m rcgrpo ...`` in a
fresh process): each command exits 2 with exactly one line on stderr, no traceback, nothing
on stdout, nothing written."""

from __future__ import annotations

import json
import os

import pytest
from doc_commands import rcgrpo

from rcgrpo.train.cli import command_presets


def _verl_dump(folder) -> None:
    folder.mkdir()
    row = {"step": 2, "input": "a", "output": "...", "score": 1.0}
    (folder / "1.jsonl").write_text(json.dumps(row | {"step": 1}) + "\n")
    (folder / "2.jsonl").write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    with (folder / "2.jsonl").open("a") as fh:
        fh.write('{"step": 2, "input": "a", "score": }\n')  # line 3; "}" is its 36th character


CASES = {
    "malformed dump": (
        ["diagnose", "dump"],
        "rcgrpo diagnose: dump/2.jsonl:3: not JSON (Expecting value, column 36)",
    ),
    "hub id offline": (
        ["eval", "--model", "Qwen/Qwen2.5-0.5B-Instruct"],
        "rcgrpo eval: --model: model 'Qwen/Qwen2.5-0.5B-Instruct' not found locally (no such "
        "folder, not in the Hugging Face cache), and offline (HF_HUB_OFFLINE is set)",
    ),
    "misspelled preset": (
        ["train", "--preset", "cpu-grpp"],
        "rcgrpo train: config: no preset 'cpu-grpp' of train (did you mean cpu-grpo?); --help "
        f"lists its {len(command_presets('train'))} presets",
    ),
    "unknown eval flag": (["eval", "--n", "2"], "rcgrpo eval: unknown option --n; see --help"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_bad_input_is_one_line_and_exit_2(case, tmp_path):
    argv, line = CASES[case]
    _verl_dump(tmp_path / "dump")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "COLUMNS": "80"}
    done = rcgrpo(argv, tmp_path, env, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
