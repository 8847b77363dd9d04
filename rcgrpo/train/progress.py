"""Progress of every long job: RL steps, Stage-1 steps, and the episodes of data building,
failure sampling and held-out evaluation (one bar per pass).

On a terminal (the stream's ``isatty``) a tqdm bar; in a log file (``nohup``, a campaign's
``train.log``) a progress line when a bar opens, at least every :data:`INTERVAL_S` seconds of
work, and when it closes (unless its last line already shows the final count), so every pass
prints its start and its end however short it is — step, share done, rate, elapsed time and
ETA, and the bar's last metric. Nothing at all when ``run.progress`` is off. Lines read::

    rl step 0/200 (0%) | 0:00 elapsed
    rl step 3/200 (2%) | 5.4 s/step | 0:16 elapsed, ETA 17:44 | reward 0.500 | zero-var 0.25
    eval combined/high 120/200 (60%) | 2.1 episode/s | 0:57 elapsed, ETA 0:38 | success 0.325

The rate is the one time per step a line shows: the mean since the bar opened, the pace its ETA
assumes (on a terminal, tqdm's ``rate_fmt``). A step with nothing to count (training a
tokenizer) prints :class:`Heartbeat` lines instead. The RL bar's text after the counts is
:func:`rl_postfix`: ``reward`` is ``reward/mean`` of the step, ``zero-var``
``group/zero_var_frac`` (the share of groups whose G rewards are all equal,
:mod:`rcgrpo.metrics`). An episode bar's is :class:`EpisodeTally`'s success so far. The clock
and the interval are parameters of :class:`LogLines`, so a test drives the lines with a fake
clock.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Mapping
from typing import IO, Any

INTERVAL_S = 15.0
"""Most seconds between two progress lines in a log file."""
RL_FORMAT = "{desc} {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"
"""tqdm ``bar_format`` of the RL bar (no bar glyphs: the numbers are the point)."""


def clock_text(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on) of a non-negative duration."""
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class LogLines:
    """The bar of a stream that is not a terminal: tqdm's ``update`` / ``set_postfix_str``
    / ``close`` / ``n``, printing a line (module docstring) when it opens, when ``interval``
    seconds (default :data:`INTERVAL_S`, read when the bar opens) of ``clock`` (default
    ``time.monotonic``) have passed since the last one, and when it closes."""

    def __init__(
        self,
        total: int,
        desc: str,
        stream: IO[str],
        initial: int = 0,
        unit: str = "it",
        interval: float | None = None,
        clock: Callable[[], float] | None = None,
    ):
        self.total, self.desc, self.stream, self.unit = total, desc, stream, unit
        self.n = self.initial = initial
        self.interval = INTERVAL_S if interval is None else interval
        self.clock = clock or time.monotonic
        self.start = self.last = self.clock()
        self.postfix, self.shown = "", initial
        self._print(self.start)  # the start of every pass, however short

    def set_postfix_str(self, text: str, refresh: bool = False) -> None:
        self.postfix = text

    def update(self, count: int = 1) -> None:
        self.n += count
        now = self.clock()
        if now - self.last >= self.interval:
            self._print(now)

    def close(self) -> None:
        if self.n != self.shown:  # the count moved since the last line
            self._print(self.clock())

    def line(self, now: float) -> str:
        """The progress line at time ``now`` (module docstring)."""
        elapsed, done = now - self.start, self.n - self.initial
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        parts = [f"{self.desc} {self.n}/{self.total}{share}"]
        if done > 0 and elapsed > 0:
            rate = done / elapsed
            parts.append(
                f"{rate:.1f} {self.unit}/s" if rate >= 1 else f"{1 / rate:.1f} s/{self.unit}"
            )
            eta = clock_text(max(self.total - self.n, 0) / rate)
            parts.append(f"{clock_text(elapsed)} elapsed, ETA {eta}")
        else:
            parts.append(f"{clock_text(elapsed)} elapsed")
        return " | ".join(parts + ([self.postfix] if self.postfix else []))

    def _print(self, now: float) -> None:
        print(self.line(now), file=self.stream, flush=True)
        self.last, self.shown = now, self.n


def open_bar(
    total: int,
    desc: str,
    enabled: bool,
    initial: int = 0,
    stream: IO[str] | None = None,
    unit: str | None = None,
    interval: float | None = None,
    clock: Callable[[], float] | None = None,
) -> Any:
    """A tqdm bar on ``stream`` (default stderr) when it is a terminal, else
    :class:`LogLines`; None when ``enabled`` is off. ``unit`` (default ``step`` for the RL
    bar ``rl step``, else ``it``) names what the rate counts."""
    stream = stream or sys.stderr
    if not enabled:
        return None
    unit = unit or ("step" if desc == "rl step" else "it")
    if not getattr(stream, "isatty", lambda: False)():
        return LogLines(total, desc, stream, initial, unit, interval, clock)
    from tqdm import tqdm

    fmt = RL_FORMAT if desc == "rl step" else None
    width = shutil.get_terminal_size((100, 24)).columns  # a terminal of unknown width: 100
    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        file=stream,
        bar_format=fmt,
        ncols=width,
        unit=unit,
    )


def rl_postfix(metrics: Mapping[str, Any]) -> str:
    """The RL bar's text after the counts (module docstring); a metric the step did not
    compute is shown as ``-``. No time: the bar's rate is the line's one time per step."""

    def num(key: str, digits: int) -> str:
        value = metrics.get(key)
        return "-" if value is None else f"{float(value):.{digits}f}"

    return f"reward {num('reward/mean', 3)} | zero-var {num('group/zero_var_frac', 2)}"


def advance(bar: Any, postfix: str | None = None, steps: int = 1) -> None:
    """``steps`` more steps / episodes on ``bar`` (None: no bar), with its text after the
    counts (``steps=0``: the text only, shown from the next step on)."""
    if bar is None:
        return
    if postfix is not None:
        bar.set_postfix_str(postfix, refresh=False)
    if steps:
        bar.update(steps)


class EpisodeTally:
    """``on_done`` of the rollout engine (:meth:`rcgrpo.policy.rollout.RolloutEngine.run`):
    one more finished episode on ``bar``, its text the success rate so far (reward 1)."""

    def __init__(self, bar: Any):
        self.bar, self.episodes, self.successes = bar, 0, 0

    def __call__(self, rollout: Any) -> None:
        self.episodes += 1
        self.successes += rollout.reward == 1
        advance(self.bar, f"success {self.successes / self.episodes:.3f}")


def close(bar: Any) -> None:
    if bar is not None:
        bar.close()


class Heartbeat:
    """Progress of a step with no count (training a tokenizer, encoding a data set): while
    it runs, a line ``<desc>: m:ss elapsed`` every ``interval`` seconds, and
    ``<desc>: done in m:ss`` at the end if a line was printed; a step done within the
    interval prints nothing. A daemon thread prints, waiting with ``waiter(interval)``
    (default: the stop event's ``wait``; True ends it)."""

    def __init__(
        self,
        desc: str,
        stream: IO[str],
        interval: float | None = None,
        clock: Callable[[], float] | None = None,
        waiter: Callable[[float], bool] | None = None,
    ):
        import threading

        self.desc, self.stream = desc, stream
        self.interval = INTERVAL_S if interval is None else interval
        self.clock = clock or time.monotonic
        self.stop = threading.Event()
        self.waiter = waiter or self.stop.wait
        self.thread = threading.Thread(target=self._run, name=f"heartbeat {desc}", daemon=True)
        self.start, self.printed = self.clock(), 0

    def _run(self) -> None:
        while not self.waiter(self.interval) and not self.stop.is_set():
            self._print(f"{clock_text(self.clock() - self.start)} elapsed")

    def _print(self, text: str) -> None:
        print(f"{self.desc}: {text}", file=self.stream, flush=True)
        self.printed += 1

    def __enter__(self) -> Heartbeat:
        self.start = self.clock()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        if self.printed:
            self._print(f"done in {clock_text(self.clock() - self.start)}")


def heartbeat(desc: str, enabled: bool, stream: IO[str] | None = None, **kwargs: Any) -> Any:
    """A :class:`Heartbeat` on ``stream`` (default stderr), or a context that does nothing
    when ``enabled`` is off or the stream is a terminal (where the steps around it draw
    bars)."""
    import contextlib

    stream = stream or sys.stderr
    if not enabled or getattr(stream, "isatty", lambda: False)():
        return contextlib.nullcontext()
    return Heartbeat(desc, stream, **kwargs)
