"""Stage 2 (GRPO / RC-GRPO): the modules only the RL trainer reads.

=====================================  ===================================================
module                                 concern
=====================================  ===================================================
:mod:`~rcgrpo.train.rl.loop`           ``python -m rcgrpo train``: one step, the loop
:mod:`~rcgrpo.train.rl.setup`          :class:`~rcgrpo.train.rl.setup.RLRun`, evaluation,
                                       checkpoints, resume
:mod:`~rcgrpo.train.rl.resume`         the step count a resume trains to; extensions
:mod:`~rcgrpo.train.rl.filters`        group filters and the batch's advantages
:mod:`~rcgrpo.train.rl.update`         π_ref / π_old passes and the optimizer steps
:mod:`~rcgrpo.train.rl.step_metrics`   one metrics dict per step
=====================================  ===================================================

Shared with Stage 1 (:mod:`rcgrpo.train.stage1`) or the TRL path, in :mod:`rcgrpo.train`:
the configs and presets, the CLI, validation, checkpoints, run folders, rollouts
(:mod:`rcgrpo.train.rollouts`: prompt stream, seeds, the per-rollout table row); task splits
come from :func:`rcgrpo.policy.task_sources.load_task_splits`.
"""
