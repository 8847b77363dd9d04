"""Command-line entry point: ``python -m rcgrpo <subcommand> [options]``.

Each subcommand lives in its own module and is imported lazily, so ``version`` and
``--help`` stay fast. A subcommand module exposes ``main(argv: list[str]) -> int`` and
parses its own options (tyro dataclass configs).
"""

from __future__ import annotations

import importlib
import sys

# name -> (module, one-line help). Modules are imported only when their command runs.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "version": ("rcgrpo.cli_version", "print the package and key dependency versions"),
    "metrics": ("rcgrpo.metrics_cli", "print the metric registry (--markdown: the docs table)"),
    "docs": ("rcgrpo.docs_cli", "rewrite the generated blocks of docs/ (--check: exit 1 if stale)"),
    "eval": ("rcgrpo.policy.evaluate", "evaluate a checkpoint: reward, bfcl_valid with 95% CIs"),
    "sft": ("rcgrpo.train.stage1.sft", "Stage 1: supervised fine-tuning on expert trajectories"),
    "rctp": (
        "rcgrpo.train.stage1.rctp",
        "Stage 1: RCTP-FT on a 1:1 success/failure mix (reward goals)",
    ),
    "train": (
        "rcgrpo.train.rl.loop",
        "Stage 2: GRPO / RC-GRPO and collapse baselines (torchrun-ready)",
    ),
    "trl": ("rcgrpo.integrations.trl_cli", "Stage 2 on TRL's GRPOTrainer (rcgrpo[trl] extra)"),
    "diagnose": ("rcgrpo.diagnose.cli", "collapse report of any GRPO run's rollout records"),
}


CONFIGURED = ("sft", "rctp", "train")
"""Subcommands whose options are a config (:func:`rcgrpo.train.cli.parse_cli`): checked before
their module is imported (checking a config loads no model code), so a wrong key or value is
one line in about two seconds; the module parses the same argv again when it runs."""


def _parsed(config: object) -> int:
    """Exit code 0: the config parsed (a config error is raised before this returns)."""
    return 0


def _usage() -> str:
    lines = ["usage: python -m rcgrpo <subcommand> [options]", "", "subcommands:"]
    width = max(len(n) for n in SUBCOMMANDS)
    for name, (_, text) in SUBCOMMANDS.items():
        lines.append(f"  {name:<{width}}  {text}")
    lines.append("")
    lines.append("Run 'python -m rcgrpo <subcommand> --help' for the options of one subcommand.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f"rcgrpo: unknown subcommand {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    from rcgrpo.train.cli import parse_cli, run_command  # config error -> 2, non-finite stop -> 3

    if name in CONFIGURED:  # the config first: a bad key is answered before the model code loads
        status = run_command(name, lambda: _parsed(parse_cli(name, rest)))
        if status:
            return status
    module = importlib.import_module(SUBCOMMANDS[name][0])
    return run_command(name, lambda: module.main(rest))


if __name__ == "__main__":
    sys.exit(main())
