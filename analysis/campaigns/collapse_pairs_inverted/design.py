"""The runs of ``collapse-pairs-inverted`` (``docs/protocols/collapse-pairs-map.md``, part 2): the
positive control. Trained in ``runs/<home>`` and committed under ``results/<home>``, home
:data:`HOME`.

- ``rctp-inv-s<seed>``: P4's recipe of ``collapse-pairs`` (``rctp-collapse``, its dose of
  minimal pairs per swap kind, decision tokens ×4, ``failures.skip_keep 0``) with
  ``failures.pair_labels inverted``, from the seed's collapse SFT (:func:`base`), failures
  sampled from it;
- per admitted seed, the three arms of :data:`ARMS`, 200 steps as the collapse campaign, from it.

The premise's diagnostic (gate I) is ``python -m analysis.diagnostics.transfer`` on the RCTP-FT
(:func:`transfer_command`), the registered prediction
``python -m analysis.campaigns.collapse_pairs_inverted.prediction`` (:func:`prediction_command`).
"""

from __future__ import annotations

from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign import mechanics as cp
from analysis.campaign.config import pinned
from analysis.campaign.mechanics import Campaign, Checkpoint, RunSpec
from analysis.campaigns.collapse_pairs.design import P4_WEIGHT

ID = "collapse-pairs-inverted"
HOME = "collapse-pairs-inverted"
SEEDS = (3, 4, 5)
"""The seeds taken first, in order."""
SPARES = (6, 11)
"""The seeds that replace one whose gate fails, in order (the collapse campaign's other seeds)."""
ADMIT = 3
"""Seeds the arms run on: the first this many, in :data:`SEEDS` then :data:`SPARES` order, whose
gate holds."""
ARMS = {
    "inv-rctp-grpo": "collapse-rctp-grpo",
    "inv-rcgrpo": "collapse-rcgrpo",
    "inv-rcgrpo-anchored": "collapse-rcgrpo-anchored",
}
"""Arm (run-name prefix) -> the collapse campaign's preset it runs as it is."""
DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"


def base(seed: int) -> str:
    """The seed's collapse SFT, committed: the base of its inverted RCTP-FT."""
    return f"results/collapse/sft-collapse-s{seed}/final"


def stage1(seed: int, pairs: int) -> RunSpec:
    """``rctp-inv-s<seed>`` with ``pairs`` minimal pairs per swap kind (P4's dose)."""
    argv = ("rctp", "--preset", "rctp-collapse", "--run.seed", str(seed))
    argv += ("--model.path", base(seed), "--failures.policy", base(seed))
    argv += ("--failures.pairs", str(pairs), "--failures.skip_keep", "0")
    argv += ("--failures.pair_weight", str(P4_WEIGHT), "--failures.pair_labels", "inverted")
    return RunSpec(f"rctp-inv-s{seed}", argv, pin=pinned, home=HOME)


def arms(seed: int, start: RunSpec) -> dict[str, RunSpec]:
    """The three arms at ``seed`` from ``start``, each its collapse preset as it is."""
    out = {}
    for arm, preset in ARMS.items():
        argv = ("train", "--preset", preset, "--run.seed", str(seed), "--init", Checkpoint(start))
        out[arm] = RunSpec(f"{arm}-s{seed}", argv, pin=pinned, home=HOME)
    return out


def build(pairs: int) -> Campaign:
    """Every run: ``stage1`` (every seed, spares last), then ``arms`` (every seed)."""
    camp = Campaign()
    seeds = (*SEEDS, *SPARES)
    starts = {s: stage1(s, pairs) for s in seeds}
    for s in seeds:
        camp.add("stage1", starts[s])
    for s in seeds:
        for spec in arms(s, starts[s]).values():
            camp.add("arms", spec)
    return camp


def experiments(camp: Campaign) -> list[str]:
    """``stage1`` then ``arms``."""
    return list(camp.experiments)


def report_path(seed: int, diagnostics: Path = DIAGNOSTICS) -> Path:
    """The gate I diagnostic of ``rctp-inv-s<seed>``."""
    return diagnostics / f"transfer-rctp-inv-s{seed}.json"


def prediction_path(seed: int, diagnostics: Path = DIAGNOSTICS) -> Path:
    """The registered prediction of ``seed``."""
    return diagnostics / f"prediction-{ID}-s{seed}.json"


def transfer_command(seed: int, pairs: int) -> list[str]:
    """The goal-effect and transfer diagnostic of ``rctp-inv-s<seed>`` (gate I, the coupling),
    with the sizes of ``collapse-pairs``' gate R."""
    spec = stage1(seed, pairs)
    folder = cp.locate(spec) or REPO_ROOT / "results" / HOME / spec.name
    return [
        *("python", "-m", "analysis.diagnostics.transfer", "--init", str(folder / "final")),
        *("--synth-preset", "collapse1-d10", "--seed", str(seed), "--tasks", "200"),
        *("--samples", "32", "--batches", "8", "--out", str(report_path(seed))),
    ]


def prediction_command(seed: int) -> list[str]:
    """The registered prediction's command for ``seed``."""
    return [
        "python",
        "-m",
        "analysis.campaigns.collapse_pairs_inverted.prediction",
        "--seed",
        str(seed),
    ]
