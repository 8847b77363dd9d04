"""Security: hostile assistant text never escapes the episode.

A generated corpus of >= 10,000 hostile replies (imports, dunders, ``open``, attribute
chains, huge strings, deep nesting, statements, unicode tricks, wrappers) plus a
hypothesis search over the same fragments. Laws, for every reply:

1. ``Episode.step`` returns (no exception escapes);
2. a hostile reply is answered with exactly one error observation and executes nothing;
3. hostile text inside a string literal is data: the call runs with the string unchanged;
4. nothing outside the episode changes: no file in cwd or the temp dir, no environment
   variable, and no call to ``os.system``/``os.popen``/``subprocess.Popen``/``open``/
   ``eval``/``exec`` is made while the replies are processed (``os.putenv`` is not wired:
   pytest itself sets ``PYTEST_CURRENT_TEST``; the environment snapshot covers it).
"""

from __future__ import annotations

import builtins
import itertools
import os
import random
import subprocess
import tempfile

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo.env import Episode, load_bfcl_tasks
from rcgrpo.env.decode import decode_reply
from rcgrpo.env.executor import ERROR_PREFIX
from rcgrpo.env.turns import allowed_names

pytestmark = pytest.mark.bfcl

PAYLOADS = [
    "__import__('os')",
    "__import__('os').system('touch pwned')",
    "__import__(name='subprocess').run(args=['touch', 'pwned'])",
    "importlib.import_module(name='os')",
    "open('pwned', 'w')",
    "open(file='pwned', mode='w').write('x')",
    "os.environ.__setitem__('PWNED', '1')",
    "os.putenv('PWNED', '1')",
    "exec('import os')",
    "eval(source='1+1')",
    "compile('1', 'f', 'eval')",
    "globals()",
    "vars()",
    "getattr(ls, '__globals__')",
    "ls.__globals__['os'].system('touch pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "(lambda: __import__('os'))()",
    "[c for c in ().__class__.__mro__]",
    "'a' * 10**9",
    "10**10**10",
    "f'{__import__(\"os\")}'",
    "{**globals()}",
    "breakpoint()",
    "type('X', (), {})()",
    "__builtins__.open('pwned', 'w')",
    "cd.__self__.root",
    "self._current_dir",
    "(x := 1)",
    "print(*[1])",
    "ｅｘｅｃ('1')",
]

TEMPLATES = [
    "{p}",
    "[{p}]",
    "[cd(folder={p})]",
    "[ls(a={p})]",
    "[echo(content='safe', file_name={p})]",
    "[mkdir(dir_name=[1, {p}])]",
    "[touch(file_name={{'k': {p}}})]",
    "[cd(folder='ok'), {p}]",
    "cd(folder='ok'), {p}",
    "[{p}, ls()]",
    "[cd(**{{'folder': {p}}})]",
]

WRAPPERS = [
    "{}",
    "```\n{}\n```",
    "```python\n{}\n```",
    "\n\n  {}  \n",
    "`{}`",
    "```tool_code\n{}```",
]

STATEMENTS = [
    "import os",
    "from os import system",
    "import os; os.system('touch pwned')",
    "x = __import__('os')",
    "del ls",
    "with open('pwned', 'w') as f: f.write('x')",
    "for i in range(9**9): pass",
    "while True: pass",
    "def f(): return __import__('os')",
    "class A: pass",
    "raise SystemExit(1)",
    "global ls",
    "exit()",
    "quit()",
    "ls = lambda **k: 1",
    "assert False",
]

STRUCTURAL = (
    ["[ls(a=" + "[" * n + "]" * n + ")]" for n in range(17, 600, 3)]  # nesting over the limit
    + ["[ls(a=" + "(" * n + "1" + ")" * n + ")]" for n in range(200, 600, 2)]  # parser limit
    + ["[" + "a." * n + "b()]" for n in range(1, 3000, 15)]
    + ["[ls(a=" + "-" * n + "1)]" for n in range(2, 3000, 15)]
    + ["[echo(content='" + "x" * n + "')]" for n in (32_768, 40_000, 100_000, 1_000_000)]
    + ["[" + ", ".join(["ls()"] * n) + "]" for n in (65, 100, 1000)]
    + ["[cd(folder=" + "9" * n + ")]" for n in (4301, 5000, 20_000)]
    + ["[cd('positional')]", "[cd(folder='a', folder='b')]", "[__class__()]", "[_private()]"]
    + ["[cd(folder='\x00')]", "[cd(folder='\ud800')]", "\ufeff[cd(folder=x)]", "[ls(]"]
    + ["[rm(file_name='" + "a" * 10 + "')]" + ")" * n for n in range(1, 50)]
)

LITERALS = [  # hostile words inside string literals: plain data
    "[echo(content={q})]",
    "[cd(folder={q})]",
    "[post_tweet(content={q}, tags=[{q}], mentions=[])]",
]


def hostile_corpus() -> list[str]:
    combos = [t.format(p=p) for p, t in itertools.product(PAYLOADS, TEMPLATES)]
    combos += STATEMENTS
    corpus = [w.format(c) for c, w in itertools.product(combos, WRAPPERS)]
    corpus += STRUCTURAL
    rng = random.Random(0)
    seen = set(corpus)
    while len(seen) < 10_000:  # distinct random mixes of 2-3 payloads fill up the corpus
        mix = ", ".join(rng.sample(PAYLOADS, rng.choice((2, 3))))
        text = rng.choice(WRAPPERS).format(rng.choice(TEMPLATES).format(p=mix))
        if text not in seen:
            seen.add(text)
            corpus.append(text)
    return corpus


def literal_corpus() -> list[str]:
    return [t.format(q=repr(p)) for p, t in itertools.product(PAYLOADS + STATEMENTS, LITERALS)]


@pytest.fixture(scope="module")
def task():
    return next(t for t in load_bfcl_tasks(["base"]) if t.id == "multi_turn_base_0")


@pytest.fixture
def tripwires(monkeypatch, tmp_path):
    """Record every call to a dangerous function while the replies are processed."""
    monkeypatch.chdir(tmp_path)
    hits: list[str] = []

    def trip(name):
        def wire(*args, **kwargs):
            hits.append(name)
            raise PermissionError(f"tripwire: {name}")

        return wire

    for module, name in [
        (os, "system"),
        (os, "popen"),
        (os, "remove"),
        (os, "unlink"),
        (subprocess, "Popen"),
        (builtins, "open"),
        (builtins, "eval"),
        (builtins, "exec"),
    ]:
        monkeypatch.setattr(module, name, trip(f"{module.__name__}.{name}"))
    return hits


def _snapshot(cwd):
    return (
        sorted(os.listdir(cwd)),
        sorted(f for f in os.listdir(tempfile.gettempdir()) if "pwned" in f.lower()),
        dict(os.environ),
    )


class Runner:
    """Feeds replies to one episode, resetting whenever it ends."""

    def __init__(self, task):
        self.task, self.episode = task, Episode(call_timeout_s=1.0)
        self.episode.reset(task)

    def step(self, text):
        if self.episode.done:
            self.episode.reset(self.task)
        return self.episode.step(text)


def test_corpus_is_large_and_distinct():
    corpus = hostile_corpus()
    assert len(set(corpus)) >= 10_000


def test_ten_thousand_hostile_replies_are_answered_with_errors(task, tripwires, tmp_path):
    before = _snapshot(tmp_path)
    runner = Runner(task)
    for text in hostile_corpus():
        result = runner.step(text)
        assert result.info["kind"] == "rejected", text[:200]
        assert result.info["num_calls"] == 0
        assert result.messages[0]["role"] == "tool"
        assert result.messages[0]["content"].startswith(ERROR_PREFIX), text[:200]
    assert tripwires == []
    assert _snapshot(tmp_path) == before


def test_hostile_words_in_string_literals_are_data(task, tripwires, tmp_path):
    before = _snapshot(tmp_path)
    runner = Runner(task)
    for text in literal_corpus():
        result = runner.step(text)
        assert result.info["kind"] == "calls" and result.info["num_calls"] >= 1, text
        assert runner.episode.calls_per_turn[runner.episode.turn_index][-1] == text[1:-1]
    echo = runner.step("[echo(content=\"__import__('os').system('touch pwned')\")]")
    assert echo.messages[0]["content"] == (
        "{\"terminal_output\": \"__import__('os').system('touch pwned')\"}"
    )
    assert tripwires == []
    assert _snapshot(tmp_path) == before


FRAGMENTS = PAYLOADS + STATEMENTS + ["ls()", "cd(folder='x')", "[", "]", "(", ")", ",", "=", "'"]


@settings(max_examples=300)
@given(parts=st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=20), min_size=1, max_size=8))
@example(parts=["[", "__import__('os')", "]"])
@example(parts=["ls()", ",", "open('pwned', 'w')"])
def test_any_mix_of_fragments_is_safe(task, parts):
    runner = Runner(task)
    environ = dict(os.environ)
    result = runner.step("".join(parts))  # law 1: returns
    kind, tool = result.info["kind"], [m for m in result.messages if m["role"] == "tool"]
    if kind == "rejected":  # law 2: one error, nothing ran
        assert result.info["num_calls"] == 0 and len(tool) == 1
        assert tool[0]["content"].startswith(ERROR_PREFIX)
    elif kind == "calls":  # only allowed bare names ran, one observation each
        executed = runner.episode.calls_per_turn[0]
        assert len(tool) == result.info["num_calls"] == len(executed)
        for source in executed:
            assert decode_reply(source, allowed_names(task, "multi_turn", 0)).kind == "calls"
    else:
        assert kind == "no_calls" and tool == [] and result.info["turn_ended"]
    assert dict(os.environ) == environ and not any("pwned" in f for f in os.listdir("."))
