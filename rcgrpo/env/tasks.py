"""The ``Task`` record: one multi-turn tool-calling scenario (BFCL v4 or the synth suite).

Both task sources (the BFCL loader and ``rcgrpo.env.synth``) produce exactly this record,
so the environment, the reward and the checker treat them the same way.
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rcgrpo.env.bfcl import CATEGORIES, data_dir, func_doc_lines, public_methods, signature


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


# ----------------------------------------------------------------------------------------
# BFCL v4 multi-turn loader and the paper's id-level split
# ----------------------------------------------------------------------------------------


def load_bfcl_tasks(categories: Iterable[str] | None = None) -> list[Task]:
    """The BFCL v4 multi-turn tasks of ``categories`` (default: all four, 800 tasks).

    Read from the installed ``bfcl-eval`` package (``data/BFCL_v4_multi_turn_*.json``,
    ``data/possible_answer/``, ``data/multi_turn_func_doc/``). Per task:

    - ``ground_truth``: BFCL's calls per turn; the 160 calls written with positional
      arguments are rewritten to keyword form with the backend method's signature
      (``cd('x')`` -> ``cd(folder='x')``); every other call string is kept byte for byte.
    - ``function_docs``: the docs of all involved classes in BFCL's order, minus
      ``excluded_function`` (note: bfcl-eval 2026.3.23 itself ignores that field; no
      ground-truth call uses an excluded function). Held-out miss_func docs are included;
      ``missed_functions`` maps turn index -> names revealed at that turn.
    - ``meta``: ``scenario_id`` (the numeric id shared by the four variants) and ``path``.

    Tasks come in category order, then BFCL's file order; each call returns new objects.
    """
    chosen = tuple(CATEGORIES) if categories is None else tuple(categories)
    for category in chosen:
        if category not in CATEGORIES:
            raise ValueError(f"categories must be drawn from {CATEGORIES}, got {category!r}")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"categories must not repeat, got {chosen}")
    tasks = []
    for category in chosen:
        entries = _read_jsonl(data_dir() / f"BFCL_v4_multi_turn_{category}.json")
        answers = _read_jsonl(
            data_dir() / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json"
        )
        truth = {a["id"]: a["ground_truth"] for a in answers}
        tasks.extend(_task(entry, truth[entry["id"]], category) for entry in entries)
    return tasks


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _task(entry: dict[str, Any], truth: list[list[str]], category: str) -> Task:
    classes = tuple(entry["involved_classes"])
    excluded = tuple(entry.get("excluded_function", ()))
    docs = [json.loads(line) for name in classes for line in func_doc_lines(name)]
    docs = [doc for doc in docs if doc["name"] not in excluded]
    if len(truth) != len(entry["question"]):
        raise ValueError(
            f"{entry['id']}: {len(truth)} ground-truth turns for {len(entry['question'])} turns"
        )
    return Task(
        id=entry["id"],
        category=category,
        turns=tuple(tuple(dict(m) for m in turn) for turn in entry["question"]),
        initial_config=entry["initial_config"],
        involved_classes=classes,
        ground_truth=tuple(tuple(keyword_form(c, classes) for c in turn) for turn in truth),
        function_docs=tuple(docs),
        missed_functions={int(t): tuple(n) for t, n in entry.get("missed_function", {}).items()},
        excluded_functions=excluded,
        long_context=category == "long_context",
        meta={"scenario_id": scenario_id(entry["id"]), "path": entry.get("path")},
    )


def keyword_form(call: str, classes: Iterable[str]) -> str:
    """``call`` with positional arguments bound to parameter names; unchanged if it has none.

    The method is looked up among the public methods of ``classes`` (BFCL's last-wins rule);
    argument source text is kept verbatim: ``mv('a', destination="b")`` ->
    ``mv(source='a', destination="b")``.
    """
    node = ast.parse(call.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"call must be a single call to a bare name, got {call!r}")
    if not node.args:
        return call
    owner = [c for c in classes if node.func.id in public_methods(c)]
    if not owner:
        raise ValueError(f"no class among {tuple(classes)} has a method {node.func.id!r}")
    params = list(signature(owner[-1], node.func.id).parameters)
    if len(node.args) > len(params):
        raise ValueError(f"{call!r}: more positional arguments than parameters {params}")
    source = call.strip()
    parts = [
        f"{p}={ast.get_source_segment(source, a)}" for p, a in zip(params, node.args, strict=False)
    ]
    parts += [f"{k.arg}={ast.get_source_segment(source, k.value)}" for k in node.keywords]
    return f"{node.func.id}({', '.join(parts)})"


def scenario_id(task_id: str) -> int:
    """The numeric scenario id at the end of a BFCL id (``multi_turn_base_17`` -> 17)."""
    tail = task_id.rsplit("_", 1)[-1]
    if not tail.isdigit():
        raise ValueError(f"task_id must end in _<number>, got {task_id!r}")
    return int(tail)


def split_tasks(
    tasks: Iterable[Task], test_fraction: float = 0.1, seed: int = 0
) -> tuple[list[Task], list[Task]]:
    """The paper's id-level split: ``(train, test)``, each in input order.

    Scenario ids (``meta["scenario_id"]``, else the id's numeric suffix) are shuffled with
    ``random.Random(seed)``; the first ``round(test_fraction * n_ids)`` go to test, so the
    four variants of one scenario always land on the same side. On the 800 BFCL tasks with
    the defaults: 720 / 80, 20 test tasks per category (the paper reports 18/23/17/22, which
    no split that keeps a scenario's four variants together can produce).
    """
    tasks = list(tasks)
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    ids = [t.meta.get("scenario_id", None) for t in tasks]
    ids = [scenario_id(t.id) if i is None else int(i) for i, t in zip(ids, tasks, strict=True)]
    unique = sorted(set(ids))
    random.Random(seed).shuffle(unique)
    test_ids = set(unique[: round(test_fraction * len(unique))])
    train = [t for t, i in zip(tasks, ids, strict=True) if i not in test_ids]
    test = [t for t, i in zip(tasks, ids, strict=True) if i in test_ids]
    return train, test


def category_counts(tasks: Iterable[Task]) -> dict[str, int]:
    """Number of tasks per category, in first-seen order."""
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.category] = counts.get(task.category, 0) + 1
    return counts
