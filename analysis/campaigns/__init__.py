"""One folder per campaign: everything only that campaign uses (its runs, presets given as flags,
design, gates, verdicts, tables), apart from the library (``rcgrpo/``) and from the layers every
campaign shares (:mod:`analysis.theory`, :mod:`analysis.runs`, :mod:`analysis.stats`,
:mod:`analysis.verdicts`' machinery, the report's LaTeX, the figures' style). A folder's name is
its ``results/INDEX.toml`` id with ``-`` as ``_`` (a Python package name); its ``README.md``
links its protocol, lab note and INDEX row. A reader who wants the method skips this package.

A folder is a campaign when its ``campaign.py`` defines ``ENTRY``
(:class:`~analysis.campaign.entry.Entry`): its driver or the line a data-only campaign prints,
the generated blocks and LaTeX tables it owns, its INDEX fields. Its arms are ``ARMS`` of its
``arms.py``, its presets its ``presets.py``, its figures its ``fig_<name>.py`` modules; the
registry (:mod:`analysis.campaign.registry`) finds all of them, and no module outside the
folders names one. :mod:`analysis.campaigns.presets` gathers the presets for ``python -m
rcgrpo``.
"""
