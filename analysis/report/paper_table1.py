"""The RC-GRPO paper's Table 1 (BFCL v4 multi-turn, overall accuracy, %), per factorial role:
the number each campaign's Table 1 analogue prints beside its own, for orientation only."""

PAPER_QWEN = {"sft_grpo": "48.75", "sft_rc": "46.25", "rctp_grpo": "73.75", "rctp_rc": "85.00"}
"""Qwen2.5-7B-Instruct."""
PAPER_LLAMA = {"sft_grpo": "35.00", "sft_rc": "35.00", "rctp_grpo": "46.25", "rctp_rc": "48.75"}
"""Llama-3.1-8B-Instruct."""
