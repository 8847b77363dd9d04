"""The RC-GRPO paper's stated setup (arXiv 2602.03025, §4): the one record of its values.

Read by the presets that carry the paper's recipe (``paper-qwen7b``, ``paper-qwen7b-grpo``
and ``trl-paper`` in :mod:`rcgrpo.train.presets`; ``sft-bfcl-gpu`` and ``rctp-bfcl-gpu`` in
:mod:`rcgrpo.train.stage1.config`) and by the report's setup table, which prints it beside
what ran (:mod:`analysis.campaigns.pool.setup_table`). Values the paper leaves unstated are not
here: they are the documented defaults of :mod:`rcgrpo.train.config`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaperSetup:
    group_size: int = 5
    """G: rollouts per prompt."""
    prompts_per_step: int = 256
    """Prompts per RL step of RC-GRPO."""
    grpo_prompts_per_step: int = 64
    """Prompts per RL step of the GRPO baseline."""
    rl_steps: int = 400
    """RL steps."""
    rl_lr: float = 1e-6
    """RL learning rate."""
    kl_beta: float = 0.1
    """β of the KL penalty to π_ref."""
    clip: float = 0.2
    """ε of the clipped surrogate (symmetric)."""
    p_high: float = 0.5
    """P(<|high_reward|>) of the i.i.d. reward goals (the 1:1 RCTP data)."""
    rl_mode: str = "combined"
    """Episode mode of RL: all turns in one prompt."""
    stage1_lr: float = 1e-5
    """Learning rate of SFT and RCTP-FT."""
    sft_epochs: float = 2.0
    """SFT epochs."""
    rctp_epochs: float = 5.0
    """RCTP-FT epochs (from the base model)."""
    stage1_batch: int = 16
    """Stage-1 batch size."""
    failure_temperature: float = 0.7
    """Sampling temperature of the base model's failures for RCTP-FT."""


PAPER = PaperSetup()
"""The paper's values (§4)."""
