"""The collapse-pairs design's verdict (``docs/protocols/collapse-pairs.md``, "Design variants"
and its conflict rule), read from the gate table (:mod:`analysis.campaigns.collapse_pairs.gates`),
and the words every page says it in.

The protocol's order: P1, P2, P3 at seed 31; P4 only if none of them passes every gate
(:func:`~analysis.campaigns.collapse_pairs.gates.p4_dose`); the first variant that passes every
gate at seed 31 is run at seed 32, then the next one that passed at 31, within the cap of four.
:func:`decide` walks that order and stops at the first of:

- ``measuring``: the next measurement the order calls for (variant, seed) is not complete;
- ``chosen``: a variant passes every gate at both design seeds; the campaign runs from it;
- ``unconfirmed``: every variant that passed at seed 31 failed at seed 32; no campaign;
- ``conflict``: no variant within the cap passes R, C and C′ together at seed 31. The
  protocol's result is then *the premise and the rescue condition cannot both be built from
  reward-labelled data*, with the numbers that decide it, and the campaign does not run.

Generated from it by ``python -m analysis.report --write-readme`` (``--check-readme`` finds them
stale): the ``collapse-pairs-verdict`` block of ``docs/results.md`` (:func:`verdict_markdown`,
the dose table), the README's bullet (:func:`headline`) and the findings page's paragraph
(:func:`plain`), the ``collapse-pairs`` row's status, finding and summary in
``results/INDEX.toml`` (:func:`index_fields`), and the paper's ``collapse_pairs.tex`` (:func:`verdict_latex`).
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

CONFLICT = "the premise and the rescue condition cannot both be built from reward-labelled data"
"""The protocol's words for the conflict result."""
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


def _failing(m: gates.Measure) -> str:
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
                "—" if m.rho is None else f"{m.rho['estimate']:.3f}",
                _failing(m),
            ]
        )
    return rows


def _largest(measured: Sequence[gates.Measure], value: Callable[[gates.Measure], float]):
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
        f"seed {DESIGN_SEEDS[0]}, so the protocol's result is that *{CONFLICT}* on "
        f"collapse1-d10; the campaign does not run, and no variant goes on to the confirmation "
        f"seed {DESIGN_SEEDS[1]} (only one that passed at seed {DESIGN_SEEDS[0]} does)."
    )


def _first(st: Status) -> list[gates.Measure]:
    return [m for m in st.measured if m.seed == DESIGN_SEEDS[0]]


def _r_ci(m: gates.Measure) -> str:
    r = m.r
    return f"{r['diff']:+.3f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]"


def _r_diff(m: gates.Measure) -> str:
    return f"{m.variant.upper()} {_r_ci(m)}"


def _deciding(st: Status) -> str:
    """The numbers that decide the gates, over the seed-31 measurements."""
    first = _first(st)
    if not first:
        return ""
    n = len(first)
    c, c_at = _largest(first, lambda m: m.c)
    cp, cp_at = _largest(first, lambda m: m.cprime)
    apart = [m for m in first if gates.separates(m.r)]
    if apart:
        sep = f"the goals separate in {len(apart)} of {n} (" + "; ".join(map(_r_diff, apart))
        sep += ")"
    else:
        r, r_at = _largest(first, lambda m: m.r["diff"])
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
        before = next(b for b in _first(st) if b.variant == m.variant)
        same = _failing(m) == _failing(before)
        said.append(
            f"{m.variant.upper()} at seed {m.seed}: R {_r_ci(m)} "
            f"(P(right | high) {m.r['p_high']:.3f}), C {m.c:.3f}, C′ {m.cprime:.3f}; it fails "
            f"{_failing(m)}"
            + (
                f", as at seed {before.seed}"
                if same
                else f", where seed {before.seed} failed {_failing(before)}"
            )
        )
    if not said:
        return ""
    lead = "replications" if len(said) > 1 else "replication"
    verb = "they decide" if len(said) > 1 else "it decides"
    return f"The registered {lead} the order did not call for ({verb} nothing): " + (
        "; ".join(said) + "."
    )


def verdict_markdown(root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS) -> str:
    """The ``collapse-pairs-verdict`` block: the verdict, its deciding numbers, what the
    registered replications found, and the dose table of every complete measurement."""
    st = status(root, diagnostics)
    replicated = replications(st, lambda v, s: gates.measure(v, s, root, diagnostics))
    parts = (_decision(st), _deciding(st), _replicated(st, replicated))
    text = "\n\n".join(p for p in parts if p)
    rows = dose_rows(st, gates.p4_dose(root, diagnostics), replicated)
    if rows:
        align = ["---", "--:", "---", *["--:"] * 7, "---"]
        text += "\n\n" + "\n".join(markdown_table(DOSE_HEADER, rows, align)) + "\n\n" + NOTE
    return text + "\n"


def _pct(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "−")


_COUNT = ("no", "one", "two", "three", "four")


def _designs(first: Sequence[gates.Measure], p4_pairs: int | None) -> str:
    """``four designs (50, 150 and 450 minimal pairs per decision, and 450 with …)``."""
    doses = [str(VARIANTS[m.variant]) for m in first if m.variant in VARIANTS]
    listed = ", ".join(doses[:-1]) + (" and " if len(doses) > 1 else "") + doses[-1]
    text = f"{_COUNT[len(first)]} designs ({listed} minimal pairs per decision"
    if any(m.variant == "p4" for m in first):
        text += f", and {p4_pairs} with the decision's tokens weighed ×{P4_WEIGHT:g}"
    return text + ")"


def _found(first: Sequence[gates.Measure]) -> list[str]:
    """What the seed-31 designs found, in plain words: the goals, then the collapse."""
    apart = [m for m in first if gates.separates(m.r)]
    inert = [m for m in first if not gates.separates(m.r)]
    found = []
    if inert:
        r, _ = _largest(inert, lambda m: m.r["diff"])
        where = "" if not apart else f" in {_COUNT[len(inert)]} of them"
        found.append(
            f"the goal token barely changed the planted decision{where} (at most {_pct(r)} "
            f"points between the goals, where {100 * R_SEPARATION:.0f} were needed)"
        )
    for m in apart:
        said = (
            f"{'in the ' + _ORDINAL[first.index(m)] if inert else 'there'} the goals "
            f"separated (the decision right {m.r['p_high']:.2f} of the time under the high "
            f"goal, {m.r['p_low']:.2f} under the low)"
        )
        if not gates.high_unsolved(m.r):
            said += ", but the high goal had already learned the decision"
        found.append(said)
    if not any(m.holds()["C"] or m.holds()["C′"] for m in first):
        worst = max(max(m.c, m.cprime) for m in first)
        found.append(
            "neither SFT + GRPO nor RCTP-FT + GRPO collapsed (all-fail groups at most "
            f"{worst:.2f} of the time, where half were needed)"
        )
    elif not any(m.passes for m in first):
        found.append("no design gave separated goals and a collapse together")
    return found


_ORDINAL = ("first", "second", "third", "fourth")


def plain(root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS) -> str:
    """The verdict in plain words, without rule codes (the README's bullet, the findings page)."""
    st = status(root, diagnostics)
    first = _first(st)
    if not first:
        return "The fair test of the paper's RC-sampling claim is in its design stage."
    found = _found(first)
    said = f"In {_designs(first, gates.p4_dose(root, diagnostics))}, " + "; ".join(found[:-1])
    said += ("; and " if len(found) > 2 else " and ") * (len(found) > 1) + found[-1]
    if st.kind == "conflict":
        return (
            "The fair test of the paper's RC-sampling claim could not be built on the collapse "
            f"testbed. {said}. So the study stopped by its registered rule before its campaign."
        )
    if st.kind == "measuring":
        return (
            "The fair test of the paper's RC-sampling claim is in its design stage. "
            f"{said}; the next measurement follows."
        )
    if st.kind == "chosen":
        return f"The fair test's design is chosen ({st.variant.upper()}); its campaign runs next."
    return (
        "The fair test's design did not hold at its confirmation seed; its campaign does not run."
    )


def headline(root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS) -> str:
    """:func:`plain` in one sentence (the README's bullet, the INDEX row's summary)."""
    st = status(root, diagnostics)
    first = _first(st)
    if st.kind != "conflict":
        return plain(root, diagnostics).split(". ")[0] + "."
    lead = (
        "The fair test of the paper's RC-sampling claim could not be built on the collapse testbed"
    )
    solved = [m for m in first if gates.separates(m.r) and not gates.high_unsolved(m.r)]
    if solved:
        return (
            f"{lead}: the goal token changed the planted decision only once the high goal had "
            "learned that decision, which left no collapse for reward-conditioned sampling to "
            "rescue."
        )
    return f"{lead}: in {_COUNT[len(first)]} designs the goal token never changed the planted decision."


def _values(first: Sequence[gates.Measure], value: Callable[[gates.Measure], float], fmt: str):
    """``P1 +0.000, P2 −0.001, …``: one number per measurement (a true minus sign)."""
    return ", ".join(f"{m.variant.upper()} {value(m):{fmt}}".replace("-", "−") for m in first)


def index_fields(
    root: Path = gates.RESULTS, diagnostics: Path = gates.DIAGNOSTICS
) -> dict[str, str]:
    """The ``collapse-pairs`` row's ``status``, ``finding`` (rule codes, numbers) and
    ``summary`` (:func:`plain`) in ``results/INDEX.toml``."""
    st = status(root, diagnostics)
    first = _first(st)
    lead = {
        "measuring": f"Design stage; next: {(st.variant or '').upper()} at seed {st.seed}.",
        "chosen": f"Design chosen: {(st.variant or '').upper()} passes every gate at seeds 31 and 32.",
        "unconfirmed": "Design not confirmed at seed 32; the campaign does not run.",
        "conflict": "Design stopped by the conflict rule: no variant of P1–P4 passes R, C and "
        f"C′ together at seed 31 ({CONFLICT}); the campaign does not run.",
    }[st.kind]
    finding = lead
    if first:
        p4 = gates.p4_dose(root, diagnostics)
        designs = "; ".join(f"{m.variant.upper()} {dose(m.variant, p4)}" for m in first)
        finding += (
            f" Seed 31 ({designs}): R: "
            + _values(first, lambda m: m.r["diff"], "+.3f")
            + " (high right "
            + _values(first, lambda m: m.r["p_high"], ".3f")
            + "); C: "
            + _values(first, lambda m: m.c, ".3f")
            + "; C′: "
            + _values(first, lambda m: m.cprime, ".3f")
            + "; rho: "
            + _values(first, lambda m: m.rho["estimate"], ".3f")
            + "."
        )
    return {"status": STATUS[st.kind], "finding": finding, "summary": headline(root, diagnostics)}


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
    parts = (_decision(st), _deciding(st), _replicated(st, replicated))
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
