r"""The verdict of ``python -m rcgrpo diagnose``: did the run collapse, since when, and does
its success rate explain it.

The rule (documented in docs/trl.md, "Diagnose a run"), on the per-step zero-variance share
z_t (``group/zero_var_frac``) of the T logged steps:

- m_t = mean of z over the ``window`` steps ending at t (fewer at the start);
- **collapsed** iff m_T >= ``threshold`` (default 0.5: at the end of the run at least half
  of the groups give no policy gradient);
- **onset** = the first step t from which m_u >= ``threshold`` for every u >= t (None if
  not collapsed);
- over the collapsed stretch [onset, T] (the whole run if not collapsed), z̄ = mean z and
  ẑ = mean of the i.i.d. prediction s̄_t^G + (1 - s̄_t)^G (``group/zero_var_predicted_pooled``,
  every prompt equally hard at the step's success rate s̄_t); the prediction **explains**
  the collapse iff z̄ <= ẑ + ``margin`` (default 0.1). Observed collapse above it means
  success is concentrated on some prompts (always pass) and absent on others (always fail);
- the split says which kind of constant group dominates: all-pass (the "paradox of
  perfection"), all-fail (the task is out of reach) or constant at another reward (a partial
  reward the whole group shares, ``group/zero_var_other_frac``); "most" when one kind
  outnumbers the other two together, "the commonest" when it only leads, and a tie named as
  such. Kinds are compared as the paragraph prints them (whole percents of the groups), so it
  never contradicts its own numbers; differences of shares are said in percentage points.

Pure function of the per-step metric dicts; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

RULE = {"threshold": 0.5, "window": 5, "margin": 0.1}
"""Default parameters of the rule (module docstring)."""
KINDS = (
    ("all_pass", "all-pass", "the policy already solves them"),
    ("all_fail", "all-fail", "the prompts are out of reach"),
    ("constant", "constant at another reward", "a partial reward the whole group shares"),
)
"""The kinds of constant group: verdict key, name, what it means."""


def _mean(values: Sequence[float]) -> float:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return sum(finite) / len(finite) if finite else float("nan")


def rolling_means(z: Sequence[float], window: int) -> list[float]:
    """m_t = mean of z over the ``window`` entries ending at t (fewer at the start)."""
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    return [_mean(z[max(0, t - window + 1) : t + 1]) for t in range(len(z))]


def onset_index(m: Sequence[float], threshold: float) -> int | None:
    """Index of the first t with m_u >= threshold for every u >= t; None if m_T < threshold."""
    start = None
    for t in range(len(m) - 1, -1, -1):
        if not m[t] >= threshold:
            break
        start = t
    return start


def verdict(
    rows: Sequence[dict[str, float]],
    threshold: float = RULE["threshold"],
    window: int = RULE["window"],
    margin: float = RULE["margin"],
) -> dict:
    """The verdict of per-step rows (each with ``step`` and the collapse keys): a dict of
    ``collapsed``, ``onset_step``, ``explained_by_iid``, the stretch means (``observed``,
    ``predicted_iid``, ``all_pass``, ``all_fail``, ``constant``: constant at another reward),
    the ``rule`` and a paragraph ``text``."""
    if not rows:
        raise ValueError("no steps to judge")
    z = [r["group/zero_var_frac"] for r in rows]
    start = onset_index(rolling_means(z, window), threshold)
    stretch = rows[start or 0 :]
    out = {
        "collapsed": start is not None,
        "onset_step": None if start is None else rows[start]["step"],
        "observed": _mean([r["group/zero_var_frac"] for r in stretch]),
        "predicted_iid": _mean([r["group/zero_var_predicted_pooled"] for r in stretch]),
        "all_pass": _mean([r["group/zero_var_success_frac"] for r in stretch]),
        "all_fail": _mean([r["group/zero_var_fail_frac"] for r in stretch]),
        "constant": _mean([r.get("group/zero_var_other_frac") for r in stretch]),
        "success_rate": _mean([r["reward/success_rate"] for r in stretch]),
        "rule": {"threshold": threshold, "window": window, "margin": margin},
    }
    out["explained_by_iid"] = bool(out["observed"] <= out["predicted_iid"] + margin)
    out["text"] = _paragraph(out, rows, stretch)
    return out


def _paragraph(v: dict, rows: Sequence[dict], stretch: Sequence[dict]) -> str:
    span = f"steps {stretch[0]['step']}-{stretch[-1]['step']}"
    if v["collapsed"]:
        head = (
            f"Collapsed: from step {v['onset_step']} to the last step ({rows[-1]['step']}) the "
            f"{v['rule']['window']}-step mean zero-variance share stayed >= "
            f"{v['rule']['threshold']:g}; over {span} {_pct(v['observed'])}% of the groups had "
            "identical rewards and gave no gradient."
        )
    else:
        head = (
            f"Not collapsed: the {v['rule']['window']}-step mean zero-variance share ends below "
            f"{v['rule']['threshold']:g}; over the run ({span}) {_pct(v['observed'])}% of the "
            "groups had identical rewards."
        )
    return " ".join(t for t in (head, kinds_sentence(v), iid_sentence(v)) if t)


def _pct(share: float) -> int:
    """A share as the whole percent the paragraph prints (NaN: 0)."""
    return round(100 * share) if math.isfinite(share) else 0


def _listing(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def kinds_sentence(v: dict) -> str:
    """Which kind of constant group dominates (module docstring), with the shares of the
    groups; empty when no kind reaches 1%."""
    pct = {key: _pct(v.get(key, float("nan"))) for key, _, _ in KINDS}
    top = max(pct.values())
    if top == 0:
        return ""
    parts = [f"{pct[key]}% {name}" for key, name, _ in KINDS if key != "constant" or pct[key]]
    parts[0] = parts[0].replace(" ", " were ", 1)  # "50% were all-pass, 25% all-fail"
    if pct["constant"]:
        parts[-1] += " (neither a pass nor a fail)"
    shares = f"of the groups, {_listing(parts)}"
    leaders = [(name, why) for key, name, why in KINDS if pct[key] == top]
    if len(leaders) > 1:
        tied = _listing([name.split()[0] for name, _ in leaders])
        return f"No kind of collapsed group dominates ({tied} tie): {shares}."
    name, why = leaders[0]
    lead = "Most" if 2 * top > sum(pct.values()) else "The commonest"
    return f"{lead} collapsed groups are {name} ({why}): {shares}."


def iid_sentence(v: dict) -> str:
    """The i.i.d. prediction against the observed share, their gap in percentage points."""
    obs, pred, margin = _pct(v["observed"]), _pct(v["predicted_iid"]), v["rule"]["margin"]
    gap = round(100 * (v["observed"] - v["predicted_iid"]))
    text = (
        f"The i.i.d. prediction s^G + (1-s)^G at the step's success rate ({v['success_rate']:.2f}"
        f" on average) gives {pred}%"
    )
    below = f"{text}, {gap} points below the observed {obs}%"
    if v["explained_by_iid"] and gap <= 0:
        return f"{text}, at least the observed {obs}%, so the success rate alone explains it."
    if v["explained_by_iid"]:
        return f"{below}, within the {100 * margin:g}-point margin: the success rate explains it."
    return (
        f"{below}, more than the {100 * margin:g}-point margin: success is concentrated on some "
        "prompts and absent on others, not spread evenly."
    )
