"""The synth suite's imperfect demonstrator: hand-worked mistakes, its rate, determinism."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from rcgrpo.env.synth import SYNTH_PRESETS, SynthConfig, generate_synth_tasks, render_call
from rcgrpo.env.synth_demo import (
    DECISIONS,
    REGIME_DECISIONS,
    decision_points,
    demonstrate,
    wrong_functions,
)
from rcgrpo.env.synth_families import FAMILY_BY_NAME

REGIME = SYNTH_PRESETS["regime"]
WIDE = SYNTH_PRESETS["regime-wide-d10"]
WIDE1 = SYNTH_PRESETS["regime-wide1-d10"]
SUITES = pytest.mark.parametrize(
    "suite", [REGIME, WIDE, WIDE1], ids=["regime", "regime-wide-d10", "regime-wide1-d10"]
)


def binomial_interval(n: int, p: float, level: float = 0.99) -> tuple[int, int]:
    """Smallest lo and largest hi with P(X < lo) <= a/2 and P(X > hi) <= a/2, X ~ Bin(n, p)."""
    alpha = (1 - level) / 2
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    lo, tail = 0, 0.0
    while tail + pmf[lo] <= alpha:
        tail += pmf[lo]
        lo += 1
    hi, tail = n, 0.0
    while tail + pmf[hi] <= alpha:
        tail += pmf[hi]
        hi -= 1
    return lo, hi


def test_binomial_interval_by_hand():
    # Bin(2, 1/2): pmf 1/4, 1/2, 1/4; a 50% interval drops 0 and 2 (1/4 <= 1/4 each side)
    assert binomial_interval(2, 0.5, level=0.5) == (1, 1)
    assert binomial_interval(2, 0.5, level=0.99) == (0, 2)


class FixedRng(random.Random):
    """``random()`` returns the given values in order (the demonstrator draws one per point)."""

    def __init__(self, values):
        super().__init__(0)
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


def _plan():
    rename, resolve, tweet = (FAMILY_BY_NAME[n] for n in ("fs_rename", "tk_resolve", "tw_post"))
    return [
        [(rename, {"source": "a.txt", "destination": "b.txt"}), (tweet, {"content": "hi yo"})],
        [(resolve, {"ticket_id": 7, "resolution": "done it"})],
    ]


def test_decision_points_and_mistakes_by_hand():
    plan = _plan()
    points = decision_points(plan, DECISIONS)
    # rename at (0, 0), resolve at (1, 0), and the task's last call (1, 0) for stop_early
    assert [(p["kind"], p["turn"], p["call"]) for p in points] == [
        ("rename_copy", 0, 0),
        ("resolve_close", 1, 0),
        ("stop_early", 1, 0),
    ]
    assert wrong_functions(points) == {"cp", "close_ticket"}
    # draws 0.1, 0.9, 0.3 against error 0.5: rename erred, resolve right, stop_early erred
    demo, recs = demonstrate(plan, DECISIONS, 0.5, FixedRng([0.1, 0.9, 0.3]), render_call)
    assert demo == [["cp(source='a.txt', destination='b.txt')", "post_tweet(content='hi yo')"], []]
    assert [r["erred"] for r in recs] == [True, False, True]
    # only resolve_close enabled, erred: close_ticket keeps the ticket id only
    demo, recs = demonstrate(plan, ("resolve_close",), 0.5, FixedRng([0.0]), render_call)
    assert demo[1] == ["close_ticket(ticket_id=7)"] and len(recs) == 1
    # a one-call task has no stop_early point
    assert decision_points([plan[1]], ("stop_early",)) == []


def test_the_wide_swaps_by_hand():
    comment, delete = FAMILY_BY_NAME["tw_comment"], FAMILY_BY_NAME["msg_delete"]
    plan = [
        [(comment, {"tweet_id": 3, "comment_content": "so it"})],
        [(delete, {"receiver_id": "U2"})],
    ]
    points = decision_points(plan, DECISIONS)
    assert [(p["kind"], p["turn"]) for p in points] == [
        ("comment_post", 0),
        ("delete_view", 1),
        ("stop_early", 1),
    ]
    assert wrong_functions(points) == {"post_tweet", "view_messages_sent"}
    # both swaps erred, stop_early right: the reply becomes a new tweet, the delete a look
    demo, _ = demonstrate(plan, DECISIONS, 0.5, FixedRng([0.1, 0.2, 0.9]), render_call)
    assert demo == [["post_tweet(content='so it')"], ["view_messages_sent()"]]


def test_one_decision_per_call_plants_no_stop_early_on_a_swap_call():
    comment, post = FAMILY_BY_NAME["tw_comment"], FAMILY_BY_NAME["tw_post"]
    swap_last = [[(post, {"content": "a b"})], [(comment, {"tweet_id": 3, "comment_content": "c"})]]
    plain_last = [[(comment, {"tweet_id": 3, "comment_content": "c"}), (post, {"content": "a b"})]]
    kinds = lambda plan, stop: [p["kind"] for p in decision_points(plan, DECISIONS, stop)]  # noqa: E731
    assert kinds(swap_last, True) == ["comment_post", "stop_early"]
    assert kinds(swap_last, False) == ["comment_post"]  # the last call's only decision: the swap
    assert kinds(plain_last, False) == kinds(plain_last, True) == ["comment_post", "stop_early"]
    # the suite: no call carries two points; only that changes against regime-wide-d10
    for task in generate_synth_tasks(300, "train", seed=3, config=WIDE1):
        at = [(d["turn"], d["call"]) for d in task.meta["decisions"]]
        assert len(at) == len(set(at))
    assert dataclasses.replace(WIDE, stop_on_swaps=False) == WIDE1
    a, b = (generate_synth_tasks(50, "test", seed=3, config=c) for c in (WIDE, WIDE1))
    for x, y in zip(a, b, strict=True):
        assert (x.turns, x.ground_truth, x.function_docs) == (
            y.turns,
            y.ground_truth,
            y.function_docs,
        )


def test_the_first_regime_suites_keep_their_three_kinds():
    # variants 2-13 ran on these suites: adding kinds must not change a task of theirs
    assert REGIME_DECISIONS == ("rename_copy", "resolve_close", "stop_early")
    assert REGIME.decisions == SYNTH_PRESETS["regime-d10"].decisions == REGIME_DECISIONS
    assert set(WIDE.decisions) == set(DECISIONS) and len(DECISIONS) == 5
    assert (
        dataclasses.replace(WIDE, decisions=REGIME_DECISIONS, family_weights=REGIME.family_weights)
        == SYNTH_PRESETS["regime-d10"]
    )


@SUITES
def test_mistake_rate_within_the_binomial_interval(suite):
    tasks = generate_synth_tasks(400, "train", seed=11, config=suite)
    points = [d for t in tasks for d in t.meta["decisions"]]
    assert {d["kind"] for d in points} == set(suite.decisions)
    for kind in suite.decisions:
        erred = [d["erred"] for d in points if d["kind"] == kind]
        lo, hi = binomial_interval(len(erred), suite.expert_error)
        assert len(erred) >= 50, kind  # renames and resolves drawn 5x: every kind recurs
        assert lo <= sum(erred) <= hi, (kind, sum(erred), len(erred), lo, hi)


@SUITES
def test_demonstration_is_the_ground_truth_at_rate_0_and_every_point_errs_at_1(suite):
    perfect = dataclasses.replace(suite, expert_error=0.0)
    for task in generate_synth_tasks(60, "train", seed=2, config=perfect):
        assert [tuple(t) for t in task.meta["demonstration"]] == list(task.ground_truth)
        assert not any(d["erred"] for d in task.meta["decisions"])
    always = dataclasses.replace(suite, expert_error=1.0)
    for task in generate_synth_tasks(60, "train", seed=2, config=always):
        assert all(d["erred"] for d in task.meta["decisions"])
        n_gt, n_demo = sum(map(len, task.ground_truth)), sum(map(len, task.meta["demonstration"]))
        stops = sum(d["kind"] == "stop_early" for d in task.meta["decisions"])
        assert stops == (n_gt >= 2) or not suite.stop_on_swaps
        assert n_demo == n_gt - stops  # stop_early drops exactly the last call


def test_the_demonstrator_changes_no_task_field_but_its_own():
    # the same suite at two mistake rates: same requests, text, state, offer; other demos
    a = generate_synth_tasks(40, "test", seed=4, config=REGIME)
    b = generate_synth_tasks(40, "test", seed=4, config=dataclasses.replace(REGIME, expert_error=0))
    strip = {"demonstration", "decisions"}
    for x, y in zip(a, b, strict=True):
        assert dataclasses.replace(x, meta={}) == dataclasses.replace(y, meta={})
        assert {k: v for k, v in x.meta.items() if k not in strip} == {
            k: v for k, v in y.meta.items() if k not in strip
        }


@SUITES
def test_the_wrong_option_is_offered_at_every_decision_point(suite):
    wrong = {
        "rename_copy": "cp",
        "resolve_close": "close_ticket",
        "comment_post": "post_tweet",
        "delete_view": "view_messages_sent",
    }
    for task in generate_synth_tasks(200, "train", seed=5, config=suite):
        offered = {d["name"] for d in task.function_docs}
        for d in task.meta["decisions"]:
            assert d["kind"] not in wrong or wrong[d["kind"]] in offered


@SUITES
def test_regime_suite_is_deterministic_in_its_seed(suite):
    a = generate_synth_tasks(30, "train", seed=7, config=suite)
    assert a == generate_synth_tasks(30, "train", seed=7, config=suite)
    b = generate_synth_tasks(30, "train", seed=8, config=suite)
    assert all(x.ground_truth != y.ground_truth for x, y in zip(a, b, strict=True))
    demos = [t.meta["demonstration"] for t in a]
    assert demos != [t.meta["demonstration"] for t in b]


def test_regime_suite_has_one_extension_and_presets_without_decisions_no_demo():
    files = [
        v
        for t in generate_synth_tasks(100, "train", seed=1, config=REGIME)
        for v in str(t.initial_config).split("'")
        if v.count(".") == 1 and v.split(".")[1].isalpha() and len(v.split(".")[1]) <= 4
    ]
    assert files and {f.split(".")[1] for f in files} == {"txt"}
    for task in generate_synth_tasks(20, "train", seed=1, config=SYNTH_PRESETS["cpu"]):
        assert "demonstration" not in task.meta and "decisions" not in task.meta


@pytest.mark.parametrize(
    ("knobs", "match"),
    [
        ({"decisions": ("skip",)}, "decisions must be a subset"),
        ({"expert_error": 1.5}, r"expert_error must be in \[0, 1\]"),
        ({"family_weights": (("fs_nope", 2.0),)}, "family_weights"),
        ({"family_weights": (("fs_rm", 0.0),)}, "family_weights"),
        ({"extensions": ()}, "extensions"),
    ],
)
def test_demonstrator_knobs_are_validated(knobs, match):
    with pytest.raises(ValueError, match=match):
        SynthConfig(**knobs)


@SUITES
def test_decision_outcomes_right_exactly_where_the_demonstrator_did_not_err(suite):
    from rcgrpo.env.synth_demo import decision_outcomes

    tasks = generate_synth_tasks(200, "test", seed=3, config=suite)
    seen = set()
    for task in tasks:
        gt = [c for turn in task.ground_truth for c in turn]
        demo = [c for turn in task.meta["demonstration"] for c in turn]
        points = task.meta["decisions"]
        assert [o["right"] for o in decision_outcomes(task, gt)] == [True] * len(points)
        got = decision_outcomes(task, demo)
        assert [o["kind"] for o in got] == [p["kind"] for p in points]
        # a stop_early that erred drops its call: a swap planted on that call is not made
        dropped = {
            (p["turn"], p["call"]) for p in points if p["kind"] == "stop_early" and p["erred"]
        }
        want = [not p["erred"] and (p["turn"], p["call"]) not in dropped for p in points]
        assert [o["right"] for o in got] == want
        seen |= {(p["kind"], p["erred"]) for p in points}
    assert seen == {(k, e) for k in suite.decisions for e in (True, False)}  # every branch


def test_decision_outcomes_by_hand():
    from types import SimpleNamespace

    from rcgrpo.env.synth_demo import decision_outcomes

    task = SimpleNamespace(
        ground_truth=(
            ("mv(source='a.txt', destination='b.txt')", "cp(source='c.txt', destination='d.txt')"),
            ("post_tweet(content='x')",),
        ),
        meta={
            "decisions": [
                {"kind": "rename_copy", "turn": 0, "call": 0},
                {"kind": "stop_early", "turn": 1, "call": 0},
            ]
        },
    )
    # gt counts: mv 1, cp 1, post_tweet 1
    right = [
        "mv(source='a.txt', destination='WRONG')",
        "cp(source='c.txt', destination='d.txt')",
        "post_tweet(content='y')",
    ]
    assert [o["right"] for o in decision_outcomes(task, right)] == [True, True]  # names only
    swapped = ["cp(source='a.txt', destination='b.txt')", "cp(source='c.txt', destination='d.txt')"]
    assert [o["right"] for o in decision_outcomes(task, swapped)] == [False, False]  # cp 2 > 1
    assert decision_outcomes(SimpleNamespace(ground_truth=(), meta={}), []) == []


# ---- per-kind error rates and the collapse suite ----------------------------------------

COLLAPSE = SYNTH_PRESETS["collapse-d10"]


def test_collapse_suite_keeps_the_wide_tasks_and_plants_only_swaps():
    # same generator draws as regime-wide1-d10 (the demonstrator has its own rng): same text,
    # ground truth and offered functions; only the swaps are decision points
    ours = generate_synth_tasks(300, split="train", seed=4, config=COLLAPSE)
    wide = generate_synth_tasks(300, split="train", seed=4, config=WIDE1)
    for a, b in zip(ours, wide, strict=True):
        assert (a.turns, a.ground_truth, a.function_docs) == (
            b.turns,
            b.ground_truth,
            b.function_docs,
        )
        assert all(p["kind"] != "stop_early" for p in a.meta.get("decisions", ()))


def test_collapse_suite_errs_at_its_rate():
    tasks = generate_synth_tasks(800, split="train", seed=1, config=COLLAPSE)
    erred = [p["erred"] for t in tasks for p in t.meta.get("decisions", ())]
    lo, hi = binomial_interval(len(erred), COLLAPSE.expert_error)
    assert COLLAPSE.expert_error == 0.97 and lo <= sum(erred) <= hi


def test_error_by_kind_replaces_the_rate_of_its_kind_only():
    cfg = dataclasses.replace(WIDE1, expert_error_by_kind=(("resolve_close", 1.0),))
    assert cfg.error_of("resolve_close") == 1.0 and cfg.error_of("rename_copy") == 0.6
    ours = generate_synth_tasks(400, split="train", seed=2, config=cfg)
    base = generate_synth_tasks(400, split="train", seed=2, config=WIDE1)
    for a, b in zip(ours, base, strict=True):
        for p, q in zip(a.meta.get("decisions", ()), b.meta.get("decisions", ()), strict=True):
            # one draw per point either way: the other kinds keep their outcome
            assert p["erred"] == (True if p["kind"] == "resolve_close" else q["erred"])


@pytest.mark.parametrize(
    "by_kind",
    [(("no_such_kind", 0.5),), (("resolve_close", 1.5),)],
    ids=["unknown kind", "probability > 1"],
)
def test_error_by_kind_rejects_bad_entries(by_kind):
    with pytest.raises(ValueError, match="expert_error_by_kind"):
        dataclasses.replace(WIDE1, expert_error_by_kind=by_kind)


def test_single_swap_plants_at_most_one_swap_per_task():
    one = SYNTH_PRESETS["collapse1-d10"]
    assert one.single_swap and one.expert_error == 0.98 and not COLLAPSE.single_swap
    tasks = generate_synth_tasks(600, split="train", seed=3, config=one)
    points = [len(t.meta.get("decisions", ())) for t in tasks]
    assert max(points) == 1 and sum(points) > 0.6 * len(tasks)
    # ... while the same suite without the option has tasks with two
    two = generate_synth_tasks(600, split="train", seed=3, config=COLLAPSE)
    assert max(len(t.meta.get("decisions", ())) for t in two) >= 2
