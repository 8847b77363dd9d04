"""The RL arms: one record per arm, read by the presets, the campaign, figures, tables, verdicts.

An *arm* is one Stage-2 configuration that experiments compare: its RL preset (whose name is
also the experiment group and the run-name prefix, ``<preset>-s<seed>``), the Stage-1 model
it starts from, how figures and tables name and colour it, the campaign experiment that
trains it and the role the verdict rules read it under. Each record is typed once, here:

- :mod:`rcgrpo.train.presets` builds each arm's preset from its regime's base, the Stage-1
  checkpoint of ``start`` and the arm's changes (``_CHANGES`` there);
- the campaign of its regime trains it, one run per seed, in ``experiment``
  (:mod:`analysis.campaigns.pool.driver`, :mod:`~analysis.campaigns.regime_d10.driver`,
  :mod:`~analysis.campaigns.regime_wide1.driver`);
- :mod:`analysis.figures.dynamics` takes ``label`` and ``colour`` (a name of
  ``analysis.figures.style.PALETTE``), in this order;
- :mod:`analysis.report.tables` and :mod:`analysis.report.dynamics_tables` name rows by
  ``start`` and ``method`` and find an arm by ``role``;
- :mod:`analysis.campaigns.pool.verdicts` (``pool``) and :mod:`analysis.verdicts.regime` (``regime-d10``)
  read their arms by ``role``.

Adding an arm is one record here plus its changes in ``presets._CHANGES``; a verdict on it
needs a rule written before its runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

REGIMES = ("pool", "regime-d10", "regime-wide1", "collapse")
"""The campaigns an arm belongs to, by their ids of ``python -m analysis.campaign --campaign
ID`` (a test checks they are the same): ``pool``, the CPU campaign on the ``cpu`` synth suite
(16-task training pool); ``regime-d10``, the regime campaign on ``regime-d10``;
``regime-wide1``, the factorial on ``regime-wide1-d10``, the regime suites' chosen design
(docs/regime.md);
``collapse``, the factorial and the mechanism arms on ``collapse1-d10``, where SFT + GRPO
collapses (docs/protocols/collapse-campaign.md)."""
STARTS = {"sft": "SFT", "rctp": "RCTP-FT", "rctp-shuffled": "RCTP-FT, shuffled goals"}
"""Stage-1 model an arm starts from -> its name in tables."""
COLOURS = ("black", "orange", "sky", "green", "yellow", "blue", "vermilion", "purple")
"""Okabe-Ito colour names (``analysis.figures.style.PALETTE`` holds their values)."""


@dataclass(frozen=True)
class Arm:
    """One RL arm (module docstring)."""

    preset: str
    """RL preset name = experiment group = run-name prefix."""
    start: str
    """Stage-1 model it starts from: a key of :data:`STARTS`."""
    label: str
    """Figure legend, e.g. ``RCTP-FT + GRPO``."""
    method: str
    """Stage-2 method in tables, beside the start: ``GRPO (high goal)``."""
    colour: str
    """Figure colour: a name of :data:`COLOURS`."""
    experiment: str
    """Campaign experiment that trains it (``factorial``, ``baselines``, ...)."""
    role: str
    """Name the report's tables and the verdict rules read it under, unique in its regime."""
    regime: str = "pool"
    """A name of :data:`REGIMES`."""
    tex: str = ""
    """``method`` in LaTeX where it differs (the report's baselines table)."""

    def __post_init__(self) -> None:
        for key, value, options in (
            ("start", self.start, tuple(STARTS)),
            ("colour", self.colour, COLOURS),
            ("regime", self.regime, REGIMES),
        ):
            if value not in options:
                raise ValueError(
                    f"arm {self.preset}: {key} must be one of {options}, got {value!r}"
                )

    @property
    def init(self) -> str:
        """The start as tables name it (``SFT`` / ``RCTP-FT``)."""
        return STARTS[self.start]

    @property
    def method_tex(self) -> str:
        return self.tex or self.method


ARMS: tuple[Arm, ...] = (
    Arm("cpu-grpo", "sft", "SFT + GRPO", "GRPO", "black", "factorial", "sft_grpo"),
    Arm("cpu-sft-rc", "sft", "SFT + RC sampling", "RC sampling", "orange", "factorial", "sft_rc"),
    Arm(
        "cpu-rctp-grpo",
        "rctp",
        "RCTP-FT + GRPO",
        "GRPO (high goal)",
        "sky",
        "factorial",
        "rctp_grpo",
    ),
    Arm("cpu-rcgrpo", "rctp", "RCTP-FT + RC-GRPO", "RC-GRPO", "vermilion", "factorial", "rctp_rc"),
    Arm("cpu-dapo", "sft", "DAPO dynamic sampling", "GRPO + DAPO", "green", "baselines", "dapo"),
    Arm(
        "cpu-entropy",
        "sft",
        "entropy bonus 0.01",
        "GRPO + entropy bonus",
        "purple",
        "baselines",
        "entropy",
    ),
    Arm(
        "cpu-hightemp",
        "sft",
        "temperature 1.5",
        "GRPO, temperature 1.5",
        "yellow",
        "baselines",
        "hightemp",
        tex="GRPO, $\\tau=1.5$",
    ),
    Arm("cpu-drgrpo", "sft", "Dr. GRPO", "Dr. GRPO", "blue", "baselines", "drgrpo", tex="Dr.~GRPO"),
    Arm(
        "cpu-rcgrpo-strat",
        "rctp",
        "RC-GRPO, stratified goals",
        "RC-GRPO, stratified goals",
        "green",
        "stratified",
        "rctp_strat",
    ),
    Arm(
        "regime-grpo",
        "sft",
        "SFT + GRPO",
        "GRPO",
        "black",
        "regime-factorial",
        "sft_grpo",
        "regime-d10",
    ),
    Arm(
        "regime-sft-rc",
        "sft",
        "SFT + RC sampling",
        "RC sampling",
        "orange",
        "regime-factorial",
        "sft_rc",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo",
        "rctp",
        "RCTP-FT + GRPO",
        "GRPO (high goal)",
        "sky",
        "regime-factorial",
        "rctp_grpo",
        "regime-d10",
    ),
    Arm(
        "regime-rcgrpo",
        "rctp",
        "RCTP-FT + RC-GRPO",
        "RC-GRPO",
        "vermilion",
        "regime-factorial",
        "rctp_rc",
        "regime-d10",
    ),
    Arm(
        "regime-rcgrpo-strat",
        "rctp",
        "RC-GRPO, stratified goals",
        "RC-GRPO, stratified goals",
        "green",
        "regime-stratified",
        "rctp_strat",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo-temp",
        "rctp",
        "RCTP-FT + GRPO, matched temperature",
        "GRPO (high goal), matched temperature",
        "yellow",
        "regime-matched",
        "temp_matched",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo-entcoef",
        "rctp",
        "RCTP-FT + GRPO, matched entropy bonus",
        "GRPO (high goal), matched entropy bonus",
        "purple",
        "regime-matched",
        "coef_matched",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-dapo",
        "rctp",
        "RCTP-FT + DAPO dynamic sampling",
        "GRPO (high goal) + DAPO",
        "black",
        "regime-baselines",
        "dapo",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-drgrpo",
        "rctp",
        "RCTP-FT + Dr. GRPO",
        "Dr. GRPO (high goal)",
        "blue",
        "regime-baselines",
        "drgrpo",
        "regime-d10",
        tex="Dr.~GRPO (high goal)",
    ),
    Arm(
        "regime-rcgrpo-beta1",
        "rctp",
        "RC-GRPO, β = 1",
        "RC-GRPO, β = 1",
        "blue",
        "regime-separation",
        "rc_beta1",
        "regime-d10",
        tex="RC-GRPO, $\\beta=1$",
    ),
    Arm(
        "regime-rcgrpo-beta3",
        "rctp",
        "RC-GRPO, β = 3",
        "RC-GRPO, β = 3",
        "purple",
        "regime-separation",
        "rc_beta3",
        "regime-d10",
        tex="RC-GRPO, $\\beta=3$",
    ),
    Arm(
        "regime-rcgrpo-anchored",
        "rctp",
        "RC-GRPO, anchored low mode",
        "RC-GRPO, low goal untrained",
        "black",
        "regime-separation",
        "rc_anchored",
        "regime-d10",
    ),
    Arm(
        "regime-rcgrpo-goalnorm",
        "rctp",
        "RC-GRPO, within-goal normalisation",
        "RC-GRPO, within-goal advantages",
        "green",
        "regime-separation",
        "rc_goalnorm",
        "regime-d10",
    ),
    Arm(
        "regime-rctp-grpo-g4",
        "rctp",
        "RCTP-FT + GRPO, G = 4",
        "GRPO (high goal), G = 4",
        "sky",
        "regime-separation",
        "rctp_grpo_g4",
        "regime-d10",
    ),
)
"""Every arm (the ``regime-wide1`` and ``collapse`` ones are added below from
:data:`WIDE1_FACTORIAL` and :data:`COLLAPSE_ARMS`); within a
regime, the order of legends, bars and table rows."""
WIDE1_FACTORIAL = (
    "regime-wide1-grpo",
    "regime-wide1-sft-rc",
    "regime-wide1-rctp-grpo",
    "regime-wide1-rcgrpo",
)
"""The ``regime-wide1`` arms: the cells of the ``regime-d10`` factorial, in its order, with their
labels, colours and roles, on the synth suite ``regime-wide1-d10`` (the presets differ only in
the suite and the Stage-1 checkpoints)."""
ARMS += tuple(
    replace(a, preset=p, experiment="regime-wide1-factorial", regime="regime-wide1")
    for a, p in zip(
        (a for a in ARMS if a.experiment == "regime-factorial"), WIDE1_FACTORIAL, strict=True
    )
)

COLLAPSE_ARMS = {
    "regime-grpo": "collapse-grpo",
    "regime-sft-rc": "collapse-sft-rc",
    "regime-rctp-grpo": "collapse-rctp-grpo",
    "regime-rcgrpo": "collapse-rcgrpo",
    "regime-rcgrpo-anchored": "collapse-rcgrpo-anchored",
    "regime-rcgrpo-goalnorm": "collapse-rcgrpo-goalnorm",
    "regime-rctp-grpo-g4": "collapse-rctp-grpo-g3",
}
"""The ``collapse`` arms, by the ``regime-d10`` arm each repeats on ``collapse1-d10``: the
factorial's four cells (experiment ``collapse-factorial``) and the arms that separate RC-GRPO's
mechanisms (``collapse-mechanisms``), with their labels, colours and roles; the rollout-matched
arm runs G = 3, the nearest whole number of high-goal rollouts at or above RC-GRPO's mean G/2 =
2.5 at G = 5 (it is given the larger share, so RC-GRPO beating it is the conservative reading)."""
_COLLAPSE_CHANGES = {
    "regime-rcgrpo-anchored": {"colour": "purple"},
    "regime-rctp-grpo-g4": {
        "label": "RCTP-FT + GRPO, G = 3",
        "method": "GRPO (high goal), G = 3",
        "colour": "yellow",
        "role": "rctp_grpo_g3",
    },
}
"""Where a ``collapse`` arm differs from its ``regime-d10`` arm beyond preset, experiment and
regime: one colour per arm within the regime, and the rollout-matched arm's G."""
ARMS += tuple(
    replace(
        a,
        preset=COLLAPSE_ARMS[a.preset],
        experiment=(
            "collapse-factorial" if a.experiment == "regime-factorial" else "collapse-mechanisms"
        ),
        regime="collapse",
        **_COLLAPSE_CHANGES.get(a.preset, {}),
    )
    for a in ARMS
    if a.preset in COLLAPSE_ARMS
)

ARMS += (
    Arm(
        "collapse-shuffled-grpo",
        "rctp-shuffled",
        "shuffled-goal RCTP-FT + GRPO",
        "GRPO (high goal)",
        "blue",
        "collapse-control",
        "shuffled_grpo",
        "collapse",
    ),
)
"""The control of the collapse campaign (docs/protocols/collapse-control.md): RCTP-FT + GRPO
from an RCTP-FT whose goal labels were permuted (``rctp-collapse-shuffled``, Stage-1
``goals.labels shuffled``), so its init has RCTP-FT's data and recipe but no reward
conditioning."""


def arms(regime: str | None = None, experiment: str | None = None) -> tuple[Arm, ...]:
    """The arms of ``regime`` and/or ``experiment`` (default: all), in :data:`ARMS` order;
    read at call time, so an arm registered later is included. An unknown ``regime`` is an
    error (a renamed regime must not select nothing)."""
    if regime is not None and regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; one of {REGIMES}")
    return tuple(
        a
        for a in ARMS
        if (regime is None or a.regime == regime)
        and (experiment is None or a.experiment == experiment)
    )


def arm(preset: str) -> Arm | None:
    """The arm of RL preset ``preset`` (None: not an arm, e.g. ``paper-qwen7b``)."""
    return next((a for a in ARMS if a.preset == preset), None)


def roles(regime: str) -> dict[str, str]:
    """Role -> preset of the arms of ``regime``; a role held twice is an error."""
    out: dict[str, str] = {}
    for a in arms(regime):
        if a.role in out:
            raise ValueError(
                f"role {a.role!r} of regime {regime} is held by {out[a.role]} and {a.preset}"
            )
        out[a.role] = a.preset
    return out
