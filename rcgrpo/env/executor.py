"""The safe executor: fresh backend instances per episode and one guarded path per call.

Replaces BFCL's ``multi_turn_utils.execute_multi_turn_func_call``, which ``eval``s the
model's text and caches instances in module globals. Here:

- **Fresh, independent instances.** :class:`InstanceFactory` loads each backend once per
  task exactly as BFCL does (``cls()`` then ``_load_scenario(copy.deepcopy(config),
  long_context=...)``; ``MathAPI`` is stateless and not loaded), deep-copies the loaded
  instances (long-context ``TravelAPI`` otherwise shares credit-card dicts with the
  module-level ``CREDIT_CARD_EXTENSION``) and keeps the result as a pickle. Every episode
  gets its own ``pickle.loads`` of it (~0.07 ms per task) — nothing is shared.
- **Calls** come from :func:`rcgrpo.env.decode.decode_reply` (bare allowed names, literal
  keyword arguments); :meth:`Sandbox.run` applies the cost guard and the time limit of
  :mod:`rcgrpo.env.limits` and BFCL's result normalisation: a ``str`` as is, a ``dict``
  as ``json.dumps`` (``str`` if that fails), anything else ``str``; an exception becomes
  ``"Error during execution: <message>"``.

Mutable default arguments (``post_tweet(tags=[], mentions=[])``) are passed as fresh
copies on every call, so no episode can change a default that a later episode sees.

Known backend quirk left as is (it matches BFCL): long-context
``VehicleControlAPI.get_outside_temperature_from_google`` writes a random temperature
into a module-level dict before returning it; every call overwrites it first, so no value
leaks between episodes.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import pickle
from typing import Any

from rcgrpo.env.bfcl import STATELESS_CLASSES, backend_class
from rcgrpo.env.decode import Call
from rcgrpo.env.limits import CallTimeout, CallTimer, cost_guard, restore_precision, save_precision

__all__ = ["ERROR_PREFIX", "InstanceFactory", "Sandbox", "is_error_result", "normalise_result"]

ERROR_PREFIX = "Error during execution: "
"""Prefix of every executor error observation (BFCL's wording)."""


def normalise_result(result: Any) -> str:
    """BFCL's conversion of a backend return value into the observation string."""
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except Exception:
            return str(result)
    return str(result)


def is_error_result(text: str) -> bool:
    """True for executor errors and backend error replies (``{"error": ...}``, ``['Error...']``)."""
    return text.startswith((ERROR_PREFIX, '{"error": ', "['Error"))


class InstanceFactory:
    """Builds fresh, fully independent backend instances for one task configuration."""

    def __init__(self, involved_classes: tuple[str, ...], initial_config: dict, long_context: bool):
        instances = {}
        for name in involved_classes:
            instance = backend_class(name)()
            if name not in STATELESS_CLASSES:
                config = copy.deepcopy(initial_config.get(name, {}))
                instance._load_scenario(config, long_context=long_context)
            instances[name] = instance
        self._blob = pickle.dumps(copy.deepcopy(instances), protocol=pickle.HIGHEST_PROTOCOL)

    def fresh(self) -> dict[str, Any]:
        """A new ``{class_name: instance}`` dict sharing nothing with any other."""
        return pickle.loads(self._blob)


@functools.cache
def _methods_of(cls: type) -> frozenset[str]:
    return frozenset(n for n, _ in inspect.getmembers(cls, inspect.isfunction) if n[0] != "_")


@functools.cache
def _mutable_defaults(cls: type, name: str) -> tuple[tuple[str, Any], ...]:
    """Parameters of ``cls.name`` whose default is a list, dict or set (shared across calls)."""
    params = inspect.signature(getattr(cls, name)).parameters.values()
    return tuple((p.name, p.default) for p in params if isinstance(p.default, (list, dict, set)))


def _fresh_mutable_defaults(cls: type, name: str) -> dict[str, Any]:
    """Copies of the mutable defaults, passed explicitly so no call can mutate the shared one.

    E.g. ``TwitterAPI.post_tweet(content, tags=[], mentions=[])`` stores its default list in
    the new tweet; a later ``mention`` on that tweet would otherwise change the default for
    the whole process (and every later episode's ground-truth replay).
    """
    return {k: copy.deepcopy(v) for k, v in _mutable_defaults(cls, name)}


class Sandbox:
    """The instances of one episode and the only way to call them."""

    def __init__(self, instances: dict[str, Any], call_timeout_s: float | None = 2.0):
        self.instances = instances
        self.call_timeout_s = call_timeout_s
        self._owner: dict[str, str] = {}
        for class_name, instance in instances.items():  # later classes win, as in BFCL
            for method in _methods_of(type(instance)):
                self._owner[method] = class_name

    @property
    def method_names(self) -> frozenset[str]:
        """Every public method of the instances (the widest possible allow-list)."""
        return frozenset(self._owner)

    def owner_instance(self, method: str) -> Any:
        """The instance whose public method ``method`` is, or None."""
        class_name = self._owner.get(method)
        return None if class_name is None else self.instances[class_name]

    def run(self, call: Call) -> str:
        """Execute ``call``; always returns the observation string, never raises."""
        return self.run_many([call])[0]

    def run_many(self, calls: list[Call]) -> list[str]:
        """Execute ``calls`` in order (one timer set-up for the batch), one string each."""
        if not calls:
            return []
        with CallTimer(self.call_timeout_s) as timer:
            return [self._run(call, timer) for call in calls]

    def _run(self, call: Call, timer: CallTimer) -> str:
        class_name = self._owner.get(call.name)
        if class_name is None:
            return f"{ERROR_PREFIX}function {call.name!r} is not available"
        refused = cost_guard(class_name, call.name, call.kwargs)
        if refused is not None:
            return f"{ERROR_PREFIX}{call.name}: {refused}"
        method = getattr(self.instances[class_name], call.name)
        saved = save_precision() if class_name == "MathAPI" else None
        try:
            timer.start()
            try:
                kwargs = {
                    **_fresh_mutable_defaults(type(method.__self__), call.name),
                    **call.kwargs,
                }
                return normalise_result(method(**kwargs))
            finally:
                timer.stop()
        except CallTimeout:
            return f"{ERROR_PREFIX}{call.name} exceeded the {self.call_timeout_s} s time limit"
        except Exception as exc:
            return f"{ERROR_PREFIX}{_message(exc)}"
        finally:
            if saved is not None:
                restore_precision(saved)


def _message(exc: Exception) -> str:
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__
