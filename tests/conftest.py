"""Test-wide configuration: the hypothesis profiles.

``ci`` (loaded by default) extends hypothesis' own ``ci`` profile: derandomised (every run
draws the same examples, so a failure reproduces on any machine), no database, no deadline
(2 shared cores make timings noisy), the failing example's reproduction blob printed, and
80 examples per law. ``dev`` explores: fresh random examples every run, the local example
database on. Choose with ``HYPOTHESIS_PROFILE=dev`` or ``pytest --hypothesis-profile dev``.
A law that needs more or fewer examples says so with its own ``@settings(max_examples=N)``;
any counterexample found is pinned there with ``@example``.

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
