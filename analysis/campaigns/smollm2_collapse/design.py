"""The runs of ``smollm2-collapse`` (``docs/protocols/smollm2-collapse.md``): one matched Stage 1
of SmolLM2-135M-Instruct with LoRA at the design seed, the premise pilot, and the four RL arms on
the campaign's seeds, in the protocol's parts. Trained in ``runs/<home>`` and committed under
``results/<home>``, home :data:`HOME`.

- ``sft-base-s31``: ``quick-sft-smol`` at the study's size, one epoch on the demonstrator's
  trajectories of the first :data:`BASE_TASKS` training tasks (``sft-base2-s31``: gate B's one
  registered retry, two epochs);
- ``rctp-s31``: ``quick-rctp-smol`` from the base, the ``rctp-collapse`` mix at :data:`MIX_TASKS`
  tasks (the four swap kinds left out but for 1%, the base's own failures at τ = 1, 1:1), two
  epochs, on two threads;
- ``sft-matched-s31``: the matched SFT, from the base, on exactly that mix's reward-1 rows
  (``sft.successes_of``, the mix's ``mix/`` folder) with RCTP-FT's recipe;
- ``pilot-sft-grpo-s31``: ``smol-grpo`` from the matched SFT, :data:`PILOT_STEPS` steps (gate C);
- ``<arm>-s<seed>``: the arms of :data:`ARMS` on :data:`SEEDS`, ``smol-grpo`` / ``smol-rcgrpo``.

The RL runs' light copies keep every conversation (``RunSpec.conversations``): what the real
model writes is what notebook 04 reads, and a 40-step run's messages are a few hundred kB
compressed.

The transfer diagnostic of gates R and ρ is not a trainer command: :func:`transfer_command`.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis import REPO_ROOT
from analysis.campaign.config import pinned
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec, results_dir

ID = "smollm2-collapse"
HOME = "smollm2-collapse"
DESIGN_SEED = 31
SEEDS = (3, 4, 5)
"""The RL seeds (the collapse campaign's first three); the design seed never counts."""
SWAP_KINDS = ("rename_copy", "resolve_close", "comment_post", "delete_view")
"""The planted swap kinds of ``collapse1-d10``, left out of the RCTP-FT mix but for 1%."""
BASE_TASKS = 320
MIX_TASKS = 128
EVAL_TASKS = 80
"""Held-out tasks of every Stage-1 evaluation and of an RL run's first and last evaluation."""
REPLY_TOKENS = 96
"""Cap per assistant message (the longest expert reply is 93 SmolLM2 tokens)."""
PILOT_STEPS = 20
PILOT_EVAL = 20
SPEED_STEPS = (10, 20, 30)
"""The evaluations whose mean is the learning speed (the first 40 held-out tasks)."""
FINAL_STEP = 40

_STAGE1 = (
    "--run.seed",
    str(DESIGN_SEED),
    "--tasks.num_eval",
    str(EVAL_TASKS),
    "--sft.batch_size",
    "4",
    "--sft.eval_max_new_tokens",
    str(REPLY_TOKENS),
    "--optim.warmup_steps",
    "4",
    "--run.steps",
    "0",
    "--run.checkpoint_every",
    "20",
)
"""Every Stage-1 run's sizes over its quick-*-smol preset (the protocol's Stage 1)."""


def base(retry: bool = False) -> RunSpec:
    """The base: one epoch on the demonstrator (``retry``: gate B's registered retry, two)."""
    name = "sft-base2-s31" if retry else "sft-base-s31"
    argv = ("sft", "--preset", "quick-sft-smol", *_STAGE1)
    argv += ("--tasks.num_train", str(BASE_TASKS), "--sft.epochs", "2" if retry else "1")
    return RunSpec(name, argv, pin=pinned, home=HOME)


def stage1(retry: bool = False) -> dict[str, RunSpec]:
    """The base, RCTP-FT and the matched SFT (module docstring)."""
    start = base(retry)
    from_base = ("--model.path", Checkpoint(start))
    argv = ("rctp", "--preset", "quick-rctp-smol", *_STAGE1, *from_base)
    argv += ("--failures.policy", Checkpoint(start), "--tasks.num_train", "2000")
    argv += ("--failures.num_tasks", str(MIX_TASKS), "--failures.skip_decisions", *SWAP_KINDS)
    argv += ("--failures.skip_keep", "0.01", "--failures.max_rounds", "3")
    argv += ("--failures.max_new_tokens", str(REPLY_TOKENS), "--sft.epochs", "2")
    rctp = RunSpec("rctp-s31", (*argv, "--sft.threads", "2"), pin=pinned, home=HOME)
    argv = ("sft", "--preset", "quick-sft-smol", *_STAGE1, *from_base)
    argv += ("--sft.successes_of", Checkpoint(rctp, "mix"), "--tasks.num_train", "2000")
    argv += ("--sft.demonstrations", "expert", "--sft.epochs", "2")
    sft = RunSpec("sft-matched-s31", argv, pin=pinned, home=HOME)
    return {"base": start, "rctp": rctp, "sft": sft}


def pilot(runs: dict[str, RunSpec]) -> RunSpec:
    """Gate C's pilot: SFT + GRPO from the matched SFT, :data:`PILOT_STEPS` steps."""
    argv = ("train", "--preset", "smol-grpo", "--run.seed", str(DESIGN_SEED))
    argv += ("--init", Checkpoint(runs["sft"]), "--run.steps", str(PILOT_STEPS))
    argv += ("--run.eval_every", str(PILOT_STEPS), "--tasks.num_eval", str(PILOT_EVAL))
    argv += ("--tasks.num_eval_between", "0")
    return RunSpec(
        f"pilot-sft-grpo-s{DESIGN_SEED}", argv, pin=pinned, home=HOME, conversations=True
    )


@dataclass(frozen=True)
class Arm:
    """One RL arm: its run-name prefix, the Stage-1 run it starts from, its preset and flags."""

    name: str
    start: str
    """A key of :func:`stage1`: ``rctp`` or ``sft``."""
    argv: tuple[str, ...]
    label: str


ARMS: tuple[Arm, ...] = (
    Arm(
        "smol-rctp-grpo",
        "rctp",
        ("--preset", "smol-grpo", "--algo.conditioning", "high", "--algo.eval_condition", "high"),
        "RCTP-FT + GRPO",
    ),
    Arm("smol-rcgrpo", "rctp", ("--preset", "smol-rcgrpo"), "RC-GRPO"),
    Arm("smol-sft-grpo", "sft", ("--preset", "smol-grpo"), "SFT + GRPO"),
    Arm(
        "smol-rcgrpo-anchored",
        "rctp",
        ("--preset", "smol-rcgrpo", "--algo.no-low-goal-gradient"),
        "anchored low mode",
    ),
)
"""The arms in the protocol's priority order."""
ARM = {a.name: a for a in ARMS}


def rl(arm: Arm, seed: int, runs: dict[str, RunSpec]) -> RunSpec:
    """``arm`` on ``seed`` from its Stage-1 checkpoint."""
    argv = ("train", *arm.argv, "--run.seed", str(seed), "--init", Checkpoint(runs[arm.start]))
    return RunSpec(f"{arm.name}-s{seed}", argv, pin=pinned, home=HOME, conversations=True)


PARTS: tuple[tuple[str, ...], ...] = (
    ("sft-base-s31",),
    ("rctp-s31",),
    ("sft-matched-s31", "pilot-sft-grpo-s31"),
    *((f"smol-rctp-grpo-s{s}", f"smol-rcgrpo-s{s}") for s in SEEDS),
    ("smol-sft-grpo-s3", "smol-sft-grpo-s4"),
    ("smol-sft-grpo-s5", "smol-rcgrpo-anchored-s3"),
    ("smol-rcgrpo-anchored-s4", "smol-rcgrpo-anchored-s5"),
)
"""The protocol's parts 1–9, by run name (part 3 also runs :func:`transfer_command`)."""
MAIN_PART = 3
"""Parts from this index on (0-based: part 4) are the main RL runs, after the gates."""


def build(retry: bool = False) -> Campaign:
    """Every run: Stage 1 from the base (gate B's retry base if ``retry``; both bases are in
    the campaign, the retry trained only when gate B calls for it), the pilot, then each arm on
    every seed, one experiment per arm in priority order."""
    camp, runs = Campaign(), stage1(retry)
    for spec in (base(False), base(True), runs["rctp"], runs["sft"]):
        camp.add("stage1", spec)
    camp.add("pilot", pilot(runs))
    for arm in ARMS:
        for seed in SEEDS:
            camp.add(arm.name, rl(arm, seed, runs))
    return camp


def experiments(camp: Campaign) -> list[str]:
    """The experiments in the protocol's order."""
    return list(camp.experiments)


DIAGNOSTIC = REPO_ROOT / "results" / "diagnostics" / "transfer-smol-rctp-s31.json"
"""The transfer diagnostic of the RCTP-FT checkpoint (gates R and ρ)."""


def transfer_command() -> list[str]:
    """The goal-effect and transfer diagnostic of RCTP-FT, as the protocol fixes it."""
    final = results_dir(HOME) / "rctp-s31" / "final"
    return [
        *("python", "-m", "analysis.diagnostics.transfer", "--init", str(final)),
        *("--synth-preset", "collapse1-d10", "--preset", "smol-rcgrpo"),
        *("--seed", str(DESIGN_SEED), "--tasks", "50", "--samples", "8"),
        *("--batches", "4", "--prompts", "4", "--out", str(DIAGNOSTIC)),
    ]
