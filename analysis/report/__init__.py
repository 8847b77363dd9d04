"""LaTeX tables and macros for the reproduction report (``paper/main.tex``).

``python -m analysis.report [--allow-missing] [--ensure-theory]`` (``make paper``) writes
``paper/generated/``: the theory check table from ``figures/theory_report.json``, one table
per experiment table of :mod:`~analysis.report.tables` computed from finished run folders,
the list of built result figures, and macros.

=================================  ==========================================================
module                             concern
=================================  ==========================================================
:mod:`~analysis.report.latex`      escaping, number / CI formatting, booktabs tables
:mod:`~analysis.report.runtable`   table specs (rows = experiments, columns = extractors)
:mod:`~analysis.report.tables`     the report's tables and the experiment names they need
:mod:`~analysis.report.theory_table`  the theory check table and ``\\Theory*`` macros
:mod:`~analysis.report.figure_list`   result figures from the figure sidecars
:mod:`~analysis.report.readme_results`  the generated blocks of the README and ``docs/``
:mod:`~analysis.report.markdown`   run tables as Markdown (the generated blocks)
:mod:`~analysis.report.verdict_table`  a verdict table, LaTeX and Markdown
:mod:`~analysis.report.resolve`    the runs the report reads by default
=================================  ==========================================================

Runs come from the run-data layer below the report: :mod:`analysis.runs.sources` (run
discovery, experiment name -> run folders) and :mod:`analysis.runs.extractors` (one run -> one
number). The report imports figures, verdicts and run data; none of them imports the report.

Each campaign's own tables are in its folder of :mod:`analysis.campaigns`.

A table never shows an invented number: a missing experiment is an error naming it, or
with ``--allow-missing`` an explicit *not yet run* row.
"""
