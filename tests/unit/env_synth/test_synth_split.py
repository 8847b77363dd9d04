"""Synth train/test split: disjoint argument values, held-out template combinations."""

from __future__ import annotations

import ast
import re

from rcgrpo.env.synth import generate_synth_tasks
from rcgrpo.env.synth_families import FAMILY_BY_NAME
from rcgrpo.env.tasks import Task

PSEUDO_WORD = re.compile(r"(?:[bdfgklmnprstvz][aeiou]){2,3}")


def _leaves(value: object) -> list:
    if isinstance(value, list):
        return [x for item in value for x in _leaves(item)]
    if isinstance(value, dict):
        return [x for item in value.values() for x in _leaves(item)]
    return [value]


def open_values(tasks: list[Task]) -> tuple[set, set]:
    """(pseudo-words inside string arguments, numbers >= 10) of all ground-truth calls.

    Small enumerations (priority 1-5) are excluded: they cannot be split."""
    words, numbers = set(), set()
    for task in tasks:
        for call in (c for turn in task.ground_truth for c in turn):
            for kw in ast.parse(call, mode="eval").body.keywords:
                for leaf in _leaves(ast.literal_eval(kw.value)):
                    if isinstance(leaf, str):
                        words.update(PSEUDO_WORD.findall(leaf.lower()))
                    elif abs(leaf) >= 10:
                        numbers.add(leaf)
    return words, numbers


def test_train_and_test_argument_values_are_disjoint():
    train = generate_synth_tasks(400, "train", seed=0)
    test = generate_synth_tasks(400, "test", seed=0)
    (tw, tn), (sw, sn) = open_values(train), open_values(test)
    assert len(tw) > 1500 and len(sw) > 1500 and len(tn) > 500 and len(sn) > 500
    assert not tw & sw
    assert not tn & sn


def test_values_rarely_repeat_across_tasks():
    # a value may recur inside one task (echo x.txt, then cat x.txt), rarely in another task
    tasks = generate_synth_tasks(400, "train", seed=1)
    seen: dict[str, int] = {}
    for t in tasks:
        values = {
            v
            for turn in t.ground_truth
            for c in turn
            for kw in ast.parse(c, mode="eval").body.keywords
            if isinstance(v := ast.literal_eval(kw.value), str)
        }
        for v in values:
            seen[v] = seen.get(v, 0) + 1
    assert len(seen) > 1000
    assert sum(n > 1 for n in seen.values()) / len(seen) < 0.02


def _flags(task: Task) -> list[bool]:
    out = []
    for fams, idx in zip(task.meta["families"], task.meta["templates"], strict=True):
        for name, i in zip(fams, idx, strict=True):
            out.append(i == len(FAMILY_BY_NAME[name].templates) - 1)  # default: last held out
    return out


def test_heldout_templates_only_in_test_and_in_every_test_task():
    train = generate_synth_tasks(300, "train", seed=5)
    test = generate_synth_tasks(300, "test", seed=5)
    assert not any(any(_flags(t)) for t in train)
    assert all(any(_flags(t)) for t in test)
    assert all(sum(map(sum, t.meta["heldout"])) == sum(_flags(t)) for t in test)
    # test also reuses training templates (about half the requests, test_heldout_prob=0.5)
    share = sum(sum(_flags(t)) for t in test) / sum(len(_flags(t)) for t in test)
    assert 0.4 < share < 0.75


def test_no_heldout_templates_knob():
    test = generate_synth_tasks(100, "test", seed=5, heldout_templates=0)
    assert not any(any(map(any, t.meta["heldout"])) for t in test)


def test_splits_do_not_share_task_ids():
    train = {t.id for t in generate_synth_tasks(50, "train", seed=0)}
    test = {t.id for t in generate_synth_tasks(50, "test", seed=0)}
    assert len(train) == len(test) == 50 and not train & test


def test_cpu_preset_split_unseen_values_seen_templates():
    """The CPU campaign's suite: no MathAPI, every template in both splits
    (``heldout_templates=0``), argument values still disjoint."""
    from rcgrpo.env.synth import SYNTH_PRESETS

    cfg = SYNTH_PRESETS["cpu"]
    train = generate_synth_tasks(300, "train", seed=3, config=cfg)
    test = generate_synth_tasks(300, "test", seed=3, config=cfg)
    for task in train + test:
        assert "MathAPI" not in task.involved_classes
        assert 1 <= len(task.ground_truth) <= 2 and all(1 <= len(t) <= 2 for t in task.ground_truth)
        assert not any(map(any, task.meta["heldout"]))
    (w_train, n_train), (w_test, n_test) = open_values(train), open_values(test)
    assert w_test and not (w_train & w_test) and not (n_train & n_test)

    # every (family, template) a test task uses also occurs in training
    def pairs(tasks):
        return {
            (f, i)
            for t in tasks
            for fs, ts in zip(t.meta["families"], t.meta["templates"], strict=True)
            for f, i in zip(fs, ts, strict=True)
        }

    more_train = generate_synth_tasks(3000, "train", seed=4, config=cfg)
    assert pairs(test) <= pairs(train + more_train)
