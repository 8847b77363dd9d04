"""The ``Task`` record: one multi-turn tool-calling scenario (BFCL v4 or the synth suite).

Both task sources (the BFCL loader and ``rcgrpo.env.synth``) produce exactly this record,
so the environment, the reward and the checker treat them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Task:
    """One scenario: user turns, initial API state, ground truth and tool docs."""

    id: str
    """Unique id; for BFCL the entry id, e.g. ``multi_turn_base_0``."""
    category: str
    """``base``, ``long_context``, ``miss_func``, ``miss_param`` or ``synth/<family>``."""
    turns: tuple[tuple[dict[str, str], ...], ...]
    """User messages per turn (each ``{"role": "user", "content": ...}``); a turn may be
    empty (miss_func: the turn where a held-out function is revealed)."""
    initial_config: dict[str, Any]
    """Per-class initial state, passed to each backend's ``_load_scenario``."""
    involved_classes: tuple[str, ...]
    """Backend class names (keys of BFCL's ``CLASS_FILE_PATH_MAPPING``)."""
    ground_truth: tuple[tuple[str, ...], ...]
    """Ground-truth call strings per turn, keyword form (``mv(source='a', destination='b')``)."""
    function_docs: tuple[dict[str, Any], ...]
    """JSON function docs of every function offered (held-out ones included)."""
    missed_functions: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """miss_func: turn index -> names held out until that turn."""
    excluded_functions: tuple[str, ...] = ()
    """Functions never offered in this task (BFCL ``excluded_function``)."""
    long_context: bool = False
    """BFCL long_context: backends load extra distractor state."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Free-form provenance (generator family, template ids, seed, numeric scenario id)."""

    @property
    def num_turns(self) -> int:
        return len(self.turns)
