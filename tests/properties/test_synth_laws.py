"""Laws of the synth suite generator, over random seeds, splits and difficulty knobs."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from rcgrpo.env.synth import class_function_docs, generate_synth_tasks


def _range(lo: int, hi: int):
    return st.tuples(st.integers(lo, hi), st.integers(lo, hi)).map(lambda t: tuple(sorted(t)))


KNOBS = st.fixed_dictionaries(
    {
        "turns": _range(1, 4),
        "calls_per_turn": _range(1, 3),
        "classes_per_task": _range(1, 3),
        "distractor_classes": st.integers(0, 2),
        "distractor_functions": st.integers(0, 4),
        "offer": st.sampled_from(["used", "all"]),
        "phrase_words": _range(1, 4),
    }
)
SPLIT = st.sampled_from(["train", "test"])
SEED = st.integers(0, 10**6)


def _leaves(value: object) -> list:
    if isinstance(value, list):
        return [x for item in value for x in _leaves(item)]
    if isinstance(value, dict):
        return [x for item in value.values() for x in _leaves(item)]  # keys are the API's
    return [value]


@settings(max_examples=40)
@given(seed=SEED, split=SPLIT, knobs=KNOBS)
def test_every_argument_value_is_copied_from_its_turn_text(seed, split, knobs):
    for task in generate_synth_tasks(3, split, seed=seed, **knobs):
        for turn, calls in zip(task.turns, task.ground_truth, strict=True):
            text = turn[0]["content"]
            for call in calls:
                for kw in ast.parse(call, mode="eval").body.keywords:
                    for leaf in _leaves(ast.literal_eval(kw.value)):
                        assert str(leaf) in text, (call, text)


@settings(max_examples=40)
@given(seed=SEED, split=SPLIT, knobs=KNOBS)
def test_counts_stay_inside_the_knob_ranges(seed, split, knobs):
    for task in generate_synth_tasks(3, split, seed=seed, **knobs):
        assert knobs["turns"][0] <= len(task.ground_truth) <= knobs["turns"][1]
        for calls in task.ground_truth:
            assert knobs["calls_per_turn"][0] <= len(calls) <= knobs["calls_per_turn"][1]
        gt_classes = len(task.involved_classes) - len(task.meta["distractor_classes"])
        assert knobs["classes_per_task"][0] <= gt_classes <= knobs["classes_per_task"][1]


@settings(max_examples=30)
@given(seed=SEED, split=SPLIT, knobs=KNOBS)
def test_offered_and_excluded_partition_the_involved_functions(seed, split, knobs):
    for task in generate_synth_tasks(3, split, seed=seed, **knobs):
        offered = [d["name"] for d in task.function_docs]
        every = {n for c in task.involved_classes for n in class_function_docs(c)}
        assert len(offered) == len(set(offered))
        assert set(offered) | set(task.excluded_functions) == every
        assert not set(offered) & set(task.excluded_functions)
        used = {ast.parse(c, mode="eval").body.func.id for t in task.ground_truth for c in t}
        assert used <= set(offered)


@settings(max_examples=20)
@given(seed=SEED, split=SPLIT, knobs=KNOBS)
def test_generation_is_a_pure_function_of_its_arguments(seed, split, knobs):
    first = generate_synth_tasks(3, split, seed=seed, **knobs)
    assert first == generate_synth_tasks(3, split, seed=seed, **knobs)
    assert first[:1] == generate_synth_tasks(1, split, seed=seed, **knobs)
