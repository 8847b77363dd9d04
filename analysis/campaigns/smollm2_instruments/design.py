"""The runs of ``smollm2-instruments`` (``docs/protocols/smollm2-instruments.md``): the frozen
``smollm2-collapse`` Stage-1 recipe (:mod:`analysis.campaigns.smollm2_collapse.design`), trained
again in this study's own folders, ``runs/<home>`` and ``results/<home>``, home :data:`HOME`.

- ``sft-base2-s31``: gate B's retry base, its committed arguments retrained (on two threads);
- ``rctp-s31``: RCTP-FT from it, ``smollm2-collapse``'s recipe unchanged (two threads). Its light
  copy keeps ``final``, the checkpoint the instruments read.

The instruments are not trainer commands: :func:`transfer_command`. No matched SFT, pilot or RL
run belongs to this study.
"""

from __future__ import annotations

from dataclasses import replace

from analysis import REPO_ROOT
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec, results_dir
from analysis.campaigns.smollm2_collapse import design as frozen

ID = "smollm2-instruments"
HOME = "smollm2-instruments"
DESIGN_SEED = frozen.DESIGN_SEED
THREADS = ("--sft.threads", "2")


def _here(spec: RunSpec, runs: dict[RunSpec, RunSpec]) -> RunSpec:
    """``spec`` homed in this study, its checkpoints pointing at this study's runs."""
    argv = tuple(
        Checkpoint(runs[a.run], a.sub) if isinstance(a, Checkpoint) else a for a in spec.argv
    )
    return replace(spec, argv=argv, home=HOME)


def stage1() -> dict[str, RunSpec]:
    """``base`` and ``rctp`` (module docstring)."""
    old = frozen.stage1(retry=True)
    base = replace(old["base"], argv=(*old["base"].argv, *THREADS), home=HOME)
    rctp = replace(_here(old["rctp"], {old["base"]: base}), keep=("final",))
    return {"base": base, "rctp": rctp}


def build() -> Campaign:
    """Both Stage-1 runs, one experiment."""
    camp = Campaign()
    for spec in stage1().values():
        camp.add("stage1", spec)
    return camp


def experiments(camp: Campaign) -> list[str]:
    return list(camp.experiments)


DIAGNOSTIC = REPO_ROOT / "results" / "diagnostics" / "transfer-smol-inst-rctp-s31.json"
"""The goal-effect and transfer diagnostic of this study's RCTP-FT."""


def transfer_command() -> list[str]:
    """The frozen protocol's diagnostic (its sizes and sampling), on this study's RCTP-FT, with
    repository-relative paths (the report records them as given)."""
    command = frozen.transfer_command()
    init = results_dir(HOME) / "rctp-s31" / "final"
    command[command.index("--init") + 1] = str(init.relative_to(REPO_ROOT))
    command[command.index("--out") + 1] = str(DIAGNOSTIC.relative_to(REPO_ROOT))
    return command
