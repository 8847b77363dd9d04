"""``python -m rcgrpo sft | rctp | train``: a flag the command does not read and a bad value
exit 2 with one line on stderr (no traceback), before anything is written."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["train", "--model.path", "X"],
            "rcgrpo train: flag model.path does not apply to train (it is read by sft, rctp only)",
        ),
        (
            ["sft", "--optim.micro-batch", "4"],
            "rcgrpo sft: flag optim.micro_batch does not apply to sft (it is read by train only)",
        ),
        (
            ["rctp", "--sft.amp", "fp16"],
            "rcgrpo rctp: config: sft.amp must be one of ['auto', 'bf16', 'fp32', 'none'], "
            "got 'fp16'",
        ),
    ],
)
def test_config_errors_exit_2_with_one_line(argv, line, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", *argv, "--run.root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stderr, done.stdout) == (2, line + "\n", "")
    assert list(tmp_path.iterdir()) == []
