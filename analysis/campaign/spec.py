"""Whether a recorded campaign spec (a run folder's ``campaign.json``) is the current one.

A spec (:meth:`analysis.campaign.mechanics.RunSpec.record`) is the run's name and argv, the
values they resolve to (``resolved``: the config and the task suite's fingerprint,
:func:`analysis.campaign.config.pinned`) and, recursively, the specs of the runs it starts
from. The argv and the suite must match exactly; the config on the fields both sides know, so
a config field added to or removed from the code since a run was trained does not make it
stale, and a renamed one is compared under its new name
(:func:`rcgrpo.train.config.upgrade_config`).
"""

from __future__ import annotations

from rcgrpo.train.config import upgrade_config


def differences(have: dict, want: dict, skip: frozenset[str] = frozenset(), prefix: str = ""):
    """Dotted keys whose values differ between two nested dicts, over the keys both hold
    (a key one side lacks is no difference), except those in ``skip``."""
    out = []
    for key, value in have.items():
        path = f"{prefix}{key}"
        if path in skip or key not in want:
            continue
        if isinstance(value, dict) and isinstance(want[key], dict):
            out += differences(value, want[key], skip, path + ".")
        elif want[key] != value:
            out.append(path)
    return out


def same_spec(have: dict | None, want: dict) -> bool:
    """A recorded spec ``have`` is the current one ``want``: the same name and argv, the same
    resolved config on the fields both know (``have`` upgraded to today's keys), the same
    task suite, and recursively the same runs it starts from."""
    if not isinstance(have, dict) or (have.get("name"), have.get("argv")) != (
        want["name"],
        want["argv"],
    ):
        return False
    needs = have.get("needs", {})
    if set(needs) != set(want["needs"]):
        return False
    if "resolved" in want:
        old, new = have.get("resolved") or {}, want["resolved"]
        if old.get("suite") != new["suite"] or "config" not in old:
            return False
        if differences(upgrade_config(old["config"]), new["config"]):
            return False
    return all(same_spec(needs[n], w) for n, w in want["needs"].items())
