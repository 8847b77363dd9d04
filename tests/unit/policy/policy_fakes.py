"""A small stand-in for ``rcgrpo.env.Episode`` (same interface, trivial semantics).

Tools: every call ``f(...)`` in a reply ``[f(a=1), g(b=2)]`` is "executed" and answered
with one tool message ``"<name> ok #<n>"`` padded with ``pad`` filler words (to vary the
observation lengths); a reply that decodes to no calls ends the turn and, unless it was the
last, appends the next user message. Reward 1 iff the executed calls of every turn equal the
ground truth exactly.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FakeTask:
    id: str
    category: str
    turns: tuple
    ground_truth: tuple
    function_docs: tuple = ()


@dataclass
class FakeRecord:
    state: int
    action: int
    reward: float
    bfcl_valid: bool
    per_turn: list = field(default_factory=list)
    failure_reason: str | None = None


@dataclass
class FakeStep:
    messages: list[dict]
    done: bool
    info: dict


def parse_calls(text: str) -> list[str] | None:
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(node, ast.List) or not all(isinstance(e, ast.Call) for e in node.elts):
        return None
    return [ast.unparse(e) for e in node.elts] or None


class FakeEpisode:
    def __init__(self, pad: int = 0, max_steps_per_turn: int = 20):
        self.pad = pad
        self.max_steps_per_turn = max_steps_per_turn

    def reset(self, task: Any, mode: str = "multi_turn") -> list[dict]:
        self.task, self.mode = task, mode
        self.turn_index, self.num_steps, self.num_tool_errors = 0, 0, 0
        self.calls_per_turn: list[list[str]] = [[]]
        self.done = False
        self.available_functions = [dict(d) for d in task.function_docs]
        self._steps_in_turn = 0
        if mode == "combined":
            text = " ".join(f"Step {i + 1}: {t[0]['content']}" for i, t in enumerate(task.turns))
            return [{"role": "user", "content": text}]
        return [dict(m) for m in task.turns[0]]

    def step(self, text: str) -> FakeStep:
        calls = parse_calls(text)
        self.num_steps += 1
        if calls is None:
            if text.strip():
                self.num_tool_errors += 0
            last = self.mode == "combined" or self.turn_index + 1 >= len(self.task.turns)
            if last:
                self.done = True
                return FakeStep([], True, {})
            self.turn_index += 1
            self.calls_per_turn.append([])
            self._steps_in_turn = 0
            return FakeStep([dict(m) for m in self.task.turns[self.turn_index]], False, {})
        self._steps_in_turn += 1
        out = []
        for k, call in enumerate(calls):
            self.calls_per_turn[-1].append(call)
            filler = " ".join(["word"] * (self.pad * (k + 1)))
            out.append(
                {"role": "tool", "content": f"{call.split('(')[0]} ok #{self.num_steps} {filler}"}
            )
        if self._steps_in_turn > self.max_steps_per_turn:
            self.done = True
            return FakeStep(out, True, {"force_quit": True})
        return FakeStep(out, False, {})

    def score(self) -> FakeRecord:
        gt = [list(t) for t in self.task.ground_truth]
        if self.mode == "combined":
            gt = [[c for t in gt for c in t]]
        got = self.calls_per_turn + [[]] * (len(gt) - len(self.calls_per_turn))
        ok = [ast.unparse(ast.parse(c)) for t in gt for c in t] == [c for t in got for c in t]
        ok = ok and all(len(a) == len(b) for a, b in zip(gt, got, strict=False))
        return FakeRecord(int(ok), int(ok), float(ok), ok)


DOCS = (
    {
        "name": "mv",
        "description": "Move a file.",
        "parameters": {
            "type": "dict",
            "properties": {"source": {"type": "string"}, "destination": {"type": "string"}},
            "required": ["source", "destination"],
        },
    },
    {
        "name": "ls",
        "description": "List.",
        "parameters": {"type": "dict", "properties": {"a": {"type": "boolean"}}, "required": []},
    },
)


def fake_tasks(n: int = 4) -> list[FakeTask]:
    """Tasks with 1-3 turns and 0-2 calls per turn (turn 1 of task 2 needs no call)."""
    tasks = []
    for i in range(n):
        turns, gt = [], []
        for t in range(1 + i % 3):
            turns.append(
                ({"role": "user", "content": f"Task {i} turn {t}: move a{i}.txt to b{t}."},)
            )
            calls = [f"mv(source='a{i}.txt', destination='b{t}')"] * (0 if (i, t) == (2, 1) else 1)
            if t == 0 and i % 2:
                calls.append("ls(a=True)")
            gt.append(tuple(calls))
        tasks.append(
            FakeTask(f"fake_{i}", ("base", "long_context")[i % 2], tuple(turns), tuple(gt), DOCS)
        )
    return tasks
