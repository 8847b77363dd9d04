"""The setup table: the paper's values next to the pool campaign's, read from its runs' configs.

Our column is read from the resolved ``config.json`` of a finished run of each role (RC-GRPO,
SFT, RCTP-FT) when one exists, else from the named preset those runs start from
(:mod:`analysis.campaigns.presets`), so the report cannot drift from
what ran; the paper's column is its record :data:`rcgrpo.paper.PAPER` (§4; ``(unstated)`` where the
paper is silent).
"""

from __future__ import annotations

import math
from typing import Any

from analysis.campaign.arms import roles
from analysis.campaigns.pool.tables import EXPERIMENTS
from analysis.report.latex import escape, tabular
from analysis.runs import load_run
from analysis.runs.sources import Resolver
from rcgrpo.paper import PAPER as P

RL_PRESET = roles("pool")["rctp_rc"]
SFT_PRESET = "sft-synth-cpu"
RCTP_PRESET = "rctp-synth-cpu"


def fmt_value(value: Any) -> str:
    r"""A config value as LaTeX: ints as is, floats shortest (``5e-05`` -> ``$5\times10^{-5}$``)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"${value}$"
    if isinstance(value, float):
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
            exponent = math.floor(math.log10(abs(value)))
            mantissa = round(value / 10**exponent, 6)
            mant = f"{mantissa:g}"
            return f"$10^{{{exponent}}}$" if mant == "1" else f"${mant}\\times10^{{{exponent}}}$"
        return f"${value:g}$"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt_value(v) for v in value)
    return escape(str(value))


def get(cfg: dict, dotted: str) -> Any:
    """``get(cfg, "algo.kl_beta")`` on a nested config dict; a missing key is an error."""
    value: Any = cfg
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"config has no key {dotted!r}")
        value = value[part]
    return value


ROLES = {"rl": ("rctp_rc", RL_PRESET), "sft": ("sft", SFT_PRESET), "rctp": ("rctp", RCTP_PRESET)}


def role_configs(resolve: Resolver | None = None) -> tuple[dict[str, dict], list[str]]:
    """(role -> resolved config dict, where each came from): a finished run's
    ``config.json`` when ``resolve`` finds one, else the preset."""
    from analysis.campaigns.presets import RL, STAGE1
    from rcgrpo.train.config import to_dict

    configs, sources = {}, []
    for role, (experiment, preset) in ROLES.items():
        runs = sorted(resolve(EXPERIMENTS[experiment])) if resolve is not None else []
        if runs:
            configs[role] = load_run(runs[0]).config
            sources.append(f"run \\code{{{runs[0].name}}}")
        else:
            configs[role] = to_dict((RL if role == "rl" else STAGE1)[preset])
            sources.append(f"preset \\code{{{preset}}}")
    return configs, sources


def tiny_parameters(preset: str = "tiny", vocab_size: int = 1024) -> int:
    """Parameters of a tiny Qwen2 preset (tied embeddings), counted on the meta device."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from rcgrpo.policy.models import PRESETS

    config = Qwen2Config(vocab_size=vocab_size, tie_word_embeddings=True, **PRESETS[preset])
    with torch.device("meta"):
        model = Qwen2ForCausalLM(config)
    return sum(p.numel() for p in model.parameters())


def setup_rows(configs: dict[str, dict]) -> list[list[str]]:
    """(quantity, paper, ours) rows from the role configs of :func:`role_configs`."""
    rl, sft, rctp = configs["rl"], configs["sft"], configs["rctp"]
    v = lambda cfg, key: fmt_value(get(cfg, key))  # noqa: E731
    millions = tiny_parameters() / 1e6
    synth = (
        f"synth suite (\\code{{{get(rl, 'tasks.synth_preset')}}}, "
        f"$\\leq{get(rl, 'tasks.max_turns')}$ turns $\\times$ "
        f"{get(rl, 'tasks.max_calls_per_turn')} calls) on the BFCL backends: "
        f"{v(rl, 'tasks.num_train')} train, {v(rl, 'tasks.num_eval')} held-out"
    )
    return [
        [
            "model",
            "Qwen2.5-7B-Instruct, Llama-3.1-8B-Instruct",
            f"tiny Qwen2 from scratch (${millions:.2f}$M parameters), BPE 1,024 tokens",
        ],
        ["RL / eval tasks", "BFCL multi-turn, 720 train / 80 test", synth],
        [
            "Stage 1 data",
            f"800 expert + 800 failures (Qwen2.5-7B, $\\tau={P.failure_temperature}$)",
            f"expert + failures of a weak SFT snapshot ({v(sft, 'sft.weak_snapshot_frac')} of "
            f"SFT, $\\tau=${v(rctp, 'failures.temperature')}), 1:1",
        ],
        ["Stage 1 episode modes", "multi-turn", v(sft, "sft.modes")],
        [
            "SFT lr / epochs / batch",
            f"{fmt_value(P.stage1_lr)} / {P.sft_epochs:g} / {P.stage1_batch}",
            f"{v(sft, 'optim.lr')} / {v(sft, 'sft.epochs')} / {v(sft, 'sft.batch_size')}",
        ],
        [
            "RCTP-FT lr / epochs / batch",
            f"{fmt_value(P.stage1_lr)} / {P.rctp_epochs:g} / {P.stage1_batch} (from the base model)",
            f"{v(rctp, 'optim.lr')} / {v(rctp, 'sft.epochs')} / {v(rctp, 'sft.batch_size')} "
            "(from the SFT checkpoint)",
        ],
        ["RL episode mode", P.rl_mode, v(rl, "tasks.mode")],
        ["group size $G$", str(P.group_size), v(rl, "rollout.group_size")],
        [
            "prompts per step",
            f"{P.prompts_per_step} (GRPO: {P.grpo_prompts_per_step})",
            v(rl, "rollout.prompts_per_step"),
        ],
        ["RL steps", str(P.rl_steps), v(rl, "run.steps")],
        [
            "RL learning rate",
            fmt_value(P.rl_lr),
            f"{v(rl, 'optim.lr')}, {v(rl, 'optim.warmup_steps')} warm-up steps",
        ],
        ["KL coefficient $\\beta$", str(P.kl_beta), v(rl, "algo.kl_beta")],
        ["clip $\\epsilon$", str(P.clip), f"{v(rl, 'algo.clip_low')} / {v(rl, 'algo.clip_high')}"],
        ["goal probability $p$", str(P.p_high), v(rl, "algo.p_high")],
        [
            "ratio $\\rho$",
            "trajectory, vs $\\piref$ (as printed)",
            f"{v(rl, 'algo.ratio')}, vs {v(rl, 'algo.ratio_against')}",
        ],
        ["advantage std", "population (ddof 0)", f"ddof {v(rl, 'algo.adv_ddof')}"],
        ["$\\epsstab$", "(unstated)", v(rl, "algo.eps_stab")],
        ["KL estimator", "(unstated)", v(rl, "algo.kl_estimator")],
        ["loss aggregation", "(unstated)", v(rl, "algo.loss_agg")],
        ["sampling temperature", "(unstated)", v(rl, "rollout.temperature")],
        ["evaluation", "80 test tasks, single runs", "greedy, high goal for RC runs"],
    ]


def setup_table(resolve: Resolver | None = None) -> str:
    """``setup_table.tex``: the paper's setup against ours (:func:`role_configs`)."""
    configs, sources = role_configs(resolve)
    return tabular(
        ["", "paper", "this reproduction"],
        setup_rows(configs),
        ["p{0.22\\linewidth}", "p{0.3\\linewidth}", "p{0.38\\linewidth}"],
        caption="Setup: the paper's values against ours. Our column is read from the resolved "
        f"configs of SFT ({sources[1]}), RCTP-FT ({sources[2]}) and RC-GRPO ({sources[0]}); "
        "the other Stage-2 runs change one value each (\\cref{sec:method}).",
        label="tab:setup",
        size="footnotesize",
    )
