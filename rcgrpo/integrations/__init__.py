"""Bridges from rcgrpo to other training engines (optional extras; import the submodule).

- :mod:`rcgrpo.integrations.trl`: RC-GRPO on TRL's ``GRPOTrainer`` (``pip install
  rcgrpo[trl]``): per-rollout reward goals, multi-turn episodes through
  :class:`rcgrpo.env.Episode`, our reward and group diagnostics; CLI
  ``python -m rcgrpo trl``. See docs/trl.md.
- :mod:`rcgrpo.integrations.goals` and :mod:`rcgrpo.integrations.guard` do not import TRL.

Nothing is imported here, so ``import rcgrpo.integrations`` works without the extra.
"""
