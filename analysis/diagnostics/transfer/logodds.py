r"""A planted decision's log-odds under each goal, at its decision token, on the expert prefix.

For a decision point of task x (:mod:`rcgrpo.env.synth_demo`) the two options are token
sequences that share a head and part: the prompt with the goal g
(:func:`rcgrpo.policy.render.initial_messages`, as the rollout engine renders it), the expert's
assistant text up to the point (the ground-truth calls before it, ``[c_1, …, c_{i-1}, ``;
:func:`alternatives`), then

- a swap kind: right = the ground truth's call at the point, wrong = the swap's wrong call
  rendered as the demonstrator renders it (``cp(source=…, destination=…)`` for
  ``rename_copy``; :func:`wrong_call`);
- ``stop_early`` (the regime suites): right = ``, <last call>]`` then the end of the message,
  wrong = ``]`` then the end of the message (the demonstrator's omission).

**The decision token.** Both options are tokenized as whole texts; c is the length of their
common token prefix h = ids[:c], and the options' tokens at c, :math:`r_c \ne w_c`, are where
the policy branches (:func:`decision_tokens`; the function name's first token for a swap, e.g.
``mv`` / ``c`` of ``cp``, and ``'),`` / ``')]`` for ``stop_early``). The log-odds is
scored there only,

.. math::
    z_g = \log\pi_\theta(r_c \mid h, g) - \log\pi_\theta(w_c \mid h, g)
        = (\ell_{r_c} - \ell_{w_c}) / \tau,

ℓ the logits after h and τ the rollout temperature (the softmax normaliser cancels). The tokens
after c are left out: once the branch is taken the rest of the name is all but determined and
the arguments are copied from the request, so the whole texts' log-odds (which summed them, up
to 40 argument tokens against a one-token choice) measured how well each call is written out,
not which call is chosen. σ(z_g) is the probability of the right branch when the policy takes
one of the two, the quantity the sampled right share estimates. Only the combined mode (every
RL preset of the synth suites) is supported: a multi-turn decision would need the earlier
turns' observations in h.

:func:`log_odds` evaluates z of many points; :func:`task_gradients` also gives each task's
gradient of its mean z (one forward and backward per point and goal).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

import torch

STOP_EARLY = "stop_early"


def wrong_call(kind: str, right: str) -> str:
    """The wrong option of swap ``kind`` at the ground-truth call ``right`` (as
    :func:`rcgrpo.env.synth_demo.demonstrate` renders it)."""
    from rcgrpo.env.synth import render_call
    from rcgrpo.env.synth_demo import _SWAPS  # the swap table: (family, wrong func, its args)

    _, func, keep = _SWAPS[kind]
    call = ast.parse(right, mode="eval").body
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    return render_call(func, {arg: kwargs[src] for arg, src in keep})


def alternatives(task, point: dict) -> tuple[str, str, str, bool]:
    """(expert prefix, right continuation, wrong continuation, whether both end the
    message) of decision ``point`` (a ``task.meta["decisions"]`` record) of ``task``."""
    flat = [c for turn in task.ground_truth for c in turn]
    at = sum(len(t) for t in task.ground_truth[: point["turn"]]) + point["call"]
    if point["kind"] == STOP_EARLY:
        return "[" + ", ".join(flat[:at]), f", {flat[at]}]", "]", True
    prefix = "[" + "".join(f"{c}, " for c in flat[:at])
    return prefix, flat[at], wrong_call(point["kind"], flat[at]), False


def decision_tokens(right: Sequence[int], wrong: Sequence[int]) -> tuple[int, int, int]:
    """(c, r_c, w_c): the length c of the common token prefix of the two options and their
    tokens at c (module docstring). Raises ``ValueError`` when one option is a prefix of the
    other (no token where they differ)."""
    c = 0
    while c < min(len(right), len(wrong)) and right[c] == wrong[c]:
        c += 1
    if c == len(right) or c == len(wrong):
        raise ValueError(f"the options do not differ at a token (common prefix {c})")
    return c, int(right[c]), int(wrong[c])


@dataclass(frozen=True)
class Item:
    """One decision point, encoded under both goals."""

    task_id: str
    """``Task.id`` of the point's task."""
    kind: str
    """Its decision kind."""
    rows: dict[str, tuple[torch.Tensor, int, int]]
    """goal (``high`` / ``low``) -> (the common prefix h [c], r_c, w_c)."""


def encode_items(tasks: Sequence, encoder, prompt_style: str) -> list[Item]:
    """An :class:`Item` per decision point of ``tasks`` (module docstring)."""
    from rcgrpo.env.turns import offered_docs, turn_messages
    from rcgrpo.policy.render import initial_messages

    out = []
    for task in tasks:
        first, docs = turn_messages(task, "combined", 0), offered_docs(task, "combined", 0)
        for point in task.meta.get("decisions", ()):
            prefix, right, wrong, ends = alternatives(task, point)
            tail = [encoder.eos_id] if ends else []
            rows = {}
            for goal, high in (("high", True), ("low", False)):
                head = encoder.prompt_ids(initial_messages(first, docs, prompt_style, high))
                r = head + encoder.encode(prefix + right) + tail
                w = head + encoder.encode(prefix + wrong) + tail
                c, r_c, w_c = decision_tokens(r, w)
                rows[goal] = (torch.tensor(r[:c]), r_c, w_c)
            out.append(Item(task.id, point["kind"], rows))
    return out


def item_z(model, item: Item, goal: str, temperature: float) -> torch.Tensor:
    """z of ``item`` under ``goal`` (a 0-d tensor, with its graph when grad is enabled)."""
    prefix, r_c, w_c = item.rows[goal]
    logits = model(input_ids=prefix[None]).logits[0, -1]
    return (logits[r_c] - logits[w_c]) / temperature


def log_odds(model, items: Sequence[Item], goal: str, temperature: float) -> torch.Tensor:
    """z [n] of ``items`` under ``goal``, without gradients."""
    with torch.no_grad():
        return torch.stack([item_z(model, it, goal, temperature) for it in items])


def task_points(items: Sequence[Item]) -> tuple[list[str], torch.Tensor]:
    """(the tasks of ``items`` in first-seen order, their numbers of points [tasks] float64)."""
    tasks = list(dict.fromkeys(it.task_id for it in items))
    row = {t: i for i, t in enumerate(tasks)}
    points = torch.zeros(len(tasks), dtype=torch.float64)
    for it in items:
        points[row[it.task_id]] += 1
    return tasks, points


def task_gradients(
    model, items: Sequence[Item], goal: str, temperature: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(z [n] of ``items`` under ``goal``, the gradient of each task's mean z with respect to
    ``model``'s trainable parameters, flattened in parameter order: [tasks, P] float64, the
    tasks of :func:`task_points`)."""
    params = [p for p in model.parameters() if p.requires_grad]
    tasks, points = task_points(items)
    row = {t: i for i, t in enumerate(tasks)}
    grads = torch.zeros(len(tasks), sum(p.numel() for p in params), dtype=torch.float64)
    z = []
    for it in items:
        value = item_z(model, it, goal, temperature)
        parts = torch.autograd.grad(value, params, allow_unused=True)
        flat = [torch.zeros_like(p) if g is None else g for g, p in zip(parts, params, strict=True)]
        i = row[it.task_id]
        grads[i] += torch.cat([g.reshape(-1) for g in flat]).double() / points[i]
        z.append(value.detach())
    return torch.stack(z), grads
