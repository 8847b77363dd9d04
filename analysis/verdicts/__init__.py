"""Verdict rules: the paper's claims decided on runs by rules committed before the runs, one
module per regime and the new regime's parts.

======================================  ======================================================
module                                  concern
======================================  ======================================================
:mod:`~analysis.verdicts.pool`          the pool regime's rules and outcomes (the campaign in
                                        ``results/campaign``; rendered by
                                        :mod:`analysis.report.verdict_table`)
:mod:`~analysis.verdicts.regime`        the regime-d10 campaign's rule type and decision
                                        (``docs/protocols/regime-d10.md``): the seed and
                                        task × seed designs
:mod:`~analysis.verdicts.regime_rules`  the regime-d10 campaign's pre-registered rules, as
                                        data
:mod:`~analysis.verdicts.groups`        the new regime's group statistics from
                                        ``rollouts.jsonl``: collapse, informative groups,
                                        within/between-goal variance
:mod:`~analysis.verdicts.checks`        its bookkeeping checks B1–B3 and the gates B4
                                        (entropy match), B5 (goal balance)
:mod:`~analysis.verdicts.calibration`   the entropy-matched arms' calibration rule (CLI:
                                        ``python -m analysis.verdicts.calibration``)
:mod:`~analysis.verdicts.table`         the new regime's verdict table and MDE plan (CLI:
                                        ``python -m analysis.verdicts.table``); never trains
======================================  ======================================================

With :mod:`analysis.stats` and :mod:`analysis.paired_design` this is the statistics and
verdicts layer (:mod:`analysis`): it reads runs through :mod:`analysis.runs` and imports
nothing above it; figures and the report read the outcomes.
"""
