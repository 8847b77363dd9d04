"""``python -m analysis.figures build`` (``make figures``) never trains: a figure whose runs
are not all done is not built, named with the runs it lacks and ``make runs``, and the build
exits 1."""

from __future__ import annotations

import subprocess

import pytest

import analysis.campaign.__main__ as campaign_cli
import analysis.campaign.mechanics as cp
import analysis.campaigns.pool.driver as ex
import analysis.figures.__main__ as builder
from analysis.runs import is_finished

FIGURE = "rl_baselines"
"""A figure that reads committed runs (the factorial and the baselines)."""
HIDDEN = "cpu-dapo-s1"
"""The committed run folder hidden from the build (a baseline of seed 1)."""


@pytest.fixture
def no_training(monkeypatch):
    """Every way the campaign trains fails the test: run_all, a launch, a subprocess."""
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError("the figure build started training")

    for target in (cp, campaign_cli):
        monkeypatch.setattr(target, "run_all", refuse)
    monkeypatch.setattr(cp, "_launch", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    return calls


@pytest.fixture
def results_without_one_run(tmp_path, monkeypatch):
    """results/campaign as a tree of links to the committed run folders, all but HIDDEN;
    runs/campaign empty (a local run must not stand in for the hidden one)."""
    assert is_finished(cp.RESULTS / HIDDEN), f"{HIDDEN} is not committed"
    results = tmp_path / "results" / "campaign"
    results.mkdir(parents=True)
    for folder in cp.RESULTS.iterdir():
        if folder.name != HIDDEN:
            (results / folder.name).symlink_to(folder, target_is_directory=folder.is_dir())
    monkeypatch.setattr(cp, "RESULTS", results)
    monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / "runs" / "campaign")
    return results


def test_a_hidden_committed_run_fails_the_build_naming_it_and_make_runs(
    results_without_one_run, no_training, tmp_path, capsys
):
    assert HIDDEN in ex.build_campaign().experiments["baselines"]
    out = tmp_path / "figures"
    code = builder.main(["build", "--only", FIGURE, "theory_variance", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{FIGURE}: lacks run(s) {HIDDEN} (train them: make runs)" in err
    assert f"`make runs` trains the 1 run(s) they lack ({HIDDEN})" in err
    assert no_training == []
    # the figure it could build is built, the other is not (nothing half-drawn)
    assert sorted(p.name for p in out.iterdir()) == [
        "theory_variance.json",
        "theory_variance.pdf",
        "theory_variance.png",
    ]


def test_build_one_raises_before_drawing_and_leaves_older_files(
    results_without_one_run, no_training, tmp_path
):
    older = tmp_path / f"{FIGURE}.png"
    older.write_bytes(b"an older build")
    with pytest.raises(builder.MissingRuns) as caught:
        builder.build_one(FIGURE, tmp_path, ("png",))
    assert caught.value.figure == FIGURE and caught.value.runs == [HIDDEN]
    assert older.read_bytes() == b"an older build" and no_training == []
