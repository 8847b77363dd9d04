"""``python -m rcgrpo diagnose``: the collapse instruments of any GRPO run, from its records.

- :mod:`rcgrpo.diagnose.groups`: the run as steps of [P, G] reward grids (validated).
- :mod:`rcgrpo.diagnose.sources`: readers of this repository's run folders, verl rollout
  dumps and generic tables (JSONL, gzip JSONL, CSV, Parquet).
- :mod:`rcgrpo.diagnose.instruments`: the per-step metrics (one call into
  :func:`rcgrpo.group_diagnostics`) and the verdict rule.
- :mod:`rcgrpo.diagnose.figures`, :mod:`rcgrpo.diagnose.report`: the page and its JSON.
- :mod:`rcgrpo.diagnose.cli`: the command.

The callback for a stock TRL ``GRPOTrainer`` is :mod:`rcgrpo.integrations.trl_callback`.
"""
