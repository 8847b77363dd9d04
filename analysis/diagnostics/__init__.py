"""Diagnostics: measurements that explain a run or the testbed, beyond what the trainer logs.

=============================================  ==============================================
module                                         concern
=============================================  ==============================================
:mod:`~analysis.diagnostics.goal_split`        the between/within-goal split of the
                                               advantage, per step, for any run folder
:mod:`~analysis.diagnostics.rollout_stats`     group statistics recomputed from a run's
                                               per-rollout table
:mod:`~analysis.diagnostics.grad_noise`        the gradient noise scale at a checkpoint
                                               (``python -m analysis.diagnostics.grad_noise``)
:mod:`~analysis.diagnostics.perturbations`     perturbations of a ground truth, scored by R
                                               and by BFCL's rule
:mod:`~analysis.diagnostics.regime`            the regime diagnostic of a Stage-1
                                               checkpoint and the proof-run
                                               criterion (``python -m
                                               analysis.diagnostics.regime``)
=============================================  ==============================================

They read runs through :mod:`analysis.runs` and sit below statistics and verdicts, figures,
the report and the notebook helpers, which use them.
"""
