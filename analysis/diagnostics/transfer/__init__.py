"""The transfer diagnostic: does a checkpoint read its reward goal, and how much of a low-goal
update reaches the high-goal policy through the shared weights (the coupling ρ)?

=====================================================  ======================================
module                                                 concern
=====================================================  ======================================
:mod:`~analysis.diagnostics.transfer.__main__`         the CLI, ``python -m
                                                       analysis.diagnostics.transfer``: one
                                                       JSON per checkpoint
:mod:`~analysis.diagnostics.transfer.paired`           goal-paired sampling: one random stream
                                                       per (task, sample) under both goals
:mod:`~analysis.diagnostics.transfer.goal_effect`      instrument 1: P(right | goal) per
                                                       decision kind, paired by task
:mod:`~analysis.diagnostics.transfer.logodds`          a decision's log-odds under each goal
                                                       at its decision token, on the expert
                                                       prefix, and per-task gradients
:mod:`~analysis.diagnostics.transfer.probe`            instrument 2: the coupling in gradient
                                                       form; one SGD step on a low-goal
                                                       batch, Δz under each goal, ρ̂ and the
                                                       finite-difference check
:mod:`~analysis.diagnostics.transfer.coupling`         ⟨∇z_h, ∇z_l⟩, norms, cosine, gain
                                                       ratio from Gram matrices; bootstrap
                                                       over tasks
:mod:`~analysis.diagnostics.transfer.estimates`        the intervals: paired difference,
                                                       ratio of means (delta method)
=====================================================  ======================================
"""
