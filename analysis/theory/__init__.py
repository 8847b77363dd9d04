"""Theory checks: every statement of the RC-GRPO paper (§4, App. A) as a computation.

Each statement module computes what the statement predicts and what is actually true —
exactly (closed forms, recursion over trees, enumeration with numpy or ``fractions``) where
possible, by Monte Carlo with distribution-free tolerances otherwise — and returns a
:class:`~analysis.theory.report.StatementResult`. Advantages and reward tokens always come
from :func:`rcgrpo.group_advantages` and :func:`rcgrpo.sample_reward_tokens`.

``python -m analysis.theory check [--json PATH] [--configs N] [--seed S]`` runs them all.

=====================  =========================================  ===========================
id                     statement                                  module
=====================  =========================================  ===========================
``def_4_1``            Def. 4.1 advantage collapse                :mod:`.collapse`
``lemma_a_2``          Lemma A.2 KL-probability bound             :mod:`.kl_bound`
``prop_4_2``           Prop. 4.2 vanishing gradient (trees)       :mod:`.peaked`
``lemma_a_3_a_4``      Lemmas A.3/A.4 total variance, E[S_G²]     :mod:`.total_variance`
``prop_4_3``           Prop. 4.3 variance guarantee               :mod:`.variance_guarantee`
``stratified``         stratified tokens (beyond the paper)       :mod:`.stratified`
``near_collapse``      near-collapse advantages (beyond)          :mod:`.near_collapse`
``remark_4_4``         Remark 4.4 two-mode dynamics               :mod:`.dynamics`
``separation``         separation dynamics, goal-blind (beyond)   :mod:`.separation_fixed_point`
``transfer``           per-goal update and transfer (beyond)      :mod:`.transfer_check`
=====================  =========================================  ===========================
"""

from __future__ import annotations

import importlib

# statement id -> module exposing ``check(num_configs, seed) -> StatementResult``
STATEMENTS: dict[str, str] = {
    "def_4_1": "analysis.theory.collapse",
    "lemma_a_2": "analysis.theory.kl_bound",
    "prop_4_2": "analysis.theory.peaked",
    "lemma_a_3_a_4": "analysis.theory.total_variance",
    "prop_4_3": "analysis.theory.variance_guarantee",
    "stratified": "analysis.theory.stratified",
    "near_collapse": "analysis.theory.near_collapse",
    "remark_4_4": "analysis.theory.dynamics",
    "separation": "analysis.theory.separation_fixed_point",
    "transfer": "analysis.theory.transfer_check",
}


def run_check(statement: str, num_configs: int = 200, seed: int = 0):
    """Run one statement's check; returns its ``StatementResult``."""
    if statement not in STATEMENTS:
        raise ValueError(f"statement must be one of {sorted(STATEMENTS)}, got {statement!r}")
    return importlib.import_module(STATEMENTS[statement]).check(num_configs=num_configs, seed=seed)
