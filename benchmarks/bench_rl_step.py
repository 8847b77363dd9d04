"""One full RL step of a CPU preset: this checkout against a baseline commit, in one process.

The baseline is the package as of ``--baseline`` (default: the commit before the shared-prefix
passes and the lean rollout engine), extracted from git into a temporary folder under the name
``rcgrpo_base`` so both versions import side by side. Both runs start from the same checkpoint,
seed and config (``--preset``, 8 prompts x G 5 by default) and take their RL steps alternately
(the order flips every round, so drift on a shared machine hits both alike); the medians of the
phase times (rollout, ref pass, update; eval never runs) and their ratios are printed.

The compute floor is the step's model FLOPs after prefix sharing, divided by this core's measured
matmul throughput: each rollout token is forwarded once in the rollout (a group's shared prefix
once), once in the ref pass and once forward + twice backward in the update, at
2 * (matmul parameters) + 4 * layers * hidden * (mean context) FLOPs per token, plus the output
head (2 * hidden * vocab) where a log-prob is taken (the generated tokens).

    .venv/bin/python benchmarks/bench_rl_step.py [--init CKPT] [--preset cpu-rcgrpo]
        [--synth-preset SUITE] [--steps 4] [--baseline REV]

``--init`` defaults to the campaign's RCTP-FT seed-0 checkpoint (``runs/campaign`` or the
committed ``results/campaign``). One torch thread per run.
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import torch
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "e5606f0"
"""The last commit with the per-rollout teacher-forced passes and the previous engine."""
PHASES = ("rollout", "ref", "update")
INITS = ("runs/campaign/rctp-s0/final", "results/campaign/rctp-s0/final")


def extract_baseline(rev: str, into: Path) -> str:
    """``git archive`` the package at ``rev`` into ``into/rcgrpo_base`` with its imports renamed."""
    tar = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "rcgrpo"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    (into / "rcgrpo").rename(into / "rcgrpo_base")
    pattern = re.compile(r"\brcgrpo(?=[.\s])|(?<=[\"'])rcgrpo(?=\.)")
    for path in (into / "rcgrpo_base").rglob("*.py"):
        lines = path.read_text().splitlines(keepends=True)
        out = [
            pattern.sub("rcgrpo_base", ln) if re.match(r"\s*(from|import)\s", ln) else ln
            for ln in lines
        ]
        text = "".join(out).replace('"rcgrpo.', '"rcgrpo_base.')
        path.write_text(text)
    sys.path.insert(0, str(into))
    return "rcgrpo_base"


def _parse(package: str, argv: list[str]):
    """The resolved TrainConfig of ``package`` (its CLI moved between versions)."""
    try:
        cli = importlib.import_module(f"{package}.train.cli")
        return cli.parse_cli("train", argv)
    except ModuleNotFoundError:
        rl = importlib.import_module(f"{package}.train.rl")
        validate = importlib.import_module(f"{package}.train.validate")
        return validate.validate_config(rl.parse_cli(argv))


def make_run(package: str, args, root: Path):
    """An RL run of ``package`` (set up, step 0 not evaluated) and its ``rl_step``."""
    argv = [
        *("--preset", args.preset, "--init", str(args.init)),
        *("--run.root", str(root), "--run.name", package, "--run.seed", str(args.seed)),
        *("--run.steps", "100000", "--run.eval-every", "100000", "--run.log-every", "1"),
        *("--run.checkpoint-every", "0", "--run.no-tensorboard", "--run.no-progress"),
    ]
    if args.synth_preset:
        argv += ["--tasks.synth_preset", args.synth_preset]
    cfg = _parse(package, argv)
    try:  # the RL modules as a package (train/rl/) or, in older versions, flat files
        setup = importlib.import_module(f"{package}.train.rl.setup").setup
        step = importlib.import_module(f"{package}.train.rl.loop").rl_step
    except ModuleNotFoundError:
        setup = importlib.import_module(f"{package}.train.rl_setup").setup
        step = importlib.import_module(f"{package}.train.rl").rl_step
    return setup(cfg), step


def matmul_gflops(repeats: int = 30) -> float:
    """Single-thread fp32 GFLOP/s of a [256, 192] x [192, 512] matmul (the tiny MLP's shape)."""
    a, b = torch.randn(256, 192), torch.randn(192, 512)
    for _ in range(5):
        a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return 2 * 256 * 192 * 512 * repeats / (time.perf_counter() - start) / 1e9


class PassRecorder:
    """Records the groups of the new path's ref pass (prefix K, row lengths, scored tokens)."""

    def __init__(self) -> None:
        from rcgrpo.train.rl import update

        self.groups: list[tuple[int, list[int], int]] = []
        original = update._group_forward

        def recording(model, rollouts, rows, temperature, entropy, micro):
            forward = original(model, rollouts, rows, temperature, entropy, micro)
            if entropy == "none":  # the ref pass: one call per group and step
                lengths = [int(ids.numel()) for ids in forward.ids]
                scored = sum(int(m[1:].sum()) for m in forward.masks)
                self.groups.append((forward.prefix, lengths, scored))
            return forward

        update._group_forward = recording

    def flops(self, config, matmul_params: int) -> float:
        """FLOPs of the recorded groups over the rollout, ref and update passes; clears them."""
        total = 0.0
        for prefix, lengths, scored in self.groups:
            tokens = sum(lengths) - prefix * (len(lengths) - 1)
            context = sum(lengths) / len(lengths) / 2
            attention = 4 * config.num_hidden_layers * config.hidden_size * context
            head = 2 * config.hidden_size * config.vocab_size * scored
            total += (1 + 1 + 3) * (tokens * (2 * matmul_params + attention) + head)
        self.groups.clear()
        return total


def matmul_parameters(model) -> int:
    """Parameters used in matmuls per token (2-D weights, without the embedding lookup)."""
    cfg = model.config
    matmul = sum(p.numel() for p in model.parameters() if p.dim() == 2)
    untied_head = 0 if cfg.tie_word_embeddings else cfg.vocab_size * cfg.hidden_size
    # the input embedding is a lookup; the head is counted where a log-prob is taken
    return matmul - cfg.vocab_size * cfg.hidden_size - untied_head


def run_arguments(description: str) -> argparse.ArgumentParser:
    """The options every RL-step benchmark shares: ``--init``, ``--preset``, ``--seed``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--init", type=Path, default=None)
    parser.add_argument("--preset", default="cpu-rcgrpo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--synth-preset", default="", help="the task suite (default: the preset's own)"
    )
    return parser


def resolve_init(args: argparse.Namespace) -> None:
    """``args.init``, or the first of :data:`INITS` that exists (exits if none does)."""
    args.init = args.init or next((ROOT / p for p in INITS if (ROOT / p).is_dir()), None)
    if args.init is None:
        sys.exit(f"no checkpoint: pass --init (looked for {', '.join(INITS)})")


def main() -> None:
    parser = run_arguments(__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4, help="timed steps per version")
    parser.add_argument("--baseline", default=BASELINE)
    args = parser.parse_args()
    resolve_init(args)
    torch.set_num_threads(1)
    tmp = Path(tempfile.mkdtemp(prefix="bench_rl_step_"))
    versions = {"baseline": extract_baseline(args.baseline, tmp / "src"), "new": "rcgrpo"}
    runs = {name: make_run(pkg, args, tmp / "runs") for name, pkg in versions.items()}
    times = {name: {p: [] for p in (*PHASES, "step")} for name in runs}
    recorder, floors = PassRecorder(), []
    model = runs["new"][0].model
    for step in range(1, args.steps + 2):  # step 1 warms up (allocator, kernels)
        order = list(runs) if step % 2 else list(runs)[::-1]
        for name in tqdm(order, desc=f"step {step}", leave=False):
            run, rl_step = runs[name]
            metrics = rl_step(run, step)
            if step == 1:
                continue
            for phase in PHASES:
                times[name][phase].append(metrics[f"perf/time_{phase}_s"])
            times[name]["step"].append(metrics["perf/time_step_s"])
        floors.append(recorder.flops(model.config, matmul_parameters(model)))
    med = {n: {p: statistics.median(v) for p, v in t.items()} for n, t in times.items()}
    print(f"RL step, preset {args.preset}, init {args.init}, 1 thread, median of {args.steps}")
    print(f"{'phase':10s} {'baseline s':>11s} {'new s':>8s} {'speed-up':>9s}")
    for phase in (*PHASES, "step"):
        b, n = med["baseline"][phase], med["new"][phase]
        print(f"{phase:10s} {b:11.2f} {n:8.2f} {b / n:8.2f}x")
    b = med["baseline"]["ref"] + med["baseline"]["update"]
    n = med["new"]["ref"] + med["new"]["update"]
    print(f"{'ref+update':10s} {b:11.2f} {n:8.2f} {b / n:8.2f}x")
    gflops = matmul_gflops()
    floor = statistics.mean(floors[1:])
    floor_s = floor / gflops / 1e9
    print(
        f"compute floor: {floor / 1e9:.1f} GFLOP per step at {gflops:.1f} GFLOP/s "
        f"(one core, fp32 matmul) = {floor_s:.2f} s; new step = {med['new']['step']:.2f} s "
        f"({floor_s / med['new']['step']:.0%} of the floor's speed)"
    )


if __name__ == "__main__":
    main()
