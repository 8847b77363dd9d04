"""The trainers' progress bars (issue 49): the RL bar's text per step, an episode bar, and
silence when stderr is not a terminal or ``run.progress`` is off."""

from __future__ import annotations

import io
import re

import torch

from rcgrpo.train.progress import advance, close, open_bar, rl_postfix


class Terminal(io.StringIO):
    """A captured stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _last_frame(text: str) -> str:
    return re.split(r"[\r\n]", text.strip())[-1].replace("\x1b[A", "")


def test_the_rl_bar_shows_step_reward_zero_variance_share_seconds_and_eta():
    term = Terminal()
    bar = open_bar(10, "rl step", True, initial=2, stream=term)
    # a step's metrics as rl_step leaves them (0-d tensors or floats); 3 of 4 groups collapsed
    metrics = {"reward/mean": torch.tensor(0.5), "group/zero_var_frac": 0.75}
    advance(bar, rl_postfix(metrics, 5.44))
    close(bar)
    frame = _last_frame(term.getvalue())
    assert frame.startswith("rl step 3/10 [")  # resumed at step 2, one step done
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d\]", frame)  # elapsed < ETA
    assert frame.endswith("reward 0.500 | zero-var 0.75 | 5.4 s/step")


def test_a_metric_the_step_did_not_compute_is_a_dash():
    assert rl_postfix({}, 12.0) == "reward - | zero-var - | 12.0 s/step"


def test_no_bar_without_a_terminal_or_with_progress_off():
    plain, term = io.StringIO(), Terminal()
    assert open_bar(5, "rl step", True, stream=plain) is None
    assert open_bar(5, "rl step", False, stream=term) is None
    advance(None, "ignored")
    close(None)
    assert plain.getvalue() == term.getvalue() == ""


def test_an_episode_bar_counts_finished_episodes():
    from rcgrpo.env import Episode
    from rcgrpo.policy import ChatEncoder, RolloutEngine, RolloutJob, ScriptedPolicy
    from rcgrpo.policy.models import build_tiny_policy
    from rcgrpo.policy.task_sources import load_task_splits
    from rcgrpo.train.config import TaskConfig

    tasks, _ = load_task_splits(TaskConfig(num_train=3, num_eval=1, max_turns=1), "tiny")
    _, tokenizer = build_tiny_policy("micro", seed=0)
    enc = ChatEncoder(tokenizer)
    engine = RolloutEngine(
        ScriptedPolicy(enc, lambda view: "Done."), enc, Episode, mode="combined", max_context=4000
    )
    term = Terminal()
    bar = open_bar(len(tasks), "eval combined/high", True, stream=term)
    engine.run([RolloutJob(t) for t in tasks], on_done=lambda: advance(bar))
    assert bar.n == 3
    close(bar)
    assert "eval combined/high: 100%" in term.getvalue() and "3/3" in term.getvalue()
