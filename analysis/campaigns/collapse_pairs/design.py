"""The design runs of ``collapse-pairs`` (``docs/protocols/collapse-pairs.md``): per variant and
design seed, the minimal-pair RCTP-FT, its matched SFT and the two 50-step pilots of gates C and
C′. Trained in ``runs/<home>`` and committed under ``results/<home>``, home :data:`HOME`.

- ``rctp-<v>-s<seed>``: ``rctp-collapse`` from the seed's collapse SFT (the base), its non-swap
  tasks 1:1 with the base's own failures as ``rctp-collapse`` builds them, the swap tasks left out
  but for ``failures.pairs`` minimal pairs per swap kind;
- ``sft-<v>-s<seed>``: the matched SFT, from the same base, on exactly that mix's reward-1 rows
  (``sft.successes_of``; the mix's ``mix/`` folder), with RCTP-FT's recipe (:data:`MATCHED`), so
  each row is seen as often and only the failure rows and the labels differ;
- ``pilot-c-<v>-s<seed>``: ``collapse-grpo`` (G = 5) from the matched SFT, 50 steps (gate C);
- ``pilot-cprime-<v>-s<seed>``: ``collapse-rctp-grpo`` from the RCTP-FT, 50 steps (gate C′).

Gate R and ρ come from ``python -m analysis.diagnostics.transfer`` on the RCTP-FT checkpoint
(:func:`transfer_command`), read by :mod:`analysis.campaigns.collapse_pairs.gates`.
"""

from __future__ import annotations

from analysis import REPO_ROOT
from analysis.campaign import mechanics as cp
from analysis.campaign.config import pinned
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec

ID = "collapse-pairs"
HOME = "collapse-pairs"
DESIGN_SEEDS = (31, 32)
VARIANTS: dict[str, int] = {"p1": 50, "p2": 150, "p3": 450}
"""Minimal pairs per swap kind of each dose variant (P4, the loss weight, is added only if none
of these passes at seed 31, as the protocol says: :data:`P4_WEIGHT`,
:func:`analysis.campaigns.collapse_pairs.gates.p4_dose`)."""
P4_WEIGHT = 4.0
"""P4's ``failures.pair_weight``: the loss weight on each pair's decision tokens."""
BASE = {31: "results/collapse/sft-c2-s31/final", 32: "results/collapse/sft-c2-s32/final"}
"""The design seeds' collapse SFT (variant 2 of the collapse design, the ``sft-collapse``
recipe), committed: the base both Stage-1 runs start from."""
MATCHED = (
    ("--sft.demonstrations", "expert"),
    ("--sft.random_goals", "0"),
    ("--sft.epochs", "4"),
    ("--sft.batch_size", "16"),
    ("--sft.schedule", "cosine"),
    ("--sft.prompt_loss_weight", "0"),
    ("--optim.lr", "5e-4"),
    ("--optim.betas", "0.9", "0.999"),
)
"""The ``sft-collapse`` fields set to ``rctp-collapse``'s values (a test checks they agree)."""
PILOT_STEPS = 50


def stage1(variant: str, seed: int, p4_pairs: int | None = None) -> dict[str, RunSpec]:
    """The variant's RCTP-FT and matched SFT at ``seed`` (module docstring); variant ``p4``
    takes its dose ``p4_pairs`` (:func:`~analysis.campaigns.collapse_pairs.gates.p4_dose`) and
    :data:`P4_WEIGHT` on the decision tokens."""
    if variant == "p4":
        if p4_pairs is None:
            raise ValueError("variant p4 needs its dose (gates.p4_dose)")
        pairs, weight = p4_pairs, ("--failures.pair_weight", str(P4_WEIGHT))
    else:
        pairs, weight = VARIANTS[variant], ()
    base = BASE[seed]
    argv = ("rctp", "--preset", "rctp-collapse", "--run.seed", str(seed), "--model.path", base)
    argv += ("--failures.policy", base, "--failures.pairs", str(pairs))
    argv += ("--failures.skip_keep", "0", *weight)
    rctp = RunSpec(f"rctp-{variant}-s{seed}", argv, pin=pinned, home=HOME)
    sft_argv = ("sft", "--preset", "sft-collapse", "--run.seed", str(seed), "--model.path", base)
    sft_argv += ("--sft.successes_of", Checkpoint(rctp, "mix"))
    sft_argv += tuple(x for flag in MATCHED for x in flag)
    sft = RunSpec(f"sft-{variant}-s{seed}", sft_argv, pin=pinned, home=HOME)
    return {"rctp": rctp, "sft": sft}


def pilots(variant: str, seed: int, runs: dict[str, RunSpec]) -> dict[str, RunSpec]:
    """The 50-step pilots of gates C (from the matched SFT) and C′ (from the RCTP-FT)."""
    out = {}
    for gate, preset, start in (
        ("c", "collapse-grpo", runs["sft"]),
        ("cprime", "collapse-rctp-grpo", runs["rctp"]),
    ):
        argv = ("train", "--preset", preset, "--run.seed", str(seed), "--init", Checkpoint(start))
        argv += ("--run.steps", str(PILOT_STEPS), "--run.eval_every", str(PILOT_STEPS))
        out[gate] = RunSpec(f"pilot-{gate}-{variant}-s{seed}", argv, pin=pinned, home=HOME)
    return out


def build(dose: int | None = None) -> Campaign:
    """Every design run: per variant, seed 31 then 32; the pilots after their Stage 1. P4 is
    a variant only with its ``dose``, once the gates decide it
    (:func:`analysis.campaigns.collapse_pairs.gates.p4_dose`: P1–P3 measured at seed 31 and none
    passing; the campaign's entry passes it)."""
    camp = Campaign()
    for variant in [*VARIANTS, *(["p4"] if dose is not None else [])]:
        for seed in DESIGN_SEEDS:
            runs = stage1(variant, seed, dose)
            for spec in runs.values():
                camp.add(f"design-{variant}", spec)
            for spec in pilots(variant, seed, runs).values():
                camp.add(f"design-{variant}", spec)
    return camp


def experiments(camp: Campaign) -> list[str]:
    """The design experiments in the protocol's order (P1, P2, P3, then P4 if decided)."""
    return list(camp.experiments)


def transfer_command(variant: str, seed: int, dose: int | None = None) -> list[str]:
    """The goal-effect and transfer diagnostic of the variant's RCTP-FT (gate R and ρ); P4
    needs its ``dose`` as :func:`stage1`."""
    run = f"rctp-{variant}-s{seed}"
    folder = cp.locate(stage1(variant, seed, dose)["rctp"]) or REPO_ROOT / "results" / HOME / run
    out = REPO_ROOT / "results" / "diagnostics" / f"transfer-{run}.json"
    return [
        "python",
        "-m",
        "analysis.diagnostics.transfer",
        "--init",
        str(folder / "final"),
        "--synth-preset",
        "collapse1-d10",
        "--seed",
        str(seed),
        "--tasks",
        "200",
        "--samples",
        "32",
        "--batches",
        "8",
        "--out",
        str(out),
    ]
