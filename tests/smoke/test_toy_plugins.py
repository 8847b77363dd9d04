"""A new goal scheme and a new advantage estimator, each in one file (``toy_scheme.py``,
``toy_estimator.py``), registered by this test and trained for 2 steps with ``python -m rcgrpo
train`` as ``test_train_cli.py`` trains the presets: the goals follow the scheme and its state
is checkpointed and resumed, the logged advantages are the estimator's (recomputed by hand
from the logged rewards, goals, tasks and lengths), and ``diagnose`` recomputes the logged
metrics through the same registry."""

from __future__ import annotations

import json
import sys

import pytest
import torch
from rl_smoke_helpers import SMALL_RUN, params, rows

from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.advantages import ADV_ESTIMATORS
from rcgrpo.conditioning import SCHEMES
from rcgrpo.diagnose import cli as diagnose_cli
from rcgrpo.train.checkpoint import load_trainer_state


@pytest.fixture(scope="module")
def toys():
    """The two plugin modules, registered on import; unregistered afterwards, so no other
    test sees them in the registries."""
    import toy_estimator
    import toy_scheme

    yield toy_scheme, toy_estimator
    SCHEMES.pop(toy_scheme.NAME)
    ADV_ESTIMATORS.pop(toy_estimator.NAME)
    for module in ("toy_scheme", "toy_estimator"):  # a later import registers them again
        sys.modules.pop(module)


@pytest.fixture(autouse=True)
def one_thread():
    """As ``test_train_cli.py``: one torch thread on 2 shared cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _train(toys, coin_flip, root, name: str, steps: int, *extra: str) -> None:
    scheme, estimator = toys
    argv = [
        "train",
        "--preset",
        "cpu-rcgrpo",
        "--init",
        str(coin_flip),
        *SMALL_RUN,
        *("--algo.conditioning", scheme.NAME, "--algo.adv-estimator", estimator.NAME),
        *("--run.steps", str(steps), "--run.checkpoint-every", "1"),
        *("--run.root", str(root), "--run.name", name, *extra),
    ]
    assert rcgrpo_main(argv) == 0


def test_two_steps_with_a_new_scheme_and_estimator(toys, coin_flip, tmp_path):
    scheme, estimator = toys
    _train(toys, coin_flip, tmp_path, "r", 2)
    run = tmp_path / "r"
    algo = json.loads((run / "config.json").read_text())["algo"]
    assert (algo["conditioning"], algo["adv_estimator"]) == (scheme.NAME, estimator.NAME)
    table = rows(run / "rollouts.jsonl")
    assert len(table) == 2 * 2 * 4  # steps x P x G, one round a step
    for step in (1, 2):
        mine = [r for r in table if r["step"] == step]
        # the scheme: high iff prompt + place in group + rounds drawn before is even
        want = [(r["prompt"] + r["group"] + step - 1) % 2 == 0 for r in mine]
        assert [r["reward_token"] == "high" for r in mine] == want
        # the estimator by hand: s = R - c·L, baseline = mean s of the same task and goal
        s = [r["reward"] - estimator.LENGTH_COST * r["gen_tokens"] for r in mine]
        for r, s_j in zip(mine, s, strict=True):
            peers = [
                s_k
                for q, s_k in zip(mine, s, strict=True)
                if (q["task_id"], q["reward_token"]) == (r["task_id"], r["reward_token"])
            ]
            assert r["advantage"] == pytest.approx(s_j - sum(peers) / len(peers), abs=1e-5)
    metrics = rows(run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [0, 1, 2]
    for m in metrics[1:]:
        assert m["reward/high_frac"] == 0.5  # each group of 4: 2 high, 2 low
        assert "adv/between_share" not in m  # the split reads centred estimators only
        assert not any(k.startswith("theory/") for k in m)  # goals are not i.i.d. Bernoulli(p)
        assert m["loss/nonfinite"] == 0
    # the scheme's state after two rounds, checkpointed with the run
    goals = load_trainer_state(run / "checkpoints" / "step_2")["data"]["goals"]
    assert goals["scheme"] == scheme.NAME and goals["state"]["rounds"] == 2
    assert goals["state"]["reward_sum"] == pytest.approx(sum(r["reward"] for r in table))
    if any(m["adv/gap_max"] > 0 for m in metrics[1:]):
        before, after = params(coin_flip), params(run / "checkpoints" / "step_2")
        assert any(not torch.equal(before[k], after[k]) for k in before)
    # diagnose reads the run's estimator and the inputs it declares from the records
    report = diagnose_cli.diagnose(diagnose_cli._parser().parse_args([str(run)]))
    for m, step in zip(metrics[1:], report["steps"], strict=True):
        for key in ("adv/abs_mean", "adv/gap_mean", "adv/nonzero_frac"):
            assert step[key] == pytest.approx(m[key], rel=1e-6), key
    # resumed after step 1, the run draws step 2's goals from the restored state
    _train(toys, coin_flip, tmp_path, "s", 1)
    _train(toys, coin_flip, tmp_path, "s", 2, "--run.resume")
    resumed = rows(tmp_path / "s" / "rollouts.jsonl")
    tokens = [[r["reward_token"] for r in t if r["step"] == 2] for t in (table, resumed)]
    assert tokens[0] == tokens[1]
