"""Test-wide configuration: the hypothesis profiles.

``ci`` (loaded by default) extends hypothesis' own ``ci`` profile: derandomised (every run
draws the same examples, so a failure reproduces on any machine), no database, no deadline
(2 shared cores make timings noisy), the failing example's reproduction blob printed, and
80 examples per law. ``dev`` explores: fresh random examples every run, the local example
database on. Choose with ``HYPOTHESIS_PROFILE=dev`` or ``pytest --hypothesis-profile dev``.
A law that needs more or fewer examples says so with its own ``@settings(max_examples=N)``;
any counterexample found is pinned there with ``@example``.

Under pytest-xdist each worker gives torch its share of the cores (:func:`torch_threads`).
The campaigns' presets reach ``python -m rcgrpo`` through the entry point of pyproject.toml
(:mod:`rcgrpo.train.plugins`); where the installed package predates it, the tests name it in
``RCGRPO_PRESET_PLUGINS`` instead (read in this process and by every subprocess they start).
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points

from hypothesis import settings

from rcgrpo.train.plugins import ENV, GROUP

CAMPAIGN_PRESETS = "analysis.campaigns.presets:PRESETS"
if not any(ep.value == CAMPAIGN_PRESETS for ep in entry_points(group=GROUP)):
    os.environ.setdefault(ENV, CAMPAIGN_PRESETS)

MAX_EXAMPLES = 80

settings.register_profile("ci", settings.get_profile("ci"), max_examples=MAX_EXAMPLES)
settings.register_profile("dev", max_examples=MAX_EXAMPLES, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def torch_threads() -> int | None:
    """Torch intra-op threads of one of N xdist workers: the cores this process may use,
    divided by N (at least 1); None outside xdist or when ``OMP_NUM_THREADS`` is set. With
    ``make test`` (-n 2 on 2 cores) torch's default of 2 threads per worker puts 4 spinning
    threads on 2 cores (test_logprob_recompute: 4-12x slower, measured on a loaded machine)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2 or "OMP_NUM_THREADS" in os.environ:
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // workers)


if (THREADS := torch_threads()) is not None:
    import torch

    torch.set_num_threads(THREADS)
