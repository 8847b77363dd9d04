r"""From a step's groups to one group's rollouts, read as conversations.

The drill-down of ``notebooks/03_training_dynamics.ipynb`` (tables:
:mod:`analysis.notebook.explore`):

- :func:`choose_group`: the step and task to read, where a task's group collapsed under
  SFT + GRPO and not under RC-GRPO (with the reason); the arms run the same tasks at the same
  step (same seed, same task pool);
- :func:`group_rollouts` / :func:`render_group` / :func:`drill_down`: the G rollouts of one
  group with reward, goal, advantage and its between / within parts, and their messages (the
  task, each reply with its tool calls, each tool result) from ``conversations.jsonl``, or a
  light copy's committed sample (:mod:`analysis.campaigns.pool.conversation_sample`), which
  :func:`conversation_note` describes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from analysis.campaign.arms import roles
from analysis.diagnostics.goal_split import two_goals
from analysis.notebook.episodes import format_conversation
from analysis.notebook.explore import arm, step_groups, step_rows
from analysis.runs import Run
from rcgrpo.advantage_split import advantage_split

BASELINE, CONTRAST = roles("pool")["sft_grpo"], roles("pool")["rctp_rc"]
"""The two arms :func:`choose_group` compares: SFT + GRPO (collapses) and RC-GRPO."""


def _conversation_steps(run: Run) -> set[int]:
    conv = run.conversations
    return set(conv["step"].astype(int)) if not conv.empty else set()


@dataclass(frozen=True)
class Choice:
    """A step and task to read (a group per run), the runs whose group is read as text, and
    why they were chosen."""

    step: int
    task_id: str
    round: int
    read: tuple[str, ...]
    reason: str


def _by_preset(runs: Sequence[Run], preset: str, goals: bool) -> Run | None:
    exact = [r for r in runs if r.config.get("preset") == preset]
    return (exact or [r for r in runs if two_goals(r) == goals] or [None])[0]


def _steps(runs: Sequence[Run]) -> list[int]:
    """Training steps every run has; of those, the ones with conversations in every run that
    has some."""
    common = set.intersection(*(set(r.rollouts["step"].astype(int)) - {0} for r in runs))
    talk = [steps for steps in map(_conversation_steps, runs) if steps]
    return sorted(common.intersection(*talk))


def _task_group(run: Run, step: int, task: str, round_: int) -> pd.Series:
    g = step_groups(run, step)
    hit = g[(g["task_id"] == task) & (g["round"] == round_)]
    if hit.empty:
        raise ValueError(f"run {run.name} has no group of task {task} at step {step}")
    return hit.iloc[0]


def _describe(run: Run, group: pd.Series) -> str:
    goals = f", goals {group['goals']}" if group["goals"] else ""
    state = (
        "collapsed: every advantage 0, no gradient from it"
        if group["zero_var"]
        else f"σ_g² = {group['reward_var']:.2f}, advantages {group['advantages']}"
    )
    return f"under {arm(run)} rewards {group['rewards']}{goals} ({state})"


def choose_group(
    runs: Sequence[Run], step: int | None = None, task: str | None = None, round_: int = 0
) -> Choice:
    """The step and task to read. With an SFT + GRPO-like run (no goals) and an RC-GRPO-like
    run (two goals): the latest common step (with conversations, when there are) where a
    task's group collapsed under the first and not under the second, the widest RC-GRPO
    spread among them; ``step`` / ``task`` fix either. With one kind of run only: the widest
    advantage spread at the last step of that kind's first run."""
    base, contrast = _by_preset(runs, BASELINE, False), _by_preset(runs, CONTRAST, True)
    read = [r for r in (base, contrast) if r is not None] or list(runs[:1])
    steps = _steps(read) or [int(read[0].rollouts["step"].max())]
    if step is not None and step not in steps:
        steps = [step]
    if base is None or contrast is None:
        s = step if step is not None else steps[-1]
        g = step_groups(read[0], s)
        pick = g.sort_values("adv_gap", kind="stable").iloc[-1] if task is None else None
        t = task if task is not None else str(pick["task_id"])
        r = round_ if task is not None else int(pick["round"])
        why = "the task given" if task is not None else "the widest advantage spread at it"
        return Choice(s, t, r, (read[0].name,), f"step {s}, task {t}: {why}")
    for s in reversed([step] if step is not None else steps):
        if task is not None:
            t = task
        else:
            b = step_groups(base, s).set_index(["task_id", "round"])
            c = step_groups(contrast, s).set_index(["task_id", "round"])
            both = c.join(b[["zero_var"]].add_suffix("_base"), how="inner")
            hits = both[both["zero_var_base"] & ~both["zero_var"]].reset_index()
            hits = hits[hits["round"] == round_]
            if hits.empty:
                continue
            t = str(hits.sort_values("adv_gap", kind="stable").iloc[-1]["task_id"])
        parts = [_describe(r, _task_group(r, s, t, round_)) for r in (base, contrast)]
        if task is not None:
            why = "the task given"
        else:
            span = f"steps {steps[0]}-{steps[-1]}" if step is None else f"step {s}"
            why = (
                f"the latest of {span} where a task's group collapsed under {arm(base)} "
                f"and not under {arm(contrast)} ({len(hits)} such task(s) at this step)"
            )
        reason = f"step {s}, task {t} ({why}): " + "; ".join(parts)
        return Choice(s, t, round_, (base.name, contrast.name), reason)
    s = step if step is not None else steps[-1]
    g = step_groups(contrast, s).sort_values("adv_gap", kind="stable").iloc[-1]
    reason = (
        f"step {s}, task {g['task_id']}: no task collapsed under {arm(base)} and not under "
        f"{arm(contrast)} at the steps looked at; the widest spread under {arm(contrast)}"
    )
    return Choice(s, str(g["task_id"]), round_, (base.name, contrast.name), reason)


def group_rollouts(run: Run, step: int, prompt: int, round_: int = 0) -> pd.DataFrame:
    """The G rollouts of one group: goal, reward, advantage and its between / within parts
    (NaN without goals or for a dropped group), calls, tool errors, failure reason."""
    rows = step_rows(run, step)
    rows = rows[(rows["prompt"] == prompt) & (rows["round"] == round_)]
    if rows.empty:
        raise ValueError(f"step {step} of run {run.name} has no group (round {round_}, {prompt})")
    out = rows[["group", "reward_token", "reward", "advantage", "calls", "tool_errors"]].copy()
    out["failure_reason"] = rows.get("failure_reason", pd.Series("", index=rows.index)).fillna("")
    out["between"] = out["within"] = np.nan
    kept = bool(rows["kept"].iloc[0])
    if kept and rows["reward_token"].notna().all():
        adv = torch.tensor(rows["advantage"].to_numpy(float), dtype=torch.float64)[None]
        b, w = advantage_split(adv, torch.tensor((rows["reward_token"] == "high").to_numpy())[None])
        out["between"], out["within"] = b[0].numpy(), w[0].numpy()
    return out.rename(columns={"reward_token": "goal"}).reset_index(drop=True)


def _conversation(run: Run, step: int, prompt: int, round_: int, group: int) -> list | None:
    conv = run.conversations
    if conv.empty:
        return None
    hit = conv[
        (conv["step"] == step)
        & (conv["prompt"] == prompt)
        & (conv["round"] == round_)
        & (conv["group"] == group)
    ]
    return None if hit.empty else list(hit["messages"].iloc[0])


def _no_conversation(run: Run, step: int) -> str:
    steps = sorted(_conversation_steps(run))
    if steps:
        return (
            f"(no conversation kept for step {step}: this folder has steps {steps[0]}-{steps[-1]})"
        )
    return "(no conversation in this run folder: a light copy keeps the rollout table only)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def render_group(
    run: Run, step: int, prompt: int, round_: int = 0, max_chars: int | None = 400
) -> str:
    """The group's rollouts as text: a header per rollout (goal, reward, advantage = between
    + within, calls, errors, failure reason), then its conversation: the task, each reply of
    the model (its tool calls) and each tool result (a conversation equal to an earlier
    rollout's is named, not repeated)."""
    table = group_rollouts(run, step, prompt, round_)
    blocks, seen = [], {}
    for r in table.itertuples(index=False):
        adv = "dropped group (no advantage)" if pd.isna(r.advantage) else f"A = {r.advantage:+.3f}"
        if not pd.isna(r.between):
            adv += f" = between {r.between:+.3f} + within {r.within:+.3f}"
        head = (
            f"--- rollout {r.group}: goal {r.goal or 'none'}, reward {r.reward:g}, {adv}; "
            f"{_count(r.calls, 'call')}, {_count(r.tool_errors, 'tool error')}"
        )
        if r.failure_reason:
            head += f"; {r.failure_reason[:160]}"
        messages = _conversation(run, step, prompt, round_, int(r.group))
        same = next((g for g, m in seen.items() if messages is not None and m == messages), None)
        if messages is None:
            body = _no_conversation(run, step)
        elif same is not None:
            body = f"(the same messages as rollout {same})"
        else:
            body = format_conversation(messages, max_chars)
            seen[int(r.group)] = messages
        blocks.append(f"{head}\n{body}")
    return "\n\n".join(blocks)


def group_check(run: Run, step: int, prompt: int, round_: int = 0) -> str:
    """One line on the group's advantages: their sum (0 for a group-normalised advantage)
    and how exactly A = between + within holds; says why when there is no split."""
    table = group_rollouts(run, step, prompt, round_)
    head = f"{len(table)} rollouts"
    if table["advantage"].isna().all():
        return f"{head}; a dropped group: it has no advantage, nothing to split"
    head += f", sum of advantages {table['advantage'].sum():+.3f}"
    if table["between"].isna().all():
        return f"{head}; one goal or none in this run: every advantage is within-goal, no split"
    err = (table["advantage"] - table["between"] - table["within"]).abs().max()
    return f"{head}, max |A - (between + within)| = {err:.1e}"


def drill_down(run: Run, choice: Choice, max_chars: int | None = 400) -> str:
    """The chosen task's group in ``run`` as text: a title, :func:`group_check` and
    :func:`render_group`."""
    g = _task_group(run, choice.step, choice.task_id, choice.round)
    prompt = int(g["prompt"])
    title = (
        f"=== {arm(run)} ({run.name}), step {choice.step}, round {choice.round}, "
        f"prompt {prompt}, task {choice.task_id}"
    )
    check = group_check(run, choice.step, prompt, choice.round)
    body = render_group(run, choice.step, prompt, choice.round, max_chars)
    return f"{title}\n{check}\n\n{body}"


def conversation_note(run: Run) -> str:
    """What the run's conversations are: logged by the trainer, a checked re-run, or none."""
    source = run.conversations_source
    if source.get("kind") == "logged":
        kept = ", kept whole in the light copy" if "rows" in source else ""
        return f"{run.name}: conversations as the trainer logged them (conversations.jsonl{kept})"
    if source.get("kind") == "rerun":
        first, last = source["steps"]
        return (
            f"{run.name}: conversations of steps {first}-{last} regenerated by re-running "
            f"them with the code that trained the run ({source['code'][:7]}); the re-run's "
            f"rollout table equals the committed one in every field of every row, so these "
            "are the messages of the committed rollouts"
        )
    return f"{run.name}: this light copy keeps no conversations (rollout table only)"
