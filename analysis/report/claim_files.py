"""The files whose prose cites registered numbers or gated sentences, shared by the claims
registry (:mod:`analysis.report.claims`) and its gates (:mod:`analysis.report.claim_scope`):
the README's findings are plain sentences linking the findings page's sections; a number one
of them cites is registered too."""

from __future__ import annotations

FINDINGS, PAPER, README = "docs/findings.md", "paper/sections/regime.tex", "README.md"
