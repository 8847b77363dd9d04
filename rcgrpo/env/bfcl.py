"""The one bridge to the installed ``bfcl-eval`` package: data paths, backend classes, checkers.

Everything rcgrpo takes from BFCL goes through this module, so the pinned package version
is the single source of truth (no copied data, no copied prompts):

- the eight multi-turn backends (``func_source_code``), looked up by class name;
- the official checkers ``state_checker`` and ``response_checker`` (pure functions);
- the prompting-mode constants ``MAXIMUM_STEP_LIMIT`` (20) and the miss_func reveal prompt.

Nothing here imports ``bfcl_eval.constants.eval_config`` (it creates folders under
``BFCL_PROJECT_ROOT`` on import); the variable is still pointed at a writable cache folder
before the first BFCL import, so a later import by other code cannot write into
site-packages. The official executor (``multi_turn_utils.execute_multi_turn_func_call``)
is never called on model text: it ``eval``s its input and caches instances in module
globals. The checkers module imports it but never runs it for us.
"""

from __future__ import annotations

import functools
import importlib
import importlib.resources
import inspect
import os
from pathlib import Path
from typing import Any

os.environ.setdefault(
    "BFCL_PROJECT_ROOT",
    str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "rcgrpo" / "bfcl"),
)

from bfcl_eval.constants.default_prompts import (  # noqa: E402
    DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING,
    MAXIMUM_STEP_LIMIT,
)
from bfcl_eval.constants.executable_backend_config import (  # noqa: E402
    CLASS_FILE_PATH_MAPPING,
    MULTI_TURN_FUNC_DOC_FILE_MAPPING,
    STATELESS_CLASSES,
)
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import (  # noqa: E402
    response_checker,
    state_checker,
)

__all__ = [
    "BACKEND_CLASSES",
    "CATEGORIES",
    "MAXIMUM_STEP_LIMIT",
    "STATELESS_CLASSES",
    "backend_class",
    "data_dir",
    "func_doc_lines",
    "public_methods",
    "reveal_prompt",
    "response_checker",
    "signature",
    "state_checker",
]

CATEGORIES: tuple[str, ...] = ("base", "long_context", "miss_func", "miss_param")
"""The four BFCL v4 multi-turn categories (200 entries each)."""

BACKEND_CLASSES: tuple[str, ...] = (
    "GorillaFileSystem",
    "MathAPI",
    "MessageAPI",
    "TwitterAPI",
    "TicketAPI",
    "TradingBot",
    "TravelAPI",
    "VehicleControlAPI",
)
"""Backends of the multi-turn categories. The memory and web-search backends are excluded
(one downloads a sentence-embedding model, the other needs the network)."""


def data_dir() -> Path:
    """``bfcl_eval/data`` of the installed package."""
    return Path(str(importlib.resources.files("bfcl_eval") / "data"))


@functools.cache
def backend_class(name: str) -> type:
    """The backend class called ``name`` (one of ``BACKEND_CLASSES``)."""
    if name not in BACKEND_CLASSES:
        raise ValueError(f"class name must be one of {BACKEND_CLASSES}, got {name!r}")
    module = importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
    return getattr(module, name)


@functools.cache
def public_methods(name: str) -> frozenset[str]:
    """Names of the public methods of backend ``name`` (BFCL's executor exposes exactly these)."""
    cls = backend_class(name)
    return frozenset(n for n, _ in inspect.getmembers(cls, inspect.isfunction) if n[0] != "_")


@functools.cache
def signature(class_name: str, method: str) -> inspect.Signature:
    """Signature of ``class_name.method`` without ``self``."""
    if method not in public_methods(class_name):
        raise ValueError(f"{class_name} has no public method {method!r}")
    sig = inspect.signature(getattr(backend_class(class_name), method))
    return sig.replace(parameters=list(sig.parameters.values())[1:])


@functools.cache
def func_doc_lines(class_name: str) -> tuple[str, ...]:
    """The JSON-lines function docs of ``class_name`` as raw strings (parse per use)."""
    if class_name not in BACKEND_CLASSES:
        raise ValueError(f"class_name must be one of {BACKEND_CLASSES}, got {class_name!r}")
    path = data_dir() / "multi_turn_func_doc" / MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]
    return tuple(line for line in path.read_text().splitlines() if line.strip())


def reveal_prompt(docs: list[dict[str, Any]]) -> str:
    """BFCL's prompting-mode user message for a miss_func turn that reveals ``docs``."""
    return DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(functions=docs)
