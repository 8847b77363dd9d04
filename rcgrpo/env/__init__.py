"""The BFCL v4 multi-turn environment: tasks, safe executor, episodes and the reward.

::

    from rcgrpo.env import load_bfcl_tasks, split_tasks, score_trajectory, Episode, RewardRecord

    tasks = load_bfcl_tasks()                          # 800 tasks, .id == BFCL id
    train, test = split_tasks(tasks, test_fraction=0.1, seed=0)   # 720 / 80 by scenario id
    ep = Episode()
    messages = ep.reset(tasks[0], mode="multi_turn")   # or "combined" (paper's RL mode)
    res = ep.step("[cd(folder='document')]")           # StepResult(messages, done, info)
    record = score_trajectory(tasks[0], [[...], ...])  # RewardRecord: state, action, reward, bfcl_valid

Modules: :mod:`~rcgrpo.env.bfcl` (the only bridge to ``bfcl-eval``), :mod:`~rcgrpo.env.tasks`
(``Task``, loader, split), :mod:`~rcgrpo.env.decode` (``ast`` decoder),
:mod:`~rcgrpo.env.limits` (cost guard, time limit), :mod:`~rcgrpo.env.executor`
(fresh instances, guarded calls), :mod:`~rcgrpo.env.turns` (what each turn offers),
:mod:`~rcgrpo.env.ground_truth` (cached ground-truth run), :mod:`~rcgrpo.env.reward`
(R and ``bfcl_valid``), :mod:`~rcgrpo.env.episode` (turn/step rules).
"""

from rcgrpo.env.episode import Episode, StepResult
from rcgrpo.env.reward import RewardRecord, TurnCheck, score_trajectory
from rcgrpo.env.tasks import Task, category_counts, load_bfcl_tasks, split_tasks

__all__ = [
    "Episode",
    "RewardRecord",
    "StepResult",
    "Task",
    "TurnCheck",
    "category_counts",
    "load_bfcl_tasks",
    "score_trajectory",
    "split_tasks",
]
