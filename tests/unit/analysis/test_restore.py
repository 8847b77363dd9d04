"""``make restore RUN=<name>`` (analysis.runs.restore) in a throwaway repository: a run folder
deleted by a commit comes back byte for byte from the last commit of main that held it."""

from __future__ import annotations

import subprocess

import pytest

from analysis.runs import restore as rs

FILES = {
    "results/regime/r-s0/config.json": b'{"seed": 0}\n',
    "results/regime/r-s0/rollouts.jsonl.gz": bytes(range(256)),  # binary
    "results/regime/r-s0/eval/step_0.json": b"{}",
    "results/regime/sft-s0/final/model.safetensors": b"\x00weights\xff",
    "results/regime/sft-s0/config.json": b"{}",
    "results/campaign/sft-s0/config.json": b"{}",  # the same run name in another home
}


def _git(root, *args):
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    return subprocess.run([*command, "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    """main: commit 1 adds FILES, commit 2 deletes r-s0 and sft-s0/final, commit 3 another
    change to r-s0's home; a side branch holds a folder main never had."""
    _git(tmp_path, "init", "-q", "-b", "main")
    for path, data in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "results: r-s0 and sft-s0")
    _git(tmp_path, "rm", "-q", "-r", "results/regime/r-s0", "results/regime/sft-s0/final")
    _git(tmp_path, "commit", "-q", "-m", "results: r-s0 and a checkpoint removed")
    (tmp_path / "results/regime/notes.txt").write_text("later\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "a later commit")
    _git(tmp_path, "checkout", "-q", "-b", "side")
    (tmp_path / "results/regime/x-s0").mkdir()
    (tmp_path / "results/regime/x-s0/config.json").write_text("{}")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "side only")
    _git(tmp_path, "checkout", "-q", "main")
    return tmp_path


def test_a_deleted_run_comes_back_byte_for_byte_from_the_parent_of_its_deletion(repo):
    first = _git(repo, "rev-list", "--max-parents=0", "main").stdout.decode().strip()
    folder, commit, files = rs.restore("r-s0", repo)
    assert folder == "results/regime/r-s0" and commit == first  # the parent of the deletion
    assert sorted(files) == sorted(p for p in FILES if p.startswith(folder))
    assert all((repo / p).read_bytes() == FILES[p] for p in files)
    assert rs.restore("r-s0", repo)[2] == []  # nothing missing: nothing written
    status = _git(repo, "status", "--porcelain").stdout.decode()
    assert "?? results/regime/r-s0/" in status  # the index is not touched


def test_a_checkpoint_by_its_run_and_a_file_deleted_in_the_working_tree(repo):
    assert rs.restore("sft-s0/final", repo)[0] == "results/regime/sft-s0/final"
    path = "results/regime/sft-s0/final/model.safetensors"
    assert (repo / path).read_bytes() == FILES[path]
    (repo / "results/campaign/sft-s0/config.json").unlink()  # not committed: from main's tip
    (repo / "results/regime/sft-s0/config.json").write_text("changed")  # never overwritten
    assert rs.restore("campaign/sft-s0", repo)[2] == ["results/campaign/sft-s0/config.json"]
    assert (repo / "results/regime/sft-s0/config.json").read_text() == "changed"


def test_a_name_never_committed_or_ambiguous_gets_one_line(repo, capsys, monkeypatch):
    with pytest.raises(LookupError, match="no commit of main holds a folder results/\\*\\*/x-s0"):
        rs.restore("x-s0", repo)  # only on branch side
    assert rs.restore("x-s0", repo, branch="side")[2] == ["results/regime/x-s0/config.json"]
    with pytest.raises(LookupError, match="sft-s0 names 2 folders .*e.g. campaign/sft-s0"):
        rs.restore("sft-s0", repo)
    with pytest.raises(ValueError, match="not a run name"):
        rs.restore("../r-s0", repo)
    monkeypatch.setattr(rs, "REPO_ROOT", repo)
    assert rs.main(["never-run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "never-run" in err
    assert rs.main(["r-s0"]) == 0
    assert "results/regime/r-s0: restored 3 files from" in capsys.readouterr().out
