"""The trainers' progress: the RL bar's text per step and an episode bar on a terminal; in a
log file a line when a bar opens, every 15 s of work and when it closes, one time per step a
line (checked with a fake clock, never real time), a heartbeat for a step with nothing to
count; silence with ``run.progress`` off."""

from __future__ import annotations

import io
import re
import threading

import torch

from rcgrpo.train import progress
from rcgrpo.train.progress import (
    EpisodeTally,
    Heartbeat,
    LogLines,
    advance,
    clock_text,
    close,
    heartbeat,
    open_bar,
    rl_postfix,
)


class Terminal(io.StringIO):
    """A captured stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _last_frame(text: str) -> str:
    return re.split(r"[\r\n]", text.strip())[-1].replace("\x1b[A", "")


def test_the_rl_bar_shows_step_reward_zero_variance_share_rate_and_eta():
    term = Terminal()
    bar = open_bar(10, "rl step", True, initial=2, stream=term)
    # a step's metrics as rl_step leaves them (0-d tensors or floats); 3 of 4 groups collapsed
    metrics = {"reward/mean": torch.tensor(0.5), "group/zero_var_frac": 0.75}
    advance(bar, rl_postfix(metrics))
    close(bar)
    frame = _last_frame(term.getvalue())
    assert frame.startswith("rl step 3/10 [")  # resumed at step 2, one step done
    # elapsed < ETA, then the rate: the frame's one time per step (s/step, or step/s if fast)
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d, *[\d.]+(s/step|step/s), reward", frame)
    assert len(re.findall(r"s/step|step/s", frame)) == 1
    assert frame.endswith(", reward 0.500 | zero-var 0.75]")


def test_a_metric_the_step_did_not_compute_is_a_dash():
    assert rl_postfix({}) == "reward - | zero-var -"


def test_no_bar_with_progress_off_and_log_lines_without_a_terminal():
    plain, term = io.StringIO(), Terminal()
    assert open_bar(5, "rl step", False, stream=term) is None
    assert open_bar(5, "rl step", False, stream=plain) is None
    advance(None, "ignored")
    close(None)
    assert plain.getvalue() == term.getvalue() == ""
    assert isinstance(open_bar(5, "rl step", True, stream=plain), LogLines)
    assert plain.getvalue() == "rl step 0/5 (0%) | 0:00 elapsed\n"  # the start, at once


class FakeClock:
    """Seconds that move only when the test says so."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_log_lines_come_at_the_start_every_interval_and_at_the_end():
    log, clock = io.StringIO(), FakeClock()
    bar = open_bar(10, "rl step", True, initial=2, stream=log, clock=clock)
    for at in (105.0, 110.0):  # steps 3, 4: within 15 s of the start line, no line
        clock.now = at
        advance(bar, rl_postfix({"reward/mean": 0.5}))
    assert log.getvalue() == "rl step 2/10 (20%) | 0:00 elapsed\n"  # resumed at step 2
    clock.now = 116.0  # step 5: 3 steps in 16 s = 5.33 s/step; 5 left -> 26.7 s
    advance(bar, rl_postfix({"reward/mean": 0.25, "group/zero_var_frac": 0.5}))
    clock.now = 130.0  # step 6: 14 s after the last line, none
    advance(bar)
    clock.now = 131.0  # step 7: 15 s after it; 5 steps in 31 s = 6.2 s/step, 3 left -> 18.6 s
    advance(bar)
    clock.now = 135.0  # step 8: 4 s after it, none
    advance(bar)
    clock.now = 140.0  # closed at step 8, 40 s from the start: 6 in 40 = 6.7 s/step, 2 left
    close(bar)
    # one time per step a line: the mean since the start, the pace of the ETA
    assert log.getvalue().splitlines() == [
        "rl step 2/10 (20%) | 0:00 elapsed",
        "rl step 5/10 (50%) | 5.3 s/step | 0:16 elapsed, ETA 0:27 | reward 0.250 | zero-var 0.50",
        "rl step 7/10 (70%) | 6.2 s/step | 0:31 elapsed, ETA 0:19 | reward 0.250 | zero-var 0.50",
        "rl step 8/10 (80%) | 6.7 s/step | 0:40 elapsed, ETA 0:13 | reward 0.250 | zero-var 0.50",
    ]
    again = io.StringIO()
    bar = open_bar(2, "rl step", True, stream=again, clock=FakeClock(0.0), interval=1.0)
    bar.clock.now = 5.0  # the last step's line ...
    advance(bar, steps=2)
    close(bar)  # ... already shows the final count: closing adds no second one
    assert again.getvalue().splitlines() == [
        "rl step 0/2 (0%) | 0:00 elapsed",
        "rl step 2/2 (100%) | 2.5 s/step | 0:05 elapsed, ETA 0:00",
    ]


def test_a_fast_count_is_per_second_and_a_short_job_prints_its_start_and_end():
    log, clock = io.StringIO(), FakeClock(0.0)
    bar = open_bar(200, "eval combined/high", True, stream=log, unit="episode", clock=clock)
    tally = EpisodeTally(bar)
    for k in range(1, 41):  # 40 episodes in 16 s, the first 10 succeed
        clock.now = 0.4 * k
        tally(type("Rollout", (), {"reward": float(k <= 10)})())
    # the start; a line at 15.2 s (38 episodes: 2.5 episode/s, 162 left -> 64.8 s); the close
    close(bar)
    assert log.getvalue().splitlines() == [
        "eval combined/high 0/200 (0%) | 0:00 elapsed",
        "eval combined/high 38/200 (19%) | 2.5 episode/s | 0:15 elapsed, ETA 1:05 | success 0.263",
        "eval combined/high 40/200 (20%) | 2.5 episode/s | 0:16 elapsed, ETA 1:04 | success 0.250",
    ]
    short = io.StringIO()
    bar = open_bar(3, "rl step", True, stream=short, clock=FakeClock(0.0))
    for _ in range(3):  # a 9 s run, well within the 15 s interval: 3 steps of 3 s
        bar.clock.now += 3.0
        advance(bar, rl_postfix({"reward/mean": 1.0, "group/zero_var_frac": 1.0}))
    close(bar)
    assert short.getvalue().splitlines() == [
        "rl step 0/3 (0%) | 0:00 elapsed",
        "rl step 3/3 (100%) | 3.0 s/step | 0:09 elapsed, ETA 0:00 | reward 1.000 | zero-var 1.00",
    ]


def test_clock_text():
    assert [clock_text(s) for s in (0, 59.6, 61, 3599, 3600, 7384)] == [
        "0:00",
        "1:00",
        "1:01",
        "59:59",
        "1:00:00",
        "2:03:04",
    ]


def test_a_heartbeat_prints_while_the_step_runs_and_when_it_ends():
    log, clock = io.StringIO(), FakeClock(0.0)
    idle, stop = threading.Event(), threading.Event()
    beats = iter([False, False])  # two intervals pass, then the step ends

    def waiter(interval: float) -> bool:
        beat = next(beats, None)
        if beat is None:  # the two lines are printed: wait for the end of the step
            idle.set()
            return stop.wait()
        clock.now += interval
        return beat

    with Heartbeat("sft tokenizer on 12 texts", log, interval=15.0, clock=clock, waiter=waiter):
        idle.wait()
        clock.now = 40.0
        stop.set()
    assert log.getvalue().splitlines() == [
        "sft tokenizer on 12 texts: 0:15 elapsed",
        "sft tokenizer on 12 texts: 0:30 elapsed",
        "sft tokenizer on 12 texts: done in 0:40",
    ]
    quiet = io.StringIO()
    with heartbeat("short", True, quiet):  # ends before its first interval
        pass
    with heartbeat("off", False, quiet):
        pass
    assert quiet.getvalue() == "" and heartbeat("tty", True, Terminal()).__class__ != Heartbeat


def test_evaluation_shows_its_progress_in_a_log_file(monkeypatch, capsys):
    from rcgrpo.policy.evaluate import evaluate_policy
    from rcgrpo.policy.models import build_tiny_policy
    from rcgrpo.policy.task_sources import load_task_splits
    from rcgrpo.train.config import TaskConfig

    _, tasks = load_task_splits(TaskConfig(num_train=1, num_eval=3, max_turns=1), "tiny")
    model, tokenizer = build_tiny_policy("micro", seed=0)
    monkeypatch.setattr(progress, "INTERVAL_S", 0.0)  # a line per episode
    evaluate_policy(model, tokenizer, tasks, condition="none", max_new_tokens=2, max_context=600)
    lines = capsys.readouterr().err.splitlines()
    # the start, then a line per episode (the last one is the final count: closing adds none);
    # an untrained model never succeeds
    assert [line.split(" | ")[0] for line in lines] == [
        "eval multi_turn/none 0/3 (0%)",
        "eval multi_turn/none 1/3 (33%)",
        "eval multi_turn/none 2/3 (67%)",
        "eval multi_turn/none 3/3 (100%)",
    ]
    assert all(line.endswith("| success 0.000") for line in lines[1:])
    evaluate_policy(model, tokenizer, tasks, condition="none", max_new_tokens=2, progress=False)
    assert capsys.readouterr().err == ""


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
    bar = open_bar(len(tasks), "eval combined/high", True, stream=term, unit="episode")
    engine.run([RolloutJob(t) for t in tasks], on_done=EpisodeTally(bar))
    assert bar.n == 3
    close(bar)
    assert "eval combined/high: 100%" in term.getvalue() and "3/3" in term.getvalue()
    assert "success 0.000" in term.getvalue()  # "Done." calls nothing: no task passes
