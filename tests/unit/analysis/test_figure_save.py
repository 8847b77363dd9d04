"""Rebuilding a figure from unchanged inputs gives byte-identical files (analysis/figures/save)."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from analysis.figures import __main__ as builder  # noqa: E402
from analysis.figures.save import (  # noqa: E402
    file_entries,
    relative,
    run_entry,
    save_figure,
    write_sidecar,
)

FORMATS = ("png", "pdf", "svg")


def _figure():
    fig, ax = plt.subplots(figsize=(3, 2))
    x = np.linspace(0, 1, 50)
    ax.plot(x, x**2, label="line")
    ax.pcolormesh(np.outer(x[:10], x[:10]), rasterized=True)  # an embedded image in PDF / SVG
    ax.legend()
    return fig


def _bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_same_figure_same_bytes_in_every_format(tmp_path):
    for out in ("a", "b"):
        fig = _figure()
        save_figure(fig, tmp_path / out, "f", FORMATS)
        plt.close(fig)
    first, second = _bytes(tmp_path / "a"), _bytes(tmp_path / "b")
    assert sorted(first) == ["f.pdf", "f.png", "f.svg"] and first == second
    assert b"CreationDate" not in first["f.pdf"]
    assert b"<dc:date>" not in first["f.svg"]


def test_sidecar_is_relative_hashed_and_sorted(tmp_path):
    run = tmp_path / "runs" / "r-s0"
    run.mkdir(parents=True)
    (run / "config.json").write_text("{}")
    entry = run_entry(run, tmp_path)
    # sha256("{}") = 44136fa355b3678a...; the run has no other file
    assert entry == {
        "path": "r-s0",
        "sha256_16": {
            "campaign.json": None,
            "config.json": "44136fa355b3678a",
            "metrics.jsonl": None,
            "rollouts.jsonl": None,
            "summary.json": None,
            "data.json": None,
        },
    }
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x-1.json").write_text("{}")
    assert file_entries(("d/x-*.json",), tmp_path) == [
        {"path": "d/x-1.json", "sha256_16": "44136fa355b3678a"}
    ]
    with pytest.raises(FileNotFoundError, match="'d/y-\\*.json' matches no file"):
        file_entries(("d/y-*.json",), tmp_path)
    assert (
        relative(tmp_path.parent / "elsewhere", tmp_path)
        == (tmp_path.parent / "elsewhere").as_posix()
    )
    path = write_sidecar(tmp_path / "s.json", {"b": 1, "a": {"d": 2, "c": 3}})
    assert (
        path.read_text()
        == json.dumps({"a": {"c": 3, "d": 2}, "b": 1}, indent=2, sort_keys=True) + "\n"
    )


def test_unknown_format_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="unknown figure format"):
        save_figure(_figure(), tmp_path, "f", ("png", "gif"))


@pytest.mark.slow  # builds every figure twice
def test_builder_twice_gives_identical_files(tmp_path):
    # a theory figure (no runs): files and sidecar of two builds are byte-identical, the
    # second built in a worker process of `build --jobs 2` (beside another figure)
    builder.build_one("theory_collapse", tmp_path / "a", FORMATS)
    argv = ["build", "--only", "theory_collapse", "theory_variance", "--jobs", "2"]
    assert builder.main([*argv, "--formats", *FORMATS, "--out", str(tmp_path / "b")]) == 0
    first = _bytes(tmp_path / "a")
    second = {k: v for k, v in _bytes(tmp_path / "b").items() if k.startswith("theory_collapse")}
    assert len(first) == 4 and first == second
    side = json.loads(first["theory_collapse.json"])
    assert side["figure"] == "theory_collapse" and side["runs"] == {} and side["files"] == []
    assert "seconds" not in side and "git_commit" not in side


CALLER_WITH_THREADS = """
import sys, torch
if __name__ == "__main__":
    torch.set_num_threads(2)
    x = torch.randn(512, 512)
    (x @ x).sum()  # the caller has run a multi-threaded torch op, as a test session has
    from analysis.figures import __main__ as builder
    argv = ["build", "--only", "theory_collapse", "theory_variance", "--jobs", "2"]
    sys.exit(builder.main([*argv, "--formats", "png", "--out", sys.argv[1]]))
"""


def test_parallel_build_survives_a_caller_that_ran_torch_threads(tmp_path):
    # theory_variance runs torch ops; a worker forked from such a caller deadlocked there
    import subprocess
    import sys

    from analysis import REPO_ROOT

    script = tmp_path / "caller.py"
    script.write_text(CALLER_WITH_THREADS)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(script), str(out)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in out.glob("*.png")) == [
        "theory_collapse.png",
        "theory_variance.png",
    ]
    # as make figures runs it: the module is __main__, its workers look their task up by name
    argv = ["build", "--only", "theory_collapse", "theory_variance", "--jobs", "2"]
    argv += ["--formats", "png", "--out", str(tmp_path / "m")]
    done = subprocess.run(
        [sys.executable, "-m", "analysis.figures", *argv],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    built = (tmp_path / "m" / "theory_variance.png").read_bytes()
    assert built == (out / "theory_variance.png").read_bytes()
