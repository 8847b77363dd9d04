"""One folder per campaign: everything only that campaign uses (its runs, presets given as flags,
design, gates, verdicts, tables), apart from the library (``rcgrpo/``) and from the layers every
campaign shares (:mod:`analysis.theory`, :mod:`analysis.runs`, :mod:`analysis.stats`,
:mod:`analysis.verdicts`' machinery, the report's LaTeX, the figures' style). A folder's name is
its ``results/INDEX.toml`` id with ``-`` as ``_`` (a Python package name); its ``README.md``
links its protocol, lab note and INDEX row. A reader who wants the method skips this package.

The campaigns still under :mod:`analysis.campaign` move here one by one.
"""
