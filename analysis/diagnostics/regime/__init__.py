"""The regime diagnostic (issue 25, ``docs/regime.md``): is a Stage-1 testbed in the paper's
regime, where RL can sharpen what the model samples?

=================================================  ==========================================
module                                             concern
=================================================  ==========================================
:mod:`~analysis.diagnostics.regime.__main__`       the CLI, ``python -m
                                                   analysis.diagnostics.regime``: a report
                                                   per checkpoint, or ``--gates`` of reports
:mod:`~analysis.diagnostics.regime.measure`        rollouts at a checkpoint -> per-task
                                                   records and the report
:mod:`~analysis.diagnostics.regime.passk`          unbiased pass@k and the per-task tallies
                                                   (headroom, support) behind it
:mod:`~analysis.diagnostics.regime.kinds`          failure kinds, and the decision a sample
                                                   gets right against chance
:mod:`~analysis.diagnostics.regime.gates`          the gates G0–G5 (and G4′) on the reports
:mod:`~analysis.diagnostics.regime.goal_logp`      does a checkpoint read its reward goal?
                                                   the log-likelihood gap between the goals
:mod:`~analysis.diagnostics.regime.proof`          the proof-run criterion on an RL run's
                                                   held-out evaluations (``python -m
                                                   analysis.diagnostics.regime.proof RUN``)
=================================================  ==========================================

A diagnostic of the testbed (:mod:`analysis.diagnostics`): it reads run folders through
:mod:`analysis.runs` and imports nothing above the diagnostics layer. The new regime's verdict
rules, which read its campaign's runs, are in :mod:`analysis.verdicts`.
"""
