"""analysis.campaigns.pool.conversation_sample on hand-made run folders: a re-run's messages are committed
only when its rollout table and held-out evaluations equal the committed run's."""

from __future__ import annotations

import gzip
import json

import pytest

from analysis.campaigns.pool import conversation_sample as cs
from analysis.runs import load_run

ARGV = ["train", "--preset", "cpu-rcgrpo", "--run.seed", "0", "--run.steps", "200"]
ARGV += ["--init", "rctp-s0/final"]


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _folder(root, rewards, conversations=False, per_task=(1.0,)):
    """A run folder with 2 steps x 2 rollouts: rewards[step - 1] per rollout."""
    d = root / "cpu-rcgrpo-s0"
    (d / "eval").mkdir(parents=True)
    (d / "config.json").write_text("{}")
    (d / "campaign.json").write_text(json.dumps({"argv": ARGV}))
    (d / "summary.json").write_text(json.dumps({"code": {"git": "abc123-dirty"}}))
    _jsonl(d / "metrics.jsonl", [{"step": s} for s in (0, 1, 2)])
    keys = [{"step": s, "round": 0, "prompt": 0, "group": g} for s in (1, 2) for g in (0, 1)]
    rows = [{**k, "reward": rewards[k["step"] - 1][k["group"]], "advantage": None} for k in keys]
    _jsonl(d / "rollouts.jsonl", rows)
    if conversations:
        reply = [{"role": "assistant", "content": "reply {step}{group}"}]
        convs = [
            {**k, "messages": [{**reply[0], "content": reply[0]["content"].format(**k)}]}
            for k in keys
        ]
        _jsonl(d / "conversations.jsonl", convs)
    tasks = [{"task_id": "t", "reward": r} for r in per_task]
    (d / "eval" / "step_0.json").write_text(
        json.dumps({"conditions": {"high": {"per_task": tasks}}})
    )
    return d


@pytest.fixture
def committed(tmp_path, monkeypatch):
    monkeypatch.setattr(cs, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(cs, "ROOT", tmp_path)
    return _folder(tmp_path / "results", [[1, 0], [0, 0]])


def test_the_rerun_command(committed):
    assert cs.trained_at("cpu-rcgrpo-s0") == "abc123"  # the dirty mark dropped
    argv = cs.rerun_argv("cpu-rcgrpo-s0", 2, committed.parent / "work")
    assert argv[argv.index("--run.steps") + 1] == "2"
    assert argv[argv.index("--init") + 1] == str(committed.parent / "rctp-s0" / "final")
    assert argv[-4:] == ["--run.root", str(committed.parent / "work"), "--run.name", argv[-1]]


def test_an_exact_rerun_is_committed(committed, tmp_path):
    again = _folder(tmp_path / "work", [[1, 0], [0, 0]], conversations=True)
    assert cs.mismatches("cpu-rcgrpo-s0", again, 1) == (2, 0)
    assert cs.eval_mismatches("cpu-rcgrpo-s0", again, 1) == (1, 0)
    path = cs.write_sample("cpu-rcgrpo-s0", again, 1)
    rows = [json.loads(x) for x in gzip.decompress(path.read_bytes()).decode().splitlines()]
    assert [r["messages"][0]["content"] for r in rows] == ["reply 10", "reply 11"]  # step 1 only
    run = load_run(committed)
    assert len(run.conversations) == 2 and run.conversations_source["steps"] == [1, 1]
    assert run.conversations_source["init"] == "results/rctp-s0/final"


def test_a_rerun_that_differs_is_refused(committed, tmp_path):
    # step 2's second rollout scored 1 instead of 0: step 1 still matches, step 2 does not
    again = _folder(tmp_path / "work", [[1, 0], [0, 1]], conversations=True)
    assert cs.mismatches("cpu-rcgrpo-s0", again, 1) == (2, 0)
    assert cs.mismatches("cpu-rcgrpo-s0", again, 2) == (4, 1)
    with pytest.raises(RuntimeError, match="differs from the committed one in 1 of 4 rows"):
        cs.write_sample("cpu-rcgrpo-s0", again, 2)
    assert not (committed / "conversations.jsonl.gz").exists()


def test_a_rerun_whose_evaluation_differs_is_refused(committed, tmp_path):
    again = _folder(tmp_path / "work", [[1, 0], [0, 0]], conversations=True, per_task=(0.0,))
    assert cs.eval_mismatches("cpu-rcgrpo-s0", again, 2) == (1, 1)
    with pytest.raises(RuntimeError, match="1 of 1 held-out evaluations differ"):
        cs.write_sample("cpu-rcgrpo-s0", again, 2)
