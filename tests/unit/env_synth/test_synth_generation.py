"""Synth suite: task form, hand-worked helpers and samplers, determinism, knob effects."""

from __future__ import annotations

import ast
import json
import random
import re
import zlib

import pytest
from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

from rcgrpo.env.synth import (
    SYNTH_PRESETS,
    SynthConfig,
    Values,
    class_function_docs,
    fresh_backends,
    generate_synth_tasks,
    is_error,
    render_call,
    suite_stats,
)
from rcgrpo.env.synth_families import CALLS, FAMILIES, FAMILY_BY_NAME, FS
from rcgrpo.env.synth_texts import DOCS, TEMPLATES
from rcgrpo.env.tasks import Task

WORD = re.compile(r"^(?:[bdfgklmnprstvz][aeiou]){2,3}$")


def _calls(task: Task) -> list[tuple[str, dict]]:
    out = []
    for turn in task.ground_truth:
        for s in turn:
            node = ast.parse(s, mode="eval").body
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args
            out.append((node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords}))
    return out


def test_render_call_and_helpers_hand_worked():
    # "_"-prefixed keys are text-only slots and never reach the call string.
    assert render_call("mv", {"source": "a.txt", "destination": "b", "_x": 3}) == (
        "mv(source='a.txt', destination='b')"
    )
    assert render_call("mean", {"numbers": [12, 4.5]}) == "mean(numbers=[12, 4.5])"
    assert render_call("edit_ticket", {"ticket_id": 7, "updates": {"priority": 2}}) == (
        "edit_ticket(ticket_id=7, updates={'priority': 2})"
    )
    assert is_error({"error": "x"}) and is_error([{"error": "x"}])
    assert not is_error(None) and not is_error({"result": 1}) and not is_error([])


def test_values_grammar_uniqueness_and_split():
    v = Values(random.Random(0), "train", 5, (2, 3))
    words = [v.word() for _ in range(500)]
    assert all(WORD.match(w) for w in words)
    assert len(set(words)) == 500  # never twice within a task
    # every train word hashes outside the test residue (crc32 % 5 != 0), test words inside
    assert all(zlib.crc32(w.encode()) % 5 != 0 for w in words)
    t = Values(random.Random(0), "test", 5, (2, 3))
    assert all(zlib.crc32(t.word().encode()) % 5 == 0 for _ in range(200))
    nums = [v.number() for _ in range(500)]
    assert all(abs(x) >= 10 for x in nums)
    assert all(isinstance(x, int) or x != int(x) for x in nums)  # no 12.0 aliasing 12
    phrase = Values(random.Random(1), "train", 5, (2, 2)).phrase().split()
    assert len(phrase) == 2


def _fs(contents: dict) -> object:
    cfg = {FS: {"root": {"home": {"type": "directory", "contents": contents}}}}
    return fresh_backends((FS,), cfg)[FS]


def test_fs_move_sampler_hand_built_state():
    v = Values(random.Random(0), "train", 5, (2, 3))
    move = FAMILY_BY_NAME["fs_move"].sample
    # the only folder already holds a file of the same name -> not applicable
    full = {
        "a.txt": {"type": "file", "content": "x"},
        "d": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "y"}}},
    }
    assert move(v, _fs(full)) is None
    ok = {"a.txt": {"type": "file", "content": "x"}, "e": {"type": "directory", "contents": {}}}
    assert move(v, _fs(ok)) == {"source": "a.txt", "destination": "e"}
    assert FAMILY_BY_NAME["fs_rm"].sample(v, _fs({})) is None


def test_grep_pattern_is_a_word_of_the_file():
    v = Values(random.Random(3), "train", 5, (2, 3))
    args = FAMILY_BY_NAME["fs_grep"].sample(v, _fs({"n.md": {"type": "file", "content": "ka lo"}}))
    assert args["file_name"] == "n.md" and args["pattern"] in ("ka", "lo")


def test_family_table_is_consistent_with_bfcl():
    assert len({f.name for f in FAMILIES}) == len(FAMILIES)
    assert len({f.cls for f in FAMILIES}) >= 4
    for f in FAMILIES:
        assert f.cls in CLASS_FILE_PATH_MAPPING
        assert f.func in class_function_docs(f.cls), f.name
        assert len(f.templates) >= 4 and len(set(f.templates)) == len(f.templates)
        # a template never starts with a value slot (values keep their case)
        assert all(t[0].isupper() for t in f.templates), f.name


def test_every_family_has_its_words_and_every_text_its_family():
    # FAMILIES joins CALLS with synth_texts by name: a family without templates would fail at
    # import, but a text whose family was renamed or removed would be silently dropped
    names = [f.name for f in FAMILIES]
    assert names == [row[0] for row in CALLS]
    assert list(TEMPLATES) == names and list(DOCS) == names


def test_task_form_matches_the_bfcl_loader():
    for task in generate_synth_tasks(40, "train", seed=1) + generate_synth_tasks(40, "test"):
        assert isinstance(task, Task) and task.category.startswith("synth/")
        assert len(task.turns) == len(task.ground_truth) >= 1
        for turn in task.turns:
            assert len(turn) == 1 and turn[0]["role"] == "user" and turn[0]["content"]
        offered = {d["name"] for d in task.function_docs}
        assert {name for name, _ in _calls(task)} <= offered
        assert not offered & set(task.excluded_functions)
        assert set(task.involved_classes) <= set(CLASS_FILE_PATH_MAPPING)
        assert json.loads(json.dumps(task.initial_config)) == task.initial_config
        for doc in task.function_docs:
            assert {"name", "description", "parameters"} <= set(doc)


def test_determinism_and_prefix_stability():
    a = generate_synth_tasks(30, "train", seed=7)
    assert a == generate_synth_tasks(30, "train", seed=7)
    assert a[:10] == generate_synth_tasks(10, "train", seed=7)
    other = generate_synth_tasks(30, "train", seed=8)
    assert sum(x.ground_truth == y.ground_truth for x, y in zip(a, other, strict=True)) == 0


@pytest.mark.parametrize(("turns", "calls"), [(1, 1), (2, 3), (4, 2)])
def test_turn_and_call_counts_follow_knobs(turns, calls):
    tasks = generate_synth_tasks(
        40, "train", seed=2, turns=(turns, turns), calls_per_turn=(calls, calls)
    )
    assert all(len(t.ground_truth) == turns for t in tasks)
    assert all(len(turn) == calls for t in tasks for turn in t.ground_truth)


def test_class_and_distractor_knobs():
    tasks = generate_synth_tasks(40, "train", seed=3, classes_per_task=(2, 2), distractor_classes=1)
    for t in tasks:
        assert len(t.involved_classes) == 3
        extra = t.meta["distractor_classes"]
        assert len(extra) == 1 and extra[0] == t.involved_classes[-1]
        # no ground-truth call touches the distractor class
        assert not {n for n, _ in _calls(t)} & set(class_function_docs(extra[0]))


def test_offer_knob():
    for t in generate_synth_tasks(30, "train", seed=4, distractor_functions=0):
        assert {d["name"] for d in t.function_docs} == {n for n, _ in _calls(t)}
    for t in generate_synth_tasks(30, "train", seed=4, distractor_functions=3):
        assert len(t.function_docs) == len({n for n, _ in _calls(t)}) + 3
    for t in generate_synth_tasks(30, "train", seed=4, offer="all"):
        every = {n for c in t.involved_classes for n in class_function_docs(c)}
        assert {d["name"] for d in t.function_docs} == every and t.excluded_functions == ()


def test_quote_values_knob():
    """Same tasks (same draws), only the text differs: every string argument appears exactly
    once quoted, numbers stay bare, slots a template quotes already are not quoted twice."""
    plain = generate_synth_tasks(60, "train", seed=6)
    quoted = generate_synth_tasks(60, "train", seed=6, quote_values=True)
    for p, q in zip(plain, quoted, strict=True):
        assert p.ground_truth == q.ground_truth and p.initial_config == q.initial_config
        text = " ".join(m["content"] for turn in q.turns for m in turn)
        assert "''" not in text
        for name, kwargs in _calls(q):
            for key, value in kwargs.items():
                for x in value if isinstance(value, list) else [value]:
                    if isinstance(x, str):
                        assert f"'{x}'" in text, (q.id, name, key)
                    elif isinstance(x, int | float) and not isinstance(x, bool):
                        assert f"'{x}'" not in text and str(x) in text, (q.id, name, key)
    assert any("'" not in m["content"] for t in plain for turn in t.turns for m in turn)


def test_presets_are_valid_and_tiny_is_small():
    tiny = generate_synth_tasks(50, "train", config=SYNTH_PRESETS["tiny"])
    assert max(len(t.turns) for t in tiny) <= 2
    assert max(len(turn) for t in tiny for turn in t.ground_truth) <= 2


@pytest.mark.parametrize(
    "knobs",
    [
        {"turns": (0, 2)},
        {"calls_per_turn": (3, 1)},
        {"classes": ("TravelAPI",)},
        {"families": ("nope",)},
        {"offer": "some"},
        {"heldout_templates": 4},
        {"test_heldout_prob": 1.5},
        {"value_holdout": 1},
        {"distractor_functions": -1},
        {"classes": ("MathAPI",), "families": ("fs_rm",)},
    ],
)
def test_config_validation(knobs):
    with pytest.raises(ValueError):
        SynthConfig(**knobs)


def test_generate_argument_validation():
    with pytest.raises(ValueError, match="split"):
        generate_synth_tasks(1, split="dev")
    with pytest.raises(ValueError, match="n must"):
        generate_synth_tasks(-1)


def test_suite_stats_hand_worked():
    doc = {"name": "f", "description": "", "parameters": {"properties": {}, "required": []}}
    task = Task(
        id="t",
        category="synth/x",
        initial_config={},
        involved_classes=("MathAPI",),
        turns=(({"role": "user", "content": "ab"},), ({"role": "user", "content": "cde"},)),
        ground_truth=(("f()",), ("f()", "f()")),
        function_docs=(doc,),
    )
    stats = suite_stats([task, task], system_prompt=lambda docs: "xy")
    # per task: 2 turns, 3 calls, 1 function, 2 + 3 = 5 user chars, 2 + 5 = 7 prompt chars
    assert stats["turns"] == 2 and stats["calls"] == 3 and stats["functions_offered"] == 1
    assert stats["user_chars"] == 5 and stats["prompt_chars"] == 7
    assert stats["json_docs_chars"] == len(json.dumps([doc]))
