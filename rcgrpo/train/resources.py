"""What a training process has used so far, for ``perf/cpu_time_s`` and ``perf/peak_rss_gib``.

``getrusage(RUSAGE_SELF)``: ``ru_utime + ru_stime`` are CPU seconds of every thread of the
process; ``ru_maxrss`` is its peak resident set size, in KiB on Linux (bytes on macOS).
"""

from __future__ import annotations

import resource
import sys

RSS_UNIT_BYTES = 1 if sys.platform == "darwin" else 1024
"""Bytes per unit of ``ru_maxrss`` on this platform."""


def cpu_seconds() -> float:
    """User + system CPU time of this process (all threads) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_gib() -> float:
    """Peak resident memory of this process so far, GiB: ru_maxrss · unit / 2^30."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * RSS_UNIT_BYTES / 2**30
