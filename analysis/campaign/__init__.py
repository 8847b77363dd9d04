"""The experiment campaign: which runs exist, how they are trained, found and committed.

==============================================  =============================================
module                                          concern
==============================================  =============================================
:mod:`~analysis.campaign.registry`              the campaigns by id (``--campaign``)
:mod:`~analysis.campaign.experiments`           the pool campaign's runs by experiment;
                                                resolving experiment groups to done runs
:mod:`~analysis.campaign.recipe_sweep`          the RL recipe sweep and its criterion
:mod:`~analysis.campaign.regime`                the regime-d10 campaign: its runs, each
                                                seed's admission, pass@k of every RL run
:mod:`~analysis.campaign.wide1`                 the regime-wide1 campaign: the factorial on
                                                the chosen design
:mod:`~analysis.campaign.mechanics`             run specs, locating a done run, launching,
                                                light copies in ``results/<home>``
:mod:`~analysis.campaign.spec`                  whether a recorded spec is the current one
:mod:`~analysis.campaign.config`                what a spec resolves to; adopting hand runs
:mod:`~analysis.campaign.conversation_sample`   a committed run's conversations, re-run and
                                                checked
``python -m analysis.campaign``                 trains what is not done (``make campaign
                                                C=<id>``; ``make runs`` is ``pool``)
==============================================  =============================================

The campaign sits right above run data (:mod:`analysis.runs`), through which it reads run
folders and decides whether a run finished; the diagnostics, verdicts, figures, report and
notebook helpers find their runs through it.
"""
