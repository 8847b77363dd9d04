"""Notebook helpers, the top layer of :mod:`analysis`: what ``notebooks/*.ipynb`` call.

=============================================  ==============================================
module                                         concern
=============================================  ==============================================
:mod:`~analysis.notebook.explore`              notebook 03: which runs, the per-step
                                               dashboard, a step's groups
:mod:`~analysis.notebook.drilldown`            notebook 03: one group's rollouts read as
                                               conversations
:mod:`~analysis.notebook.instrumentation`      per-step metric panels of runs (the dashboard)
:mod:`~analysis.notebook.episodes`             notebook 02: scripted replies replayed through
                                               the environment, task tables
:mod:`~analysis.notebook.runner`               executing, parameterising, stripping and
                                               checking notebooks; JupyterLab
``python -m analysis.notebook``                ``run`` / ``strip`` / ``check`` / ``lab``
=============================================  ==============================================

Notebooks define nothing reusable: they call these functions and the layers below (run data,
the campaign, diagnostics, figures); nothing below imports this package.
"""
