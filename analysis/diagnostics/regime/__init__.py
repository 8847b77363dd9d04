"""The regime diagnostic (``docs/regime.md``): is a Stage-1 testbed in the paper's regime,
where RL can sharpen what the model samples?

=================================================  ==========================================
module                                             concern
=================================================  ==========================================
:mod:`~analysis.diagnostics.regime.__main__`       the CLI, ``python -m
                                                   analysis.diagnostics.regime``: a report
                                                   per checkpoint
:mod:`~analysis.diagnostics.regime.measure`        rollouts at a checkpoint -> per-task
                                                   records and the report
:mod:`~analysis.diagnostics.regime.passk`          unbiased pass@k and the per-task tallies
                                                   (headroom, support) behind it
:mod:`~analysis.diagnostics.regime.kinds`          failure kinds, and the decision a sample
                                                   gets right against chance
:mod:`~analysis.diagnostics.regime.goal_logp`      does a checkpoint read its reward goal?
                                                   the log-likelihood gap between the goals
:mod:`~analysis.diagnostics.regime.proof`          the proof-run criterion on an RL run's
                                                   held-out evaluations (``python -m
                                                   analysis.diagnostics.regime.proof RUN``)
=================================================  ==========================================

A diagnostic of the testbed (:mod:`analysis.diagnostics`): it reads run folders through
:mod:`analysis.runs` and imports nothing above the diagnostics layer. The gates a design is
judged by read its reports in the campaign folder that uses them: G0–G5 (and G4′) of the regime
suites' design, :mod:`analysis.campaigns.regime_design.gates`; the collapse testbed's,
:mod:`analysis.campaigns.collapse_design.gates`.
"""
