"""Synth suite's knobs (:class:`SynthConfig`) and its named presets (:data:`SYNTH_PRESETS`).

The generator that reads them is :mod:`rcgrpo.env.synth`; the tables of every preset's fields
in ``docs/synth.md`` are generated from here (``python -m rcgrpo docs``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rcgrpo.env.synth_demo import DECISIONS, REGIME_DECISIONS, SWAP_DECISIONS, SWAP_FAMILIES
from rcgrpo.env.synth_families import CLASS_TAGS, FAMILIES, FAMILY_BY_NAME, FS, MSG, TK, TW, Family

SPLITS = ("train", "test")
OFFER_MODES = ("used", "all")
_EXTENSIONS = ("txt", "csv", "log", "md", "py", "json")


@dataclass(frozen=True)
class SynthConfig:
    """Difficulty knobs of the synth suite (every range is inclusive)."""

    turns: tuple[int, int] = (1, 4)
    """Number of user turns per task."""
    calls_per_turn: tuple[int, int] = (1, 3)
    """Ground-truth calls (= requests) per turn; fewer only if a ``families`` restriction
    runs out of applicable requests (then the task also ends early)."""
    classes: tuple[str, ...] = tuple(CLASS_TAGS)
    """Backend classes the suite may use."""
    families: tuple[str, ...] = ()
    """Restrict requests to these family names (empty: every family of ``classes``)."""
    classes_per_task: tuple[int, int] = (1, 2)
    """Backend classes whose requests appear in one task."""
    distractor_classes: int = 0
    """Extra classes loaded and offered, with no ground-truth call (state must stay put)."""
    offer: str = "used"
    """Functions offered: ``used`` = ground-truth functions + ``distractor_functions``
    (compact prompts for tiny models); ``all`` = every function of the involved classes."""
    distractor_functions: int = 2
    """With ``offer="used"``: extra random functions of the involved classes offered."""
    phrase_words: tuple[int, int] = (2, 3)
    """Pseudo-words per free-text value (file content, tweet, message, title)."""
    heldout_templates: int = 1
    """Last templates of each family reserved for the test split (0: none)."""
    test_heldout_prob: float = 0.5
    """Test split: probability that a request uses a held-out template (>= 1 per task)."""
    value_holdout: int = 5
    """1 / value_holdout of all words and numbers are test-only."""
    quote_values: bool = False
    """Quote every string argument in the user text (``Rename 'a.txt' to 'b.txt'.``), as 72% of
    BFCL v4 multi-turn base user turns quote theirs; numbers stay bare. Templates that already
    quote a slot (``Tweet '{content}'.``) are unchanged."""
    extensions: tuple[str, ...] = _EXTENSIONS
    """File-name extensions drawn from (uniformly)."""
    family_weights: tuple[tuple[str, float], ...] = ()
    """``(family, weight)`` pairs: within its class a family is drawn with this weight (1 for
    the others); empty: uniformly (the draw of the presets without weights)."""
    decisions: tuple[str, ...] = ()
    """Decision points of the imperfect demonstrator (``rcgrpo.env.synth_demo.DECISIONS``):
    with any, ``Task.meta`` holds its ``demonstration`` and ``decisions``."""
    expert_error: float = 0.0
    """Probability that the demonstrator takes the wrong option at a decision point."""
    expert_error_by_kind: tuple[tuple[str, float], ...] = ()
    """``(kind, probability)`` pairs that replace ``expert_error`` at the points of those kinds
    (the collapse suite: one decision nearly always wrong in the demonstrations); empty: every
    kind at ``expert_error``."""
    single_swap: bool = False
    """At most one swap point per task: once a task holds a request of a swap family of its
    ``decisions``, no other request of such a family is drawn (the collapse suites: a task's
    success then turns on one choice)."""
    stop_on_swaps: bool = True
    """Plant ``stop_early`` on a task's last call also when that call carries a swap point
    (two decisions on one call); False: one decision per call (``synth_demo.decision_points``)."""

    def __post_init__(self) -> None:
        for name in ("turns", "calls_per_turn", "classes_per_task", "phrase_words"):
            lo, hi = getattr(self, name)
            if not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi):
                raise ValueError(f"{name} must be a range (lo, hi) with 1 <= lo <= hi")
        if not self.classes or set(self.classes) - set(CLASS_TAGS):
            raise ValueError(f"classes must be a non-empty subset of {sorted(CLASS_TAGS)}")
        if set(self.families) - set(FAMILY_BY_NAME):
            raise ValueError(
                f"families: unknown {sorted(set(self.families) - set(FAMILY_BY_NAME))}"
            )
        if not active_families(self):
            raise ValueError("families/classes leave no family to draw requests from")
        if self.offer not in OFFER_MODES:
            raise ValueError(f"offer must be one of {OFFER_MODES}, got {self.offer!r}")
        if self.distractor_classes < 0 or self.distractor_functions < 0:
            raise ValueError("distractor_classes and distractor_functions must be >= 0")
        if not 0 <= self.heldout_templates < min(len(f.templates) for f in FAMILIES):
            raise ValueError("heldout_templates must leave at least one training template")
        if not 0.0 <= self.test_heldout_prob <= 1.0:
            raise ValueError("test_heldout_prob must be in [0, 1]")
        if self.value_holdout < 2:
            raise ValueError("value_holdout must be >= 2")
        if not self.extensions or not all(e.isalnum() for e in self.extensions):
            raise ValueError("extensions must be a non-empty tuple of alphanumeric strings")
        weights = dict(self.family_weights)
        if set(weights) - set(FAMILY_BY_NAME) or not all(w > 0 for w in weights.values()):
            raise ValueError("family_weights: every name a family, every weight > 0")
        if set(self.decisions) - set(DECISIONS):
            raise ValueError(f"decisions must be a subset of {DECISIONS}")
        if not 0.0 <= self.expert_error <= 1.0:
            raise ValueError("expert_error must be in [0, 1]")
        by_kind = dict(self.expert_error_by_kind)
        if set(by_kind) - set(self.decisions) or not all(0 <= e <= 1 for e in by_kind.values()):
            raise ValueError(
                "expert_error_by_kind: every kind one of decisions, every probability in [0, 1]"
            )

    def swap_families(self) -> frozenset[str]:
        """The families that carry a swap point of ``decisions``."""
        return frozenset(SWAP_FAMILIES[k] for k in self.decisions if k in SWAP_FAMILIES)

    def error_of(self, kind: str) -> float:
        """The demonstrator's probability of the wrong option at a point of ``kind``."""
        return dict(self.expert_error_by_kind).get(kind, self.expert_error)


def active_families(cfg: SynthConfig) -> list[Family]:
    """Families allowed by ``cfg.classes`` and ``cfg.families``, in table order."""
    return [
        f for f in FAMILIES if f.cls in cfg.classes and (not cfg.families or f.name in cfg.families)
    ]


_CPU = SynthConfig(
    turns=(1, 2),
    calls_per_turn=(1, 2),
    classes_per_task=(1, 1),
    distractor_functions=1,
    classes=(FS, TW, MSG, TK),
    heldout_templates=0,
)
_REGIME = dataclasses.replace(
    _CPU,
    distractor_functions=5,
    extensions=("txt",),
    family_weights=(("fs_rename", 5.0), ("tk_resolve", 5.0)),
    decisions=REGIME_DECISIONS,
    expert_error=0.6,
)

_WIDE = dataclasses.replace(
    _REGIME,
    distractor_functions=10,
    family_weights=(*_REGIME.family_weights, ("tw_comment", 5.0), ("msg_delete", 5.0)),
    decisions=DECISIONS,
)

COLLAPSE_ERROR = 0.97
"""The collapse suite's demonstrator error at every swap: an SFT that imitates it samples the
right option ~3% of the time, inside gate H's [0.01, 0.10]
(:mod:`analysis.campaigns.collapse_design.gates`)."""

_COLLAPSE = dataclasses.replace(
    _WIDE, decisions=SWAP_DECISIONS, expert_error=COLLAPSE_ERROR, stop_on_swaps=False
)

SYNTH_PRESETS: dict[str, SynthConfig] = {
    "tiny": SynthConfig(
        turns=(1, 2), calls_per_turn=(1, 2), classes_per_task=(1, 1), distractor_functions=1
    ),
    "cpu": _CPU,
    "regime": _REGIME,
    "regime-d10": dataclasses.replace(_REGIME, distractor_functions=10),
    "regime-wide-d10": _WIDE,
    "regime-wide1-d10": dataclasses.replace(_WIDE, stop_on_swaps=False),
    "collapse-d10": _COLLAPSE,
    "collapse1-d10": dataclasses.replace(_COLLAPSE, single_swap=True, expert_error=0.98),
    "default": SynthConfig(),
    "hard": SynthConfig(
        turns=(2, 4),
        calls_per_turn=(2, 3),
        classes_per_task=(2, 3),
        distractor_classes=1,
        offer="all",
    ),
}
"""Named difficulty presets (``tiny`` fits a ~512-token context with compact prompts).

``cpu`` is the CPU campaign's suite: ``tiny`` without MathAPI (copying 4-6 digit decimals is
beyond a 1.8M model in 15 CPU minutes: 0.025 held-out success) and with every template in
both splits, so its test split differs from train in argument values (crc-disjoint) and in
template/family combinations only; ``tiny`` also holds out each family's last template.
``regime``: ``cpu`` with the demonstrator of ``rcgrpo.env.synth_demo``; ``regime-d10``: 10
distractors (design variant 3); ``regime-wide-d10``: ``regime-d10`` with a swap decision in every
class (``comment_post``, ``delete_view`` added, their families drawn 5x; variant 14);
``regime-wide1-d10``: that with one decision per call (``stop_on_swaps`` False), variant 15.
``collapse-d10``: the tasks of ``regime-wide-d10`` with the four swaps as its only decisions,
each wrong in :data:`COLLAPSE_ERROR` of the demonstrations (no ``stop_early``): a peaked SFT
whose groups are all-fail on most tasks (``docs/protocols/collapse-testbed.md``, variant 1);
``collapse1-d10``: one swap per task (``single_swap``), each wrong in 0.98 of the
demonstrations (variant 2).
The variants: ``docs/lab-notes/2026-12-regime-design.md``; the suites: ``docs/regime.md``."""
