"""One folder per campaign: everything only that campaign uses (its runs, presets given as flags,
design, gates, verdicts, tables), apart from the library (``rcgrpo/``) and from the layers every
campaign shares (:mod:`analysis.theory`, :mod:`analysis.runs`, :mod:`analysis.stats`,
:mod:`analysis.verdicts`' machinery, the report's LaTeX, the figures' style). A folder's name is
its ``results/INDEX.toml`` id with ``-`` as ``_`` (a Python package name); its ``README.md``
links its protocol, lab note and INDEX row. A reader who wants the method skips this package.

A folder that trains has ``campaign.py`` with ``ENTRY`` (its driver, usually ``driver.py``); a
data-only folder's ``campaign.py`` has ``DATA_ONLY``, the line ``make campaign C=<id>`` prints
(:mod:`analysis.campaign.registry`). Its figures are ``fig_<name>.py`` modules, found by the
figure builder beside those of :mod:`analysis.figures` (:func:`analysis.figures.__main__.modules`).
"""
