"""Synth suite: procedurally generated multi-turn tasks on the real BFCL backends.

CPU-scale stand-in for BFCL v4 multi-turn: the same :class:`~rcgrpo.env.tasks.Task`
record as the BFCL loader (keyword-form ground-truth calls per turn, the real JSON docs of
the offered functions, ``initial_config`` for each backend's ``_load_scenario``), so the
environment, the reward R = R_state * R_action and the checker apply unchanged.

Generation of one task (deterministic in ``(split, seed, index)``):
1. pick ``classes_per_task`` backend classes (+ distractor classes) and random initial
   states; Twitter/Message/Ticket users are logged in by ``initial_config`` (no auth calls);
2. per user turn, draw 1-3 requests from the family table (:mod:`rcgrpo.env.synth_families`)
   and EXECUTE each ground-truth call on live backend instances: a call that errors, or a
   state-changing call that leaves the public state unchanged, is a bug and raises;
3. render each request with one of its paraphrased templates; the turn's text is the
   requests' sentences joined by spaces.

Train/test split: every fresh word and number belongs to exactly one split by a keyed hash
(``crc32(str(value)) % value_holdout == 0`` -> test), so test argument values never occur
in training; the last ``heldout_templates`` templates of every family are test-only and
every test task uses at least one of them (an unseen family x template combination).
Values are fresh per task (pronounceable pseudo-words + numbers from a space of >1e5 words),
so a model must copy them from the text rather than memorise them (a 1.9M-parameter model
reached ~25% exact match on unseen names from a pool of 500 names, ~65% with fresh names).

No ground-truth result depends on wall-clock time; ``send_message``'s message id comes from
MessageAPI's seeded generator (same call history -> same id). ``Task.category`` is
``synth/<class tags>`` (e.g. ``synth/file_system+math``); ``meta["families"]`` names the
family of every call. The knobs and named presets are :mod:`rcgrpo.env.synth_config`
(re-exported here), the imperfect demonstrator :mod:`rcgrpo.env.synth_demo`.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import json
import random
import zlib
from collections.abc import Callable
from importlib import resources
from typing import Any

from bfcl_eval.constants.executable_backend_config import (
    CLASS_FILE_PATH_MAPPING,
    MULTI_TURN_FUNC_DOC_FILE_MAPPING,
)

from rcgrpo.env.synth_config import (  # noqa: F401 (the suite's public names, re-exported)
    _EXTENSIONS,
    OFFER_MODES,
    SPLITS,
    SYNTH_PRESETS,
    SynthConfig,
    active_families,
)
from rcgrpo.env.synth_demo import decision_points, demonstrate, wrong_functions
from rcgrpo.env.synth_families import CLASS_TAGS, INITIAL_STATE, Family
from rcgrpo.env.tasks import Task

_ONSETS, _VOWELS = "bdfgklmnprstvz", "aeiou"
Request = tuple[Family, dict[str, Any]]


class Values:
    """Fresh argument values for one task, drawn from its split's share of a huge space.

    Words are 2-3 pronounceable syllables (70 syllables: 347,900 words); each word and each
    number belongs to the test split iff ``crc32(str(value)) % holdout == 0``. No value is
    drawn twice within a task, so every argument is unambiguous in the text.
    """

    extensions: tuple[str, ...] = _EXTENSIONS  # of file names: SynthConfig.extensions

    def __init__(self, rng: random.Random, split: str, holdout: int, phrase_words: tuple[int, int]):
        self.rng, self._test, self._holdout = rng, split == "test", holdout
        self._phrase_words = phrase_words
        self._used: set[Any] = set()

    def in_split(self, value: Any) -> bool:
        return (zlib.crc32(str(value).encode()) % self._holdout == 0) == self._test

    def _fresh(self, draw: Any) -> Any:
        for _ in range(10_000):
            value = draw()
            if value not in self._used and self.in_split(value):
                self._used.add(value)
                return value
        raise RuntimeError("value space exhausted")  # unreachable in practice

    def _syllable(self) -> str:
        return self.rng.choice(_ONSETS) + self.rng.choice(_VOWELS)

    def word(self) -> str:
        return self._fresh(lambda: "".join(self._syllable() for _ in range(self.rng.randint(2, 3))))

    def phrase(self) -> str:
        return " ".join(self.word() for _ in range(self.rng.randint(*self._phrase_words)))

    def file_name(self) -> str:
        digits = str(self.rng.randint(1, 99)) if self.rng.random() < 0.5 else ""
        return f"{self.word()}{digits}.{self.rng.choice(self.extensions)}"

    def dir_name(self) -> str:
        return self.word()

    def handle(self) -> str:
        return f"{self.word()}{self.rng.randint(10, 99)}"

    def person(self) -> str:
        return self.word().capitalize()

    def ident(self, lo: int = 10, hi: int = 99_999) -> int:
        return self._fresh(lambda: self.rng.randint(lo, hi))

    def number(self) -> int | float:
        """An int in [10, 9999] or a decimal with 1-2 non-zero-ending places (never x.0)."""
        places = self.rng.choice((0, 1, 2))
        scale = 10**places

        def draw() -> int | float:
            n = self.rng.randint(10 * scale, 9999 * scale)
            return n if places == 0 else (n + (n % 10 == 0)) / scale

        return self._fresh(draw)


@functools.cache
def class_function_docs(cls: str) -> dict[str, dict[str, Any]]:
    """The real BFCL JSON docs of a backend class: function name -> doc."""
    root = resources.files("bfcl_eval") / "data" / "multi_turn_func_doc"
    lines = (root / MULTI_TURN_FUNC_DOC_FILE_MAPPING[cls]).read_text().splitlines()
    return {d["name"]: d for d in (json.loads(line) for line in lines if line.strip())}


def fresh_backends(classes: tuple[str, ...], initial_config: dict[str, Any]) -> dict[str, Any]:
    """New real backend instances loaded from a deep copy of ``initial_config``."""
    out = {}
    for cls in classes:
        inst = getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[cls]), cls)()
        if hasattr(inst, "_load_scenario"):
            inst._load_scenario(copy.deepcopy(initial_config.get(cls, {})), long_context=False)
        out[cls] = inst
    return out


def public_state(inst: Any) -> dict[str, Any]:
    """Deep copy of an instance's public attributes (what BFCL's state checker compares)."""
    return copy.deepcopy({k: v for k, v in vars(inst).items() if not k.startswith("_")})


def render_call(func: str, kwargs: dict[str, Any]) -> str:
    """Keyword-form call string, e.g. ``mv(source='a.txt', destination='b')``."""
    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if not k.startswith("_"))
    return f"{func}({args})"


def is_error(result: Any) -> bool:
    """BFCL backends signal failure with an ``{"error": ...}`` dict (or a list holding one)."""
    items = result if isinstance(result, list) else [result]
    return any(isinstance(r, dict) and "error" in r for r in items)


def _execute(fam: Family, inst: Any, kwargs: dict[str, Any]) -> None:
    before = public_state(inst) if fam.changes_state else None
    call_args = copy.deepcopy({k: v for k, v in kwargs.items() if not k.startswith("_")})
    result = getattr(inst, fam.func)(**call_args)
    if is_error(result):
        raise RuntimeError(f"synth family {fam.name}: {render_call(fam.func, kwargs)} -> {result}")
    if fam.changes_state and public_state(inst) == before:
        raise RuntimeError(f"synth family {fam.name}: {render_call(fam.func, kwargs)} kept state")


def _plan_turn(
    rng: random.Random,
    v: Values,
    by_cls: dict[str, list[Family]],
    live: dict[str, Any],
    n_calls: int,
    weights: dict[str, float] | None = None,
    single: frozenset[str] | None = None,
    taken: set[str] | None = None,
) -> list[Request]:
    """Draw and execute up to ``n_calls`` distinct applicable requests (class, then family,
    uniformly or by ``weights``). With ``single`` (``SynthConfig.single_swap``: the swap
    families), a draw of one of them is refused once ``taken`` (the task's families so far,
    updated here) holds one."""
    requests: list[Request] = []
    seen: set[str] = set()
    for _ in range(20 * n_calls):
        if len(requests) == n_calls:
            break
        fams = by_cls[rng.choice(sorted(by_cls))]
        w = [weights.get(f.name, 1.0) for f in fams] if weights else None
        fam = rng.choices(fams, w)[0] if w else rng.choice(fams)
        if single and fam.name in single and single & taken:
            continue
        kwargs = fam.sample(v, live[fam.cls])
        if kwargs is None or render_call(fam.func, kwargs) in seen:
            continue
        _execute(fam, live[fam.cls], kwargs)
        seen.add(render_call(fam.func, kwargs))
        requests.append((fam, kwargs))
        if taken is not None:
            taken.add(fam.name)
    return requests


def _choose_templates(
    rng: random.Random, cfg: SynthConfig, split: str, plan: list[list[Request]]
) -> list[list[int]]:
    """Template index per request: train never uses held-out ones, test uses >= 1."""
    h = cfg.heldout_templates

    def draw(fam: Family, heldout: bool) -> int:
        n = len(fam.templates)
        return rng.randrange(n - h, n) if heldout else rng.randrange(n - h)

    test = split == "test" and h > 0
    idx = [[draw(f, test and rng.random() < cfg.test_heldout_prob) for f, _ in t] for t in plan]
    if test and not any(map(any, _heldout_flags(plan, idx, h))):
        t = rng.randrange(len(plan))
        j = rng.randrange(len(plan[t]))
        idx[t][j] = draw(plan[t][j][0], True)
    return idx


def _heldout_flags(plan: list[list[Request]], idx: list[list[int]], h: int) -> list[list[bool]]:
    """Per request: does its template index fall in the family's held-out tail?"""
    return [
        [h > 0 and i >= len(f.templates) - h for (f, _), i in zip(t, ii, strict=True)]
        for t, ii in zip(plan, idx, strict=True)
    ]


def _text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _quoted(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_quoted(x) for x in value)
    return f"'{value}'" if isinstance(value, str) else str(value)


def _render_turn(turn: list[Request], idx: list[int], quote: bool = False) -> str:
    """The turn's user text: each request's chosen template, joined by spaces; ``quote``:
    string values in quotes unless the template already quotes their slot."""
    sentences = []
    for (fam, kwargs), i in zip(turn, idx, strict=True):
        template = fam.templates[i]
        slots = {
            k: _quoted(x) if quote and f"'{{{k}}}'" not in template else _text(x)
            for k, x in kwargs.items()
        }
        sentences.append(template.format(**slots))
    return " ".join(sentences)


def _offered(rng: random.Random, cfg: SynthConfig, classes: tuple[str, ...], used: set[str]):
    pool = {name: doc for c in classes for name, doc in class_function_docs(c).items()}
    if cfg.offer == "all":
        offered = set(pool)
    else:
        extra = sorted(set(pool) - used)
        offered = used | set(rng.sample(extra, min(cfg.distractor_functions, len(extra))))
    docs = tuple(copy.deepcopy(pool[n]) for n in sorted(offered))
    return docs, tuple(sorted(set(pool) - offered))


def _make_task(cfg: SynthConfig, fams: list[Family], split: str, seed: int, index: int) -> Task:
    rng = random.Random(f"rcgrpo-synth/{split}/{seed}/{index}")
    v = Values(rng, split, cfg.value_holdout, cfg.phrase_words)
    v.extensions = cfg.extensions
    candidates = sorted({f.cls for f in fams})
    gt = rng.sample(candidates, min(rng.randint(*cfg.classes_per_task), len(candidates)))
    rest = sorted(set(cfg.classes) - set(gt))
    classes = tuple(gt + rng.sample(rest, min(cfg.distractor_classes, len(rest))))
    config = {c: INITIAL_STATE[c](v) for c in classes if INITIAL_STATE[c] is not None}
    live = fresh_backends(classes, config)
    by_cls = {c: [f for f in fams if f.cls == c] for c in gt}
    plan: list[list[Request]] = []
    single, taken = (cfg.swap_families(), set()) if cfg.single_swap else (None, None)
    for _ in range(rng.randint(*cfg.turns)):
        n = rng.randint(*cfg.calls_per_turn)
        turn = _plan_turn(rng, v, by_cls, live, n, dict(cfg.family_weights), single, taken)
        if not turn:
            break
        plan.append(turn)
    if not plan:
        raise RuntimeError(f"synth: no applicable request for families {[f.name for f in fams]}")
    tmpl = _choose_templates(rng, cfg, split, plan)
    texts = [_render_turn(t, ii, cfg.quote_values) for t, ii in zip(plan, tmpl, strict=True)]
    points = decision_points(plan, cfg.decisions, cfg.stop_on_swaps)
    used = {f.func for t in plan for f, _ in t} | wrong_functions(points)
    docs, excluded = _offered(rng, cfg, classes, used)
    meta = {}
    if cfg.decisions:
        demo_rng = random.Random(f"rcgrpo-synth-demo/{split}/{seed}/{index}")
        demo, points = demonstrate(
            plan, cfg.decisions, cfg.error_of, demo_rng, render_call, cfg.stop_on_swaps
        )
        meta = {"demonstration": demo, "decisions": points}
    return Task(
        id=f"synth_{split}_{seed}_{index}",
        category="synth/" + "+".join(sorted({CLASS_TAGS[f.cls] for t in plan for f, _ in t})),
        turns=tuple(({"role": "user", "content": text},) for text in texts),
        initial_config=config,
        involved_classes=classes,
        ground_truth=tuple(tuple(render_call(f.func, kw) for f, kw in t) for t in plan),
        function_docs=docs,
        excluded_functions=excluded,
        meta={
            "source": "synth",
            "split": split,
            "seed": seed,
            "index": index,
            "families": [[f.name for f, _ in t] for t in plan],
            "templates": tmpl,
            "heldout": _heldout_flags(plan, tmpl, cfg.heldout_templates),
            "distractor_classes": list(classes[len(gt) :]),
            **meta,
        },
    )


def generate_synth_tasks(
    n: int, split: str = "train", seed: int = 0, config: SynthConfig | None = None, **knobs: Any
) -> list[Task]:
    """``n`` synth tasks of ``split`` (``train``/``test``), deterministic in ``seed``.

    ``knobs`` override fields of ``config`` (default :class:`SynthConfig`), e.g.
    ``generate_synth_tasks(100, turns=(2, 2), offer="all")``. Task ``i`` depends only on
    ``(split, seed, i, config)``: a longer list extends a shorter one.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    cfg = dataclasses.replace(config or SynthConfig(), **knobs)
    fams = active_families(cfg)
    return [_make_task(cfg, fams, split, seed, i) for i in range(n)]


def value_space_sizes(value_holdout: int = 5) -> dict[str, int]:
    """Approximate size of each value space (all splits; the test share is 1/value_holdout)."""
    words = (len(_ONSETS) * len(_VOWELS)) ** 2 + (len(_ONSETS) * len(_VOWELS)) ** 3
    return {
        "word": words,
        "file_name": words * 100 * len(_EXTENSIONS),  # optional 1-99 suffix, extension
        "user_handle": words * 90,
        "phrase_2_words": words**2,
        "ident": 99_990,
        "number": 9_990 + 89_910 + 899_100,  # ints, x.y and x.yz (no trailing zero) >= 10
        "test_share_percent": round(100 / value_holdout),
    }


def suite_stats(
    tasks: list[Task], system_prompt: Callable[[list[dict[str, Any]]], str] | None = None
) -> dict[str, float]:
    """Mean sizes of ``tasks``; with ``system_prompt`` (e.g. the policy's compact style) also
    the rendered prompt length: system prompt + every user turn, in characters."""
    n = max(len(tasks), 1)
    user = sum(len(m["content"]) for t in tasks for turn in t.turns for m in turn)
    out = {
        "turns": sum(len(t.turns) for t in tasks) / n,
        "calls": sum(len(c) for t in tasks for c in t.ground_truth) / n,
        "functions_offered": sum(len(t.function_docs) for t in tasks) / n,
        "user_chars": user / n,
        "json_docs_chars": sum(len(json.dumps(list(t.function_docs))) for t in tasks) / n,
    }
    if system_prompt is not None:
        system = sum(len(system_prompt(list(t.function_docs))) for t in tasks)
        out["prompt_chars"] = (system + user) / n
    return out
