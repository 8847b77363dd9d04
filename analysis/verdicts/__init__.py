"""Verdict rules: the paper's claims decided on runs by rules committed before the runs. This
package holds the machinery every campaign shares; each campaign's own rules and tables are in
its folder of :mod:`analysis.campaigns` (``verdicts.py``, ``rules.py``, ...): the regime-d10
campaign's populations and its entropy calibration are in its folder too
(:mod:`analysis.campaigns.regime_d10.population`, :mod:`analysis.campaigns.regime_d10.calibration`).

======================================  ======================================================
module                                  concern
======================================  ======================================================
:mod:`~analysis.verdicts.rules`         the rule type and decision every campaign since
                                        regime-d10 uses (``docs/protocols/regime-d10.md``):
                                        the seed and task × seed designs
:mod:`~analysis.verdicts.family`        a verdict table's decisions: Holm within families,
                                        equivalence, learning speed, hosts
:mod:`~analysis.verdicts.groups`        group statistics from ``rollouts.jsonl``: collapse,
                                        informative groups, within/between-goal variance
:mod:`~analysis.verdicts.half_life`     a run's measured mode separation and its half-life
======================================  ======================================================

With :mod:`analysis.stats` and :mod:`analysis.paired_design` this is the statistics and
verdicts layer (:mod:`analysis`): it reads runs through :mod:`analysis.runs` and imports
nothing above it; figures and the report read the outcomes.
"""
