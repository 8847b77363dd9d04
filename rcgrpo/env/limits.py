"""Keeping one tool call cheap: a deterministic cost guard plus a wall-clock backstop.

Why not a thread or a plain timer? A thread cannot be killed, and CPython only delivers
signals between bytecodes, so a single C-level operation (``10 ** 10**10``, a
million-digit ``Decimal.sqrt``) cannot be interrupted at all. The only code in the eight
multi-turn backends that can run long on small input is in ``MathAPI`` (checked by
reading every backend: the others loop over their own state, whose growth is bounded by
the reply length limit). So:

1. **Cost guard** (deterministic, same answer on every machine, so rewards stay
   reproducible): before a ``MathAPI`` call, estimate the work from the argument
   magnitudes and refuse calls far above any legitimate use (the ground truth stays
   4--5 orders of magnitude below each limit). Each limit keeps the worst case under
   ~30 ms on one core:

   ================  ============================================  ==================
   method            refused when                                  worst case allowed
   ================  ============================================  ==================
   ``power``         int ** int with result > 2**20 bits           ~25 ms
   ``logarithm``     ``precision`` > 5,000 digits (mpmath)         ~20 ms
   ``square_root``   ``precision`` > 10,000 digits (decimal)       ~26 ms
   ``round_number``  int ``number`` and ``decimal_places`` < -1e5  ~4 ms
   ================  ============================================  ==================

2. **Wall-clock backstop** for everything else that is pure Python: ``signal.setitimer``
   raises :class:`CallTimeout` (a ``BaseException``, so a backend's ``except Exception``
   cannot swallow it) after ``seconds``. Only active on the main thread and only if no
   other ``ITIMER_REAL`` timer is running; the previous handler is restored after each
   call. Off the main thread calls run unguarded except for the cost guard.

3. ``MathAPI.logarithm`` / ``square_root`` set ``mpmath.mp.dps`` and the ``decimal``
   context precision process-wide; the executor saves both before a ``MathAPI`` call and
   restores them after it (:func:`save_precision`, :func:`restore_precision`), so one
   episode cannot change numbers printed by another (results are formatted before the
   restore, so they are byte-identical to BFCL's).
"""

from __future__ import annotations

import contextlib
import decimal
import math
import signal
import threading
from collections.abc import Iterator
from typing import Any

import mpmath

__all__ = [
    "CallTimeout",
    "CallTimer",
    "cost_guard",
    "restore_precision",
    "save_precision",
    "time_limit",
]

MAX_POWER_BITS = 2**20
MAX_LOG_PRECISION = 5_000
MAX_SQRT_PRECISION = 10_000
MIN_ROUND_DIGITS = -100_000


class CallTimeout(BaseException):  # noqa: N818 - a BaseException, deliberately not an Exception
    """Raised inside a tool call that ran past its time limit."""


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def cost_guard(class_name: str, method: str, kwargs: dict[str, Any]) -> str | None:
    """A reason to refuse the call before running it, or ``None`` if it is cheap."""
    if class_name != "MathAPI":
        return None
    if method == "power":
        base, exponent = kwargs.get("base"), kwargs.get("exponent")
        if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
            bits = exponent * math.log2(abs(base))
            if bits > MAX_POWER_BITS:
                return f"result too large (about {bits:.3g} bits; limit {MAX_POWER_BITS})"
    elif method in ("logarithm", "square_root"):
        precision = kwargs.get("precision")
        limit = MAX_LOG_PRECISION if method == "logarithm" else MAX_SQRT_PRECISION
        if _is_number(precision) and precision > limit:
            return f"precision {precision} is too large (limit {limit})"
    elif method == "round_number":
        number, places = kwargs.get("number"), kwargs.get("decimal_places")
        if isinstance(number, int) and _is_number(places) and places < MIN_ROUND_DIGITS:
            return f"decimal_places {places} is too small (limit {MIN_ROUND_DIGITS})"
    return None


def _raise_timeout(signum: int, frame: Any) -> None:
    raise CallTimeout


class CallTimer:
    """Per-call wall-clock limit for a batch of calls: the ``SIGALRM`` handler is installed
    once on ``__enter__`` (if possible, see module docstring), each call brackets itself with
    :meth:`start` / :meth:`stop`, and ``__exit__`` restores the previous handler."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.active = False
        self._previous: Any = None

    def __enter__(self) -> CallTimer:
        self.active = (
            self.seconds is not None
            and self.seconds > 0
            and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0.0
        )
        if self.active:
            self._previous = signal.signal(signal.SIGALRM, _raise_timeout)
        return self

    def start(self) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def stop(self) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0.0)

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0.0)
            signal.signal(signal.SIGALRM, self._previous)
            self.active = False


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[bool]:
    """Raise :class:`CallTimeout` in the body after ``seconds``; yields whether it is armed."""
    with CallTimer(seconds) as timer:
        timer.start()
        try:
            yield timer.active
        finally:
            timer.stop()


def save_precision() -> tuple[int, int]:
    """``mpmath.mp.prec`` and the thread's ``decimal`` precision (see :func:`restore_precision`)."""
    return mpmath.mp.prec, decimal.getcontext().prec


def restore_precision(saved: tuple[int, int]) -> None:
    mpmath.mp.prec, decimal.getcontext().prec = saved
