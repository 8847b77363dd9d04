r"""A planted decision's log-odds under each goal, teacher-forced on the expert prefix.

For a decision point of task x (:mod:`rcgrpo.env.synth_demo`) and goal g,

.. math::
    z_g = \log\pi_\theta(\text{right} \mid h, g) - \log\pi_\theta(\text{wrong} \mid h, g),

h the combined-mode prompt with the goal (:func:`rcgrpo.policy.render.initial_messages`, as
the rollout engine renders it) followed by the expert's assistant text up to the point: the
ground-truth calls before it, ``[c_1, …, c_{i-1}, `` (:func:`alternatives`). The options:

- a swap kind: right = the ground truth's call at the point, wrong = the swap's wrong call
  rendered as the demonstrator renders it (``cp(source=…, destination=…)`` for
  ``rename_copy``; :func:`wrong_call`); their log-probabilities cover the call text (the
  arguments too, where the two calls' arguments differ), not the delimiter after it, which
  both share;
- ``stop_early`` (the regime suites): right = ``, <last call>]`` then the end of the message,
  wrong = ``]`` then the end of the message (the demonstrator's omission).

Both options are tokenized as continuations of the same text; the log-probability of each is
summed over the tokens after their longest common token prefix, at the rollout temperature τ.
Only the combined mode (every RL preset of the synth suites) is supported: a multi-turn
decision would need the earlier turns' observations in h.

``σ(z_g)`` is the probability of the right option when the choice is between the two:
the "P(right)" of the probe. :func:`log_odds` evaluates z of many points, with the gradient
of their mean on request (:class:`~rcgrpo.policy.teacher.SharedPrefixForward`: the shared
history runs once per point and goal).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from rcgrpo.policy.teacher import SharedPrefixForward

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


@dataclass(frozen=True)
class Item:
    """One decision point, encoded under both goals."""

    task_id: str
    """``Task.id`` of the point's task."""
    kind: str
    """Its decision kind."""
    rows: dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
    """goal (``high`` / ``low``) -> (right ids [T_R], wrong ids [T_W], scored length n of
    each: their last tokens after the common prefix, as a [2] int64)."""


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


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
                c = _common(r, w)
                lengths = torch.tensor([len(r) - c, len(w) - c])
                rows[goal] = (torch.tensor(r), torch.tensor(w), lengths)
            out.append(Item(task.id, point["kind"], rows))
    return out


def _item_z(model, item: Item, goal: str, temperature: float, scale: float | None):
    """z of ``item`` under ``goal``; with ``scale``, back-propagates scale · z."""
    right, wrong, lengths = item.rows[goal]
    masks = []
    for ids, n in zip((right, wrong), lengths.tolist(), strict=True):
        m = torch.zeros(ids.numel(), dtype=torch.bool)
        m[ids.numel() - n :] = True
        masks.append(m)
    forward = SharedPrefixForward(model, [right, wrong], masks, temperature=temperature)
    sign = {0: 1.0, 1: -1.0}
    z = 0.0
    for chunk in forward.chunks():
        part = sum(sign[b] * chunk.logp[i].sum() for i, b in enumerate(chunk.rows))
        if scale is not None:
            (scale * part).backward()
        z = z + part.detach()
    if scale is not None:
        forward.backward_prefix()
    return z


def log_odds(
    model, items: Sequence[Item], goal: str, temperature: float, grad: bool = False
) -> tuple[torch.Tensor, list[torch.Tensor] | None]:
    """(z [n] of ``items`` under ``goal``, and with ``grad`` the gradient of their mean with
    respect to ``model``'s parameters, one tensor per parameter, else None)."""
    params = [p for p in model.parameters() if p.requires_grad]
    if not grad:
        with torch.no_grad():
            z = [_item_z(model, it, goal, temperature, None) for it in items]
        return torch.stack([torch.as_tensor(v) for v in z]), None
    for p in params:
        p.grad = None
    z = [_item_z(model, it, goal, temperature, 1.0 / len(items)) for it in items]
    grads = [p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p) for p in params]
    for p in params:
        p.grad = None
    return torch.stack([torch.as_tensor(v) for v in z]), grads
