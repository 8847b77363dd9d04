"""LaTeX tables and macros for the reproduction report (``paper/main.tex``).

``python -m analysis.report [--allow-missing] [--ensure-theory]`` (``make paper``) writes
``paper/generated/``: the theory check table from ``figures/theory_report.json``, every
campaign's tables (the ``tables`` and ``run_tables`` of its registry entry, the latter computed
from finished run folders), the list of built result figures, and macros.

=================================  ==========================================================
module                             concern
=================================  ==========================================================
:mod:`~analysis.report.latex`      escaping, number / CI formatting, booktabs tables
:mod:`~analysis.report.runtable`   table specs (rows = experiments, columns = extractors)
:mod:`~analysis.report.paper_table1`  the paper's Table 1, beside each campaign's analogue
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
