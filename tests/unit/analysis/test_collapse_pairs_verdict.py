"""The collapse-pairs design's verdict (``docs/protocols/collapse-pairs.md``: P1–P3 at seed 31,
P4 only if none passes, the first passing variant confirmed at seed 32, the conflict rule) on
hand-made gate measurements, and the words it is said in."""

from __future__ import annotations

import math

import pytest

from analysis.campaigns.collapse_pairs import gates, words
from analysis.campaigns.collapse_pairs import verdict as vd

THREE, FOUR = ["p1", "p2", "p3"], ["p1", "p2", "p3", "p4"]


def _m(variant: str, seed: int, diff=0.0, p_high=0.4, c=0.1, cprime=0.2, rho=1.0):
    r = {"diff": diff, "ci": [diff - 0.003, diff + 0.003], "p_high": p_high}
    r |= {"p_low": p_high - diff, "identical_share": {"identical": 0.9}}
    holds = diff >= 0.10 and diff - 0.003 > 0.05 and p_high <= 0.30
    return gates.Measure(variant, seed, r, holds, c, cprime, {"estimate": rho, "ci": [rho, rho]})


PASS = {"diff": 0.2, "p_high": 0.25, "c": 0.6, "cprime": 0.7}


def _measure(table: dict[tuple[str, int], dict | None]):
    """A measure function: (variant, seed) -> that measurement, not measured when absent."""

    def measure(v: str, s: int) -> gates.Measure:
        if (v, s) not in table:
            return gates.Measure(v, s, None, None, None, None, None)
        return _m(v, s, **table[(v, s)])

    return measure


def test_the_order_asks_for_the_next_measurement():
    st = vd.decide(_measure({("p1", 31): {}}), THREE)
    assert (st.kind, st.variant, st.seed) == ("measuring", "p2", 31)
    assert [m.variant for m in st.measured] == ["p1"]
    # P1–P3 fail at 31 and P4's dose is not yet in the list: P4 is next
    st = vd.decide(_measure({(v, 31): {} for v in THREE}), THREE)
    assert (st.kind, st.variant, st.seed) == ("measuring", "p4", 31)


def test_four_failing_variants_are_the_conflict():
    st = vd.decide(_measure({(v, 31): {} for v in FOUR}), FOUR)
    assert (st.kind, len(st.measured)) == ("conflict", 4)
    assert vd.STATUS[st.kind] == "complete"


def test_a_variant_passing_at_31_is_confirmed_at_32_then_the_next_one():
    table = {(v, 31): {} for v in THREE} | {("p2", 31): PASS}
    st = vd.decide(_measure(table), THREE)
    assert (st.kind, st.variant, st.seed) == ("measuring", "p2", 32)
    st = vd.decide(_measure(table | {("p2", 32): PASS}), THREE)
    assert (st.kind, st.variant) == ("chosen", "p2")
    # P2 fails at 32: P3, which also passed at 31, is tried there
    table |= {("p2", 32): {}, ("p3", 31): PASS}
    assert vd.decide(_measure(table), THREE).variant == "p3"
    assert vd.decide(_measure(table | {("p3", 32): PASS}), THREE).kind == "chosen"
    assert vd.decide(_measure(table | {("p3", 32): {}}), THREE).kind == "unconfirmed"


def test_one_failing_gate_is_enough():
    for gate, value in (("diff", 0.05), ("p_high", 0.35), ("c", 0.49), ("cprime", 0.3)):
        table = {(v, 31): {} for v in FOUR} | {("p1", 31): PASS | {gate: value}}
        assert vd.decide(_measure(table), FOUR).kind == "conflict", gate


def test_a_registered_replication_is_shown_but_never_decides():
    table = {(v, 31): {} for v in FOUR} | {("p4", 31): {"diff": 0.873, "p_high": 0.921}}
    st = vd.decide(_measure(table), FOUR)
    assert vd.replications(st, _measure(table)) == ()
    # P4 at 32, complete: a replication, and the verdict is still the conflict
    table |= {("p4", 32): {"diff": 0.971, "p_high": 0.973}}
    assert [(m.variant, m.seed) for m in vd.replications(st, _measure(table))] == [("p4", 32)]
    assert vd.decide(_measure(table), FOUR) == st
    # a variant the order confirmed at 32 is a measurement of the design, not a replication
    table = {(v, 31): {} for v in THREE} | {("p2", 31): PASS, ("p2", 32): {}, ("p1", 32): {}}
    st = vd.decide(_measure(table), THREE)
    assert st.kind == "unconfirmed"
    assert [(m.variant, m.seed) for m in vd.replications(st, _measure(table))] == [("p1", 32)]


@pytest.fixture
def conflict(monkeypatch):
    """P1–P3 inert, P4 separated with its high goal solved, nothing collapsing."""
    r = {
        "p1": {"diff": 0.000},
        "p2": {"diff": -0.001},
        "p3": {"diff": 0.003},
        "p4": {"diff": 0.873, "p_high": 0.921},
    }
    shares = {"p1": (0.085, 0.198), "p2": (0.070, 0.160), "p3": (0.045, 0.125), "p4": (0.05, 0.1)}
    table = {(v, 31): r[v] | {"c": shares[v][0], "cprime": shares[v][1]} for v in FOUR}
    st = vd.decide(_measure(table), FOUR)
    monkeypatch.setattr(vd, "status", lambda *a: st)
    monkeypatch.setattr(gates, "p4_dose", lambda *a: 450)
    monkeypatch.setattr(gates, "measure", lambda v, s, *a: _measure(table)(v, s))
    return table


def test_a_replication_is_said_beside_the_verdict_and_decides_nothing(conflict, monkeypatch):
    md, fields, said = vd.verdict_markdown(), words.index_fields(), words.plain()
    assert "replication" not in md and "seed 32" not in said
    table = conflict | {("p4", 32): {"diff": 0.971, "p_high": 0.973, "c": 0.05, "cprime": 0.07}}
    monkeypatch.setattr(gates, "measure", lambda v, s, *a: _measure(table)(v, s))
    md = vd.verdict_markdown()
    assert md.startswith("**Conflict.**")
    assert (
        "The registered replication the order did not call for (it decides nothing): P4 at "
        "seed 32: R +0.971 [+0.968, +0.974] (P(right | high) 0.973), C 0.050, C′ 0.070; it "
        "fails R, C, C′, as at seed 31." in md
    )
    assert "| P4 | 32 (replication) | 450 pairs, decision tokens ×4 |" in md
    assert "P4 (s32, replication) & 450 pairs" in vd.verdict_latex()
    assert (
        "Tried: P1–P4 (50 to 450 pairs per kind, decision weights ×1 and ×4) at seed 31, P4 "
        "also at seed 32 (fails R, C, C′)." in md
    )
    # the INDEX row and the plain words name it as tried; their verdict is the design's
    new = words.index_fields()
    assert new["status"] == fields["status"] and new["finding"].startswith(
        fields["finding"].split(" Tried:")[0]
    )
    assert "P4 also at seed 32 (fails R, C, C′)" in new["finding"]
    assert words.plain() == said.replace(
        "weighed ×4)", "weighed ×4; the fourth also at seed 32, with the same result)"
    )
    assert "×1 or ×4, seed 31; the fourth also at seed 32, with the same result)" in new["summary"]


def test_the_conflict_is_said_with_the_numbers_that_decide_it(conflict):
    md = vd.verdict_markdown()
    assert "**Conflict.**" in md and "ends by the protocol's conflict rule" in md
    # what was tried, and the conflict bounded to it (no wider than the designs), in every form
    assert (
        "Tried: P1–P4 (50 to 450 pairs per kind, decision weights ×1 and ×4) at seed 31. C fails "
        "at every dose from 50 pairs up: the matched SFT learns the right swap from the pairs' "
        "expert rows. The conflict is a property of the designs tried, not shown in general"
    ) in md
    assert "R holds for 0 of 4" in md and "the goals separate in 1 of 4 (P4 +0.873" in md
    assert "right at most 0.30 of the time in 0 of 4 (P(right | high) 0.400 to 0.921)" in md
    assert (
        "C holds for 0 of 4" in md and "largest 0.085 at P1" in md and "largest 0.198 at P1" in md
    )
    assert "| P4 | 31 | 450 pairs, decision tokens ×4 |" in md
    assert md.count("| R, C, C′ |") == 4
    said = words.plain()
    assert said.startswith(
        "The fair test of the paper's RC-sampling claim was not built in the designs tried"
    )
    assert (
        "four designs at seed 31 (50, 150 and 450 minimal pairs per decision, and 450 with" in said
    )
    assert "barely changed the planted decision in three of them (at most +0.3 points" in said
    assert "in the fourth the goals separated (the decision right 0.92 of the time" in said
    assert "but the high goal had already learned the decision" in said
    assert "at most 0.20 of the time, where half were needed): at every dose the SFT" in said
    assert said.endswith(
        "That no collapse was left to rescue is a property of the designs tried, not shown in "
        "general: other doses and weights were not tried."
    )
    head = words.headline()
    assert head.startswith(
        "The fair test of the paper's RC-sampling claim was not built in the four designs tried "
        "on the collapse testbed (50 to 450 minimal pairs per decision, the decision's tokens "
        "weighed ×1 or ×4, seed 31): at every dose the SFT trained on the same successes"
    )
    assert "only once the high goal had learned it, so these designs left no collapse" in head
    assert "did not collapse, and the goal token changed" in head
    assert head.endswith("(other doses and weights untested).")
    fields = words.index_fields()
    assert fields["summary"] == head
    assert fields["status"] == "complete" and vd.SCOPE in fields["finding"]
    assert "R: P1 +0.000, P2 −0.001, P3 +0.003, P4 +0.873" in fields["finding"]
    tex = vd.verdict_latex()
    assert r"\label{tab:collapse-pairs}" in tex
    assert "P4 (s31) & 450 pairs, decision tokens $\\times$4" in tex


def test_no_separation_anywhere_is_said_plainly(monkeypatch):
    table = {(v, 31): {"diff": 0.002} for v in FOUR}
    st = vd.decide(_measure(table), FOUR)
    monkeypatch.setattr(vd, "status", lambda *a: st)
    monkeypatch.setattr(gates, "p4_dose", lambda *a: 450)
    said = words.plain()
    assert "the goal token barely changed the planted decision (at most +0.2 points" in said
    assert "separated" not in said
    assert words.headline().endswith(
        "the goal token never changed the planted decision, so these designs left nothing for "
        "reward-conditioned sampling to rescue (other doses and weights untested)."
    )


def test_a_rho_without_an_interval_is_never_bare():
    """The dose table's ρ̂ alone when its interval exists; else the batches it stands on."""
    assert gates.rho_text({"estimate": 0.5, "ci": [0.25, 0.75]}, interval=False) == "0.500"
    assert gates.rho_text({"estimate": 0.5, "ci": [0.25, 0.75]}) == "0.500 [0.250, 0.750]"
    lone = {"estimate": 0.071, "ci": [math.nan, math.nan], "informative_batches": 1}
    assert gates.rho_text(lone, interval=False) == ("0.071 (no interval: 1 informative batch(es))")
    assert gates.rho_text(None) == "—"
