"""The conversations of a committed campaign run, regenerated exactly and checked.

The light copies in ``results/campaign/`` keep each RL run's per-rollout table
(``rollouts.jsonl``: task, goal, reward, lengths, number of calls, failure reason, advantage)
but not its messages (``conversations.jsonl``, ~6 MB a run of 200 steps), and no RL checkpoint,
so the text of a rollout cannot be read back from anything committed. It can be regenerated: an
RL run is a deterministic function of its command (``campaign.json``), its starting Stage-1
checkpoint (committed) and the code that trained it (the commit in its ``summary.json``; the
code of today draws other samples, e.g. since the engine's inverse-CDF draws). :func:`rerun`
trains the first ``steps`` steps again with that code (``git archive`` of the commit, one torch
thread, as the campaign ran it) and :func:`mismatches` compares the re-run's per-rollout table
with the committed one, every field of every row of those steps. Only when nothing differs does
:func:`write_sample` commit the re-run's messages, as ``conversations.jsonl.gz`` next to the
table, with ``conversations.source.json`` saying how it was made;
:attr:`analysis.runs.Run.conversations` reads it. The text is then the model's own messages of
the committed rollouts, not a look-alike sample.

``python -m analysis.campaigns.pool.conversation_sample RUN ... [--steps 25] [--work DIR]`` (a re-run in
``DIR/RUN`` that already reached ``steps`` is reused).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from analysis.campaign.mechanics import RESULTS, ROOT, recorded_spec
from analysis.runs import SAMPLE_CONVERSATIONS, SAMPLE_SOURCE, load_run

DEFAULT_STEPS = 25
"""Steps regenerated per run: the campaign's first evaluation interval (it evaluates every 25
steps); ~10 CPU minutes a run on a quiet core."""


def trained_at(name: str) -> str:
    """The commit whose code trained committed run ``name`` (without a ``-dirty`` mark)."""
    return load_run(RESULTS / name).summary["code"]["git"].split("-")[0]


def campaign_argv(name: str, steps: int) -> list[str]:
    """The run's campaign command (``campaign.json``) with ``--run.steps steps``."""
    spec = recorded_spec(RESULTS / name)
    if spec is None:
        raise FileNotFoundError(f"{RESULTS / name} has no readable campaign spec")
    argv = list(spec["argv"])
    argv[argv.index("--run.steps") + 1] = str(steps)
    return argv


def rerun_argv(name: str, steps: int, root: Path) -> list[str]:
    """:func:`campaign_argv` with its init in ``results/campaign`` and the run in ``root``."""
    argv = campaign_argv(name, steps)
    init = argv.index("--init") + 1
    argv[init] = str(RESULTS / argv[init])
    return [*argv, "--run.root", str(root), "--run.name", name]


def rerun(name: str, steps: int, work: Path) -> Path:
    """``work/name``: the first ``steps`` steps of committed run ``name``, trained again with
    the code of :func:`trained_at` (reused when a re-run there reached ``steps``)."""
    out = work / name
    if out.is_dir():
        table = load_run(out).rollouts
        if not table.empty and table["step"].max() >= steps:
            return out
        shutil.rmtree(out)
    commit = trained_at(name)
    code = work / f"code-{commit[:12]}"
    if not code.is_dir():
        code.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "rcgrpo"], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(code)], input=archive.stdout, check=True)
    env = {**os.environ, "PYTHONPATH": str(code), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["TOKENIZERS_PARALLELISM"] = "false"
    command = ["nice", "-n", "10", sys.executable, "-m", "rcgrpo", *rerun_argv(name, steps, work)]
    with open(work / f"{name}.log", "w") as log:
        subprocess.run(command, cwd=work, env=env, stdout=log, stderr=log, check=True)
    return out


def mismatches(name: str, rerun_folder: Path, steps: int) -> tuple[int, int]:
    """(rows compared, rows that differ in any field) between the committed per-rollout table
    of ``name`` and the re-run's, over steps 1..``steps``."""
    committed = load_run(RESULTS / name).rollouts
    again = load_run(rerun_folder).rollouts
    old = committed[committed["step"] <= steps].reset_index(drop=True)
    new = again[again["step"] <= steps].reset_index(drop=True)
    if list(old.columns) != list(new.columns) or len(old) != len(new):
        return len(old), max(len(old), len(new))
    differ = ~((old == new) | (old.isna() & new.isna())).all(axis=1)
    return len(old), int(differ.sum())


def _per_task(evals: dict, name: str, condition: str) -> list | None:
    return evals.get(name, {}).get("conditions", {}).get(condition, {}).get("per_task")


def eval_mismatches(name: str, rerun_folder: Path, steps: int) -> tuple[int, int]:
    """(held-out evaluations compared, those that differ): per condition, the per-task results
    of ``eval/step_N.json`` for N <= ``steps`` of the committed run against the re-run's (the
    greedy evaluation of the re-trained weights)."""
    committed, again = load_run(RESULTS / name).evals, load_run(rerun_folder).evals
    keys = [
        (k, c)
        for k in committed
        if int(k.removeprefix("step_")) <= steps
        for c in committed[k]["conditions"]
    ]
    differ = [key for key in keys if _per_task(committed, *key) != _per_task(again, *key)]
    return len(keys), len(differ)


def write_sample(name: str, rerun_folder: Path, steps: int) -> Path:
    """Commit the re-run's conversations of steps 1..``steps`` next to the table of ``name``
    (raises when :func:`mismatches` finds any difference)."""
    compared, differ = mismatches(name, rerun_folder, steps)
    if differ or not compared:
        raise RuntimeError(
            f"{name}: the re-run's rollout table differs from the committed one in {differ} of "
            f"{compared} rows (steps 1..{steps}): its messages are not those of the committed run"
        )
    evals, eval_differ = eval_mismatches(name, rerun_folder, steps)
    if eval_differ:
        raise RuntimeError(f"{name}: {eval_differ} of {evals} held-out evaluations differ")
    conv = load_run(rerun_folder).conversations  # a torn last line of a stopped run is skipped
    rows = conv[conv["step"] <= steps].to_dict("records")
    if len(rows) != compared:
        raise RuntimeError(f"{name}: {len(rows)} conversations for {compared} rollouts")
    lines = [json.dumps(row) for row in rows]
    dest = RESULTS / name
    (dest / SAMPLE_CONVERSATIONS).write_bytes(
        gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
    )
    argv = campaign_argv(name, steps)
    source = {
        "kind": "rerun",
        "steps": [1, steps],
        "rows": len(lines),
        "code": trained_at(name),
        "argv": argv,
        "init": str((RESULTS / argv[argv.index("--init") + 1]).relative_to(ROOT)),
        "checked": (
            f"the re-run's rollouts.jsonl equals the committed one in every field of all "
            f"{compared} rows of steps 1..{steps}, and its held-out evaluations of steps 0..{steps} "
            f"({evals} evaluations: each step and goal) equal the committed ones task by task"
        ),
        "made_by": "python -m analysis.campaigns.pool.conversation_sample",
    }
    (dest / SAMPLE_SOURCE).write_text(json.dumps(source, indent=2) + "\n")
    return dest / SAMPLE_CONVERSATIONS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.campaigns.pool.conversation_sample")
    parser.add_argument("runs", nargs="+", help="committed campaign runs, e.g. cpu-rcgrpo-s0")
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "conversation-sample")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    for name in args.runs:
        path = write_sample(name, rerun(name, args.steps, args.work.resolve()), args.steps)
        print(f"{name}: {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
