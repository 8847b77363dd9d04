"""The collapse-pairs design's finding in the README and ``docs/findings.md``, each linking the
verdict on the campaign's results page (``docs/results/collapse-pairs.md``), for its entry in
the registry (``campaign.py`` here); the words are :mod:`analysis.campaigns.collapse_pairs.words`."""

from __future__ import annotations

from analysis.campaigns.collapse_pairs import words

VERDICT = "results/collapse-pairs.md#collapse-pairs-the-designs-verdict"
"""The verdict's heading on the campaign's page, relative to ``docs/``."""


def readme_finding() -> str:
    """The README's ``collapse-pairs-finding`` block: the headline and a link."""
    return f"- {words.headline().rstrip('.')} ([more](docs/{VERDICT})).\n"


def findings_finding() -> str:
    """The ``collapse-pairs-finding`` block of ``docs/findings.md``: the finding in plain words
    and a link to its verdict."""
    return f"{words.plain()} The verdict and its numbers: [{VERDICT}]({VERDICT}).\n"
