"""The experiment campaign: which runs exist, how they are trained, found and committed.

==============================================  =============================================
module                                          concern
==============================================  =============================================
:mod:`~analysis.campaign.registry`              the campaigns, one per folder: found and
                                                loaded (the only importer of their folders)
:mod:`~analysis.campaign.entry`                 a campaign folder's record: driver, blocks,
                                                tables, INDEX fields
:mod:`~analysis.campaign.arms`                  the arms every campaign types, gathered
:mod:`~analysis.campaign.mechanics`             run specs, locating a done run, launching,
                                                light copies in ``results/<home>``
:mod:`~analysis.campaign.find`                  the done runs of a campaign's experiments
                                                (figures, verdicts, the report)
:mod:`~analysis.campaign.spec`                  whether a recorded spec is the current one
:mod:`~analysis.campaign.config`                what a spec resolves to; adopting hand runs
``python -m analysis.campaign``                 trains what is not done (``make campaign
                                                C=<id>``; ``make runs`` is ``pool``)
==============================================  =============================================

Each campaign's runs are in its folder of :mod:`analysis.campaigns` (``driver.py``, its entry
in ``campaign.py``); the registry finds them there, and no module here imports one.

The campaign sits right above run data (:mod:`analysis.runs`), through which it reads run
folders and decides whether a run finished; the diagnostics, verdicts, figures, report and
notebook helpers find their runs through it.
"""
