"""Progress bars of the trainers (tqdm): one per RL run, advanced once a step, and one per
Stage-1 failure-sampling pass and held-out evaluation, advanced once an episode.

A bar is drawn only when ``run.progress`` is on AND stderr is a terminal; otherwise nothing
is printed, so a log file stays one line per event. The RL bar reads::

    rl step 3/200 [00:16<17:32] reward 0.500 | zero-var 0.25 | 5.4 s/step

``reward`` is ``reward/mean`` of the step, ``zero-var`` ``group/zero_var_frac`` (the share of
groups whose G rewards are all equal, :mod:`rcgrpo.metrics`), ``s/step`` the step's wall time;
the bracket holds the elapsed time and tqdm's ETA.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping
from typing import IO, Any

RL_FORMAT = "{desc} {n_fmt}/{total_fmt} [{elapsed}<{remaining}] {postfix}"
"""tqdm ``bar_format`` of the RL bar (no bar glyphs: the numbers are the point)."""


def open_bar(
    total: int, desc: str, enabled: bool, initial: int = 0, stream: IO[str] | None = None
) -> Any:
    """A tqdm bar on ``stream`` (default stderr), or None when ``enabled`` is off or the
    stream is not a terminal."""
    stream = stream or sys.stderr
    if not enabled or not getattr(stream, "isatty", lambda: False)():
        return None
    from tqdm import tqdm

    fmt = RL_FORMAT if desc == "rl step" else None
    width = shutil.get_terminal_size((100, 24)).columns  # a terminal of unknown width: 100
    return tqdm(total=total, initial=initial, desc=desc, file=stream, bar_format=fmt, ncols=width)


def rl_postfix(metrics: Mapping[str, Any], seconds: float) -> str:
    """The RL bar's text after the counts (module docstring); a metric the step did not
    compute is shown as ``-``."""

    def num(key: str, digits: int) -> str:
        value = metrics.get(key)
        return "-" if value is None else f"{float(value):.{digits}f}"

    return (
        f"reward {num('reward/mean', 3)} | zero-var {num('group/zero_var_frac', 2)} | "
        f"{seconds:.1f} s/step"
    )


def advance(bar: Any, postfix: str | None = None) -> None:
    """One more step / episode on ``bar`` (None: no bar), with its text after the counts."""
    if bar is None:
        return
    if postfix is not None:
        bar.set_postfix_str(postfix, refresh=False)
    bar.update(1)


def close(bar: Any) -> None:
    if bar is not None:
        bar.close()
