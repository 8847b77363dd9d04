"""Analysis of the runs, in layers; a module imports only from its own layer or those below
(``tests/unit/test_import_graph.py`` checks it), lowest first:

1. run data (:mod:`analysis.runs`): the only reader of run folders; discovery, loading,
   :func:`~analysis.runs.is_finished` (the one completion test) and per-run extractors;
2. the campaign (:mod:`analysis.campaign`): which runs exist, training, locating and
   committing them;
3. diagnostics (:mod:`analysis.diagnostics`): measurements that explain a run or the testbed;
4. statistics and verdict rules (:mod:`analysis.stats`, :mod:`analysis.paired_design`,
   :mod:`analysis.verdicts`: the pool regime's and the new regime's);
5. figures (:mod:`analysis.figures`);
6. report renderers (:mod:`analysis.report`);
7. notebook helpers (:mod:`analysis.notebook`).

:mod:`analysis.theory` (the paper's statements, computed without runs) is not placed in a
layer yet.

:data:`REPO_ROOT` is the one definition of the repository root (``analysis/`` is installed
editable, so it sits next to ``runs/``, ``results/``, ``figures/`` and ``docs/``).
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
