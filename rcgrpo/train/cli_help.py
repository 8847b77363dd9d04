"""``--help`` of the training commands (``sft``, ``rctp``, ``train``, ``trl``): usage, the
config's description, the command's presets one per line with a one-line description each,
then every option with the value the chosen preset gives it (:mod:`rcgrpo.cli_options`).

A preset's description: an own preset's from :data:`DESCRIPTIONS`, a plugin's from its
plugin (:func:`rcgrpo.train.plugins.descriptions`). A test checks that every preset of every
command has one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rcgrpo.cli_options import OptionParser, add_fields, describe

DESCRIPTIONS: dict[str, str] = {
    # Quick start (README): Stage 1 and 2 on the collapse1-d10 suite, about a minute each
    "quick-sft": "quick start: SFT on collapse1-d10 from the pool's sft-s3, 8 steps",
    "quick-rctp": "quick start: RCTP-FT from quick-sft on its failures of 24 tasks, 8 steps",
    "quick-grpo": "quick start: SFT + GRPO from quick-sft on collapse1-d10, 4 steps",
    "quick-rcgrpo": "quick start: RC-GRPO from quick-rctp on collapse1-d10, 4 steps",
    # the same on a real model: SmolLM2-135M-Instruct with LoRA (docs/real-model.md)
    "quick-sft-smol": "quick start on SmolLM2-135M-Instruct: LoRA SFT, docs prompt, 8 steps",
    "quick-rctp-smol": "quick start on SmolLM2-135M-Instruct: LoRA RCTP-FT from quick-sft-smol",
    "quick-grpo-smol": "quick start on SmolLM2-135M-Instruct: SFT + GRPO from quick-sft-smol",
    "quick-rcgrpo-smol": "quick start on SmolLM2-135M-Instruct: RC-GRPO from quick-rctp-smol",
    "smol-grpo": "SmolLM2 + LoRA: GRPO on collapse1-d10, 40 steps x 4 prompts x G 5, 96 tokens",
    "smol-rcgrpo": "SmolLM2 + LoRA: RC-GRPO on collapse1-d10, 40 steps x 4 prompts x G 5",
    # Stage 1 (rcgrpo.train.stage1.config.PRESETS)
    "sft-bfcl-tiny": "SFT of the tiny Qwen2 from scratch on BFCL's 720 training tasks (CPU)",
    "rctp-bfcl-tiny": "RCTP-FT on BFCL from sft-bfcl-tiny (CPU)",
    "sft-bfcl-gpu": "the paper's SFT of Qwen2.5-7B-Instruct on BFCL (GPU)",
    "rctp-bfcl-gpu": "the paper's RCTP-FT of Qwen2.5-7B-Instruct on BFCL (GPU)",
    # Stage 2 (rcgrpo.train.presets)
    "paper-qwen7b": "the paper's RC-GRPO on BFCL from its RCTP-FT Qwen2.5-7B (§4 values, GPU)",
    "paper-qwen7b-grpo": "the paper's GRPO baseline on BFCL from its SFT Qwen2.5-7B (GPU)",
    "trl-cpu": "RC-GRPO on TRL's GRPOTrainer, a few CPU steps from the CPU RCTP-FT checkpoint",
    "trl-paper": "the paper's RC-GRPO values on TRL's GRPOTrainer (8 GPUs, vLLM, bf16)",
}
"""The method's own presets -> one line each."""

USAGE = "python -m rcgrpo {command} [--preset NAME] [--config FILE] [--section.field VALUE ...]"


def preset_descriptions() -> dict[str, str]:
    """Every preset's one-line description (module docstring)."""
    from rcgrpo.train.plugins import descriptions

    return DESCRIPTIONS | descriptions()


def command_help(
    command: str, preset: str, cfg: Any, presets: Iterable[str], hide: Iterable[str]
) -> str:
    """The ``--help`` text of ``command`` started from ``preset`` (whose values ``cfg`` holds):
    ``presets`` one per line with its description, then the options; ``hide``: the dotted
    keys of ``cfg`` the command never reads (not shown; nor are ``preset``, read by argparse,
    and ``stage``, fixed by the command)."""
    presets = list(presets)
    described = preset_descriptions()
    width = max(map(len, presets))
    rows = [f"  {name:<{width}}  {described.get(name, '')}".rstrip() for name in presets]
    head = describe(type(cfg).__doc__ or "")
    description = (
        f"{head}\n\npresets (--preset NAME; the defaults below are those of {preset}):\n"
        + "\n".join(rows)
    )
    prog = f"python -m rcgrpo {command}"
    parser = OptionParser(prog, description=description, usage=USAGE.format(command=command))
    parser.add_argument("--preset", metavar="NAME", default=preset, help="a preset above")
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="JSON overrides over the preset (strict keys)",
    )
    add_fields(parser, type(cfg), cfg, hide={"preset", "stage", *hide})
    return parser.format_help()
