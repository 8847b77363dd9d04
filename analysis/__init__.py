"""Analysis of the runs: campaign, run data, statistics and verdicts, figures, the report.

:data:`REPO_ROOT` is the one definition of the repository root (``analysis/`` is installed
editable, so it sits next to ``runs/``, ``results/``, ``figures/`` and ``docs/``).
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository root."""
