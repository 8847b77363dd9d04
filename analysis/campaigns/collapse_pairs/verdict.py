"""The collapse-pairs design's verdict (``docs/protocols/collapse-pairs.md``, "Design variants"
and its conflict rule), read from the gate table (:mod:`analysis.campaigns.collapse_pairs.gates`),
and its words in the protocol's terms.

The protocol's order: P1, P2, P3 at seed 31; P4 only if none of them passes every gate
(:func:`~analysis.campaigns.collapse_pairs.gates.p4_dose`); the first variant that passes every
gate at seed 31 is run at seed 32, then the next one that passed at 31, within the cap of four.
:func:`decide` walks that order and stops at the first of:

- ``measuring``: the next measurement the order calls for (variant, seed) is not complete;
- ``chosen``: a variant passes every gate at both design seeds; the campaign runs from it;
- ``unconfirmed``: every variant that passed at seed 31 failed at seed 32; no campaign;
- ``conflict``: no variant within the cap passes R, C and C′ together at seed 31: the
  protocol's conflict rule ends the design, and the campaign does not run. Every page says it
  with the numbers that decide it and with what was tried (:func:`doses_tried`, the
  registered replications): the conflict is shown for those designs only (:data:`SCOPE`).

Generated from it by ``python -m analysis.report --write-readme`` (``--check-readme`` finds them
stale): the ``collapse-pairs-verdict`` block of ``docs/results/collapse-pairs.md`` (:func:`verdict_markdown`,
the dose table) and the paper's ``collapse_pairs.tex`` (:func:`verdict_latex`); the plain words
and the INDEX row: :mod:`analysis.campaigns.collapse_pairs.words`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from analysis.campaigns.collapse_design.gates import C_ALL_FAIL, R_HIGH_MAX, R_SEPARATION
from analysis.campaigns.collapse_pairs import gates
from analysis.campaigns.collapse_pairs.design import DESIGN_SEEDS, P4_WEIGHT, VARIANTS
from analysis.campaigns.regime_separation.tables import markdown_table
from analysis.report.latex import escape, tabular

SCOPE = "a property of the designs tried, not shown in general"
"""How every page bounds the conflict: the protocol's rule reads it as the premise and the
rescue condition not buildable together from reward-labelled data, but only the designs of
:func:`doses_tried` were tried (gate C failed at every dose, the matched SFT learning the right
swap from the pairs' expert rows)."""
STATUS = {
    "measuring": "current",
    "chosen": "current",
    "unconfirmed": "complete",
    "conflict": "complete",
}
"""The INDEX row's status for each kind of :class:`Status`."""


@dataclass(frozen=True)
class Status:
    """Where the design stands (module docstring)."""

    kind: str
    """``measuring``, ``chosen``, ``unconfirmed`` or ``conflict``."""
    variant: str | None
    """The variant to measure next (``measuring``) or the one chosen (``chosen``)."""
    seed: int | None
    """The seed to measure next (``measuring``)."""
    measured: tuple[gates.Measure, ...]
    """Every complete measurement the order reached, seed 31 first, in the protocol's order."""


def decide(measure: Callable[[str, int], gates.Measure], variants: Sequence[str]) -> Status:
    """The design's :class:`Status`, walking ``variants`` (P1–P3, then P4 once its dose is
    decided) in the protocol's order with ``measure(variant, seed)``."""
    first, confirm = DESIGN_SEEDS
    done: list[gates.Measure] = []
    passed: list[str] = []
    for v in variants:
        m = measure(v, first)
        if not m.complete:
            return Status("measuring", v, first, tuple(done))
        done.append(m)
        if m.passes:
            passed.append(v)
    for v in passed:
        m = measure(v, confirm)
        if not m.complete:
            return Status("measuring", v, confirm, tuple(done))
        done.append(m)
        if m.passes:
            return Status("chosen", v, None, tuple(done))
    if passed:
        return Status("unconfirmed", None, None, tuple(done))
    if len(variants) < len(VARIANTS) + 1:
        return Status("measuring", "p4", first, tuple(done))
    return Status("conflict", None, None, tuple(done))


def status(root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS) -> Status:
    """The design's :class:`Status` on the committed runs and diagnostics."""
    variants = [*VARIANTS, *(["p4"] if gates.p4_dose(root, diagnostics) is not None else [])]
    return decide(lambda v, s: gates.measure(v, s, root, diagnostics), variants)


def replications(
    st: Status, measure: Callable[[str, int], gates.Measure] = gates.measure
) -> tuple[gates.Measure, ...]:
    """The complete measurements at the confirmation seed, by ``measure(variant, seed)``
    (default: the committed runs), of the variants ``st`` measured where the order itself did
    not go on to that seed (none passed at seed 31): replications registered in the lab note
    (P4 at seed 32). Shown beside the design's measurements; the verdict never reads them."""
    reached = {(m.variant, m.seed) for m in st.measured}
    found = (measure(m.variant, DESIGN_SEEDS[1]) for m in st.measured)
    return tuple(m for m in found if m.complete and (m.variant, m.seed) not in reached)


def dose(variant: str, p4_pairs: int | None) -> str:
    """A variant's design in words: pairs per swap kind, and P4's weight."""
    if variant == "p4":
        return f"{p4_pairs} pairs, decision tokens ×{P4_WEIGHT:g}"
    return f"{VARIANTS[variant]} pairs"


NOTE = (
    "Right shares: the goal-effect instrument's P(right) at the planted decisions, pooled "
    "(200 held-out tasks × 32 samples per goal); rows identical: the share of goal pairs whose "
    "rollouts are token-identical; C, C′: the all-fail share of the 50-step GRPO pilots (from "
    "the matched SFT, from RCTP-FT); ρ̂: the transfer probe "
    "(`analysis/campaigns/collapse_pairs/verdict.py`)."
)
DOSE_HEADER = (
    "variant",
    "seed",
    "design",
    "right share, high",
    "right share, low",
    "R: high − low [95% CI]",
    "rows identical across goals",
    "C",
    "C′",
    "ρ̂",
    "gates failing",
)


def failing(m: gates.Measure) -> str:
    """The gates ``m`` fails, ``R, C, C′`` (``none``)."""
    return ", ".join(g for g, holds in m.holds().items() if not holds) or "none"


def dose_rows(
    st: Status, p4_pairs: int | None, replicated: Sequence[gates.Measure] = ()
) -> list[list[str]]:
    """One row of :data:`DOSE_HEADER` per complete measurement of the design, then one per
    registered replication (:func:`replications`), its seed marked as such."""
    rows = []
    for m in [*st.measured, *replicated]:
        r = m.r
        rows.append(
            [
                m.variant.upper(),
                f"{m.seed}{' (replication)' * (m in replicated)}",
                dose(m.variant, p4_pairs),
                f"{r['p_high']:.3f}",
                f"{r['p_low']:.3f}",
                f"{r['diff']:+.3f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]",
                f"{r['identical_share']['identical']:.3f}" if "identical_share" in r else "—",
                f"{m.c:.3f}",
                f"{m.cprime:.3f}",
                gates.rho_text(m.rho, interval=False),
                failing(m),
            ]
        )
    return rows


def largest(measured: Sequence[gates.Measure], value: Callable[[gates.Measure], float]):
    """(value, variant) of the measurement with the largest ``value`` (the first on a tie)."""
    best = max(measured, key=value)
    return value(best), best.variant.upper()


def _count(measured: Sequence[gates.Measure], gate: str) -> int:
    return sum(bool(m.holds()[gate]) for m in measured)


def _decision(st: Status) -> str:
    """The verdict in one sentence, in the protocol's terms."""
    if st.kind == "measuring":
        return (
            f"**Design stage.** Next measurement the protocol's order calls for: "
            f"{st.variant.upper()} at seed {st.seed}."
        )
    if st.kind == "chosen":
        return (
            f"**Chosen: {st.variant.upper()}.** It passes R, C and C′ at both design seeds; the "
            "campaign runs from it."
        )
    if st.kind == "unconfirmed":
        return (
            "**Not confirmed.** Every variant that passed at seed 31 failed at seed 32; the "
            "campaign does not run."
        )
    return (
        f"**Conflict.** No variant of the four the cap allows passes R, C and C′ together at "
        f"seed {DESIGN_SEEDS[0]}, so the design ends by the protocol's conflict rule on "
        f"collapse1-d10: the campaign does not run, and no variant goes on to the confirmation "
        f"seed {DESIGN_SEEDS[1]} (only one that passed at seed {DESIGN_SEEDS[0]} does)."
    )


def first_seed(st: Status) -> list[gates.Measure]:
    """The measurements at the design seed (31), in the protocol's order."""
    return [m for m in st.measured if m.seed == DESIGN_SEEDS[0]]


def _r_ci(m: gates.Measure) -> str:
    r = m.r
    return f"{r['diff']:+.3f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]"


def _r_diff(m: gates.Measure) -> str:
    return f"{m.variant.upper()} {_r_ci(m)}"


def _deciding(st: Status) -> str:
    """The numbers that decide the gates, over the seed-31 measurements."""
    first = first_seed(st)
    if not first:
        return ""
    n = len(first)
    c, c_at = largest(first, lambda m: m.c)
    cp, cp_at = largest(first, lambda m: m.cprime)
    apart = [m for m in first if gates.separates(m.r)]
    if apart:
        sep = f"the goals separate in {len(apart)} of {n} (" + "; ".join(map(_r_diff, apart))
        sep += ")"
    else:
        r, r_at = largest(first, lambda m: m.r["diff"])
        sep = f"the goals separate in none of {n} (largest difference {r:+.3f} at {r_at})"
    highs = [m.r["p_high"] for m in first]
    return (
        f"At seed {DESIGN_SEEDS[0]}, R holds for {_count(first, 'R')} of {n}: it needs a "
        f"difference P(right | high) − P(right | low) ≥ {R_SEPARATION:.2f} with its interval "
        f"above {gates.R_CI_LOW:.2f}, and P(right | high) ≤ {R_HIGH_MAX:.2f}. Here {sep}, and "
        f"the high goal is right at most {R_HIGH_MAX:.2f} of the time in "
        f"{sum(gates.high_unsolved(m.r) for m in first)} of {n} (P(right | high) {min(highs):.3f} to "
        f"{max(highs):.3f}). C holds for {_count(first, 'C')} of {n} (it needs an all-fail "
        f"share ≥ {C_ALL_FAIL:.1f}; largest {c:.3f} at {c_at}) and C′ for {_count(first, 'C′')} "
        f"of {n} (largest {cp:.3f} at {cp_at})."
    )


def _replicated(st: Status, replicated: Sequence[gates.Measure]) -> str:
    """What each registered replication found, against its variant at seed 31."""
    said = []
    for m in replicated:
        before = next(b for b in first_seed(st) if b.variant == m.variant)
        same = failing(m) == failing(before)
        said.append(
            f"{m.variant.upper()} at seed {m.seed}: R {_r_ci(m)} "
            f"(P(right | high) {m.r['p_high']:.3f}), C {m.c:.3f}, C′ {m.cprime:.3f}; it fails "
            f"{failing(m)}"
            + (
                f", as at seed {before.seed}"
                if same
                else f", where seed {before.seed} failed {failing(before)}"
            )
        )
    if not said:
        return ""
    lead = "replications" if len(said) > 1 else "replication"
    verb = "they decide" if len(said) > 1 else "it decides"
    return f"The registered {lead} the order did not call for ({verb} nothing): " + (
        "; ".join(said) + "."
    )


def doses_tried(first: Sequence[gates.Measure], p4_pairs: int | None) -> tuple[int, int, list[str]]:
    """The fewest and most pairs per kind of ``first`` and the decision weights tried
    (``50, 450, ["1", "4"]``)."""
    pairs = [(p4_pairs or 0) if m.variant == "p4" else VARIANTS[m.variant] for m in first]
    weights = ["1", *([f"{P4_WEIGHT:g}"] if any(m.variant == "p4" for m in first) else [])]
    return min(pairs), max(pairs), weights


def c_fails_everywhere(measured: Sequence[gates.Measure]) -> bool:
    """Gate C fails on every measurement: the matched SFT collapses at no dose."""
    return not any(m.holds()["C"] for m in measured)


def scope(st: Status, p4_pairs: int | None, replicated: Sequence[gates.Measure]) -> str:
    """What the conflict was shown on (:data:`SCOPE`): the designs tried, and C at every dose."""
    first = first_seed(st)
    if st.kind != "conflict" or not first:
        return ""
    lo, hi, weights = doses_tried(first, p4_pairs)
    said = (
        f"Tried: {first[0].variant.upper()}–{first[-1].variant.upper()} ({lo} to {hi} pairs per "
        f"kind, decision weights ×{' and ×'.join(weights)}) at seed {DESIGN_SEEDS[0]}"
        + "".join(
            f", {m.variant.upper()} also at seed {m.seed} (fails {failing(m)})" for m in replicated
        )
        + "."
    )
    if c_fails_everywhere([*first, *replicated]):
        said += (
            f" C fails at every dose from {lo} pairs up: the matched SFT learns the right swap "
            "from the pairs' expert rows."
        )
    return said + f" The conflict is {SCOPE}: other doses and weights were not tried."


def verdict_markdown(root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS) -> str:
    """The ``collapse-pairs-verdict`` block: the verdict, its deciding numbers, what the
    registered replications found, and the dose table of every complete measurement."""
    st = status(root, diagnostics)
    replicated = replications(st, lambda v, s: gates.measure(v, s, root, diagnostics))
    p4 = gates.p4_dose(root, diagnostics)
    parts = (_decision(st), _deciding(st), _replicated(st, replicated), scope(st, p4, replicated))
    text = "\n\n".join(p for p in parts if p)
    rows = dose_rows(st, p4, replicated)
    if rows:
        align = ["---", "--:", "---", *["--:"] * 7, "---"]
        text += "\n\n" + "\n".join(markdown_table(DOSE_HEADER, rows, align)) + "\n\n" + NOTE
    return text + "\n"


TEX_HEADER = ("variant", "design", "P(right | high)", "P(right | low)", "R [95% CI]", "C", "C′")


def verdict_latex(root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS) -> str:
    """The paper's ``collapse_pairs.tex``: the verdict paragraph and the dose table."""
    st = status(root, diagnostics)
    p4 = gates.p4_dose(root, diagnostics)
    replicated = replications(st, lambda v, s: gates.measure(v, s, root, diagnostics))
    body = [
        [
            escape(c)
            for c in (
                f"{row[0]} (s{row[1].replace(' (', ', ').rstrip(')')})",
                *(row[2], row[3], row[4], row[5], row[7], row[8]),
            )
        ]
        for row in dose_rows(st, p4, replicated)
    ]
    parts = (_decision(st), _deciding(st), _replicated(st, replicated), scope(st, p4, replicated))
    words = " ".join(p for p in parts if p).replace("**", "")
    words = words.replace("*", "")
    paragraph = escape(words) + "\n"
    if not body:
        return paragraph
    table = tabular(
        [escape(h) for h in TEX_HEADER],
        body,
        ["l", "l", "r", "r", "r", "r", "r"],
        caption="The fair test's design on \\code{collapse1-d10} "
        "(\\code{docs/protocols/collapse-pairs.md}): minimal-pair RCTP-FT variants and their "
        "gates. R: the goal-effect instrument's P(right) at the planted decisions, 200 "
        "held-out tasks $\\times$ 32 samples per goal; C, C$'$: all-fail share of the 50-step "
        "GRPO pilots from the matched SFT and from RCTP-FT.",
        label="tab:collapse-pairs",
        note="",
        size="footnotesize",
    )
    return paragraph + "\n" + table
