"""Campaign mechanics: run specs, which folder holds a run, launching, committed copies.

A run is one ``python -m rcgrpo <stage> ...`` command (:class:`RunSpec`) trained in
``runs/<home>/<name>/`` (:func:`runs_dir`; the pool regime's home ``campaign`` is
:data:`CAMPAIGN`, the regime suite's is ``regime``). Besides the trainer's own files its
folder holds

``campaign.json``
    the run's spec, written at launch (:meth:`RunSpec.record`): the argv without the machine's
    paths (``--run.root`` and ``--run.name`` are added at launch; a checkpoint of another run
    is written ``sft-s0/final``), the values it resolves to (``resolved``: the config and
    the task suite's fingerprint, :func:`analysis.campaign.config.pinned`) and, recursively,
    the specs of the runs it starts from;
``.complete``
    written after the command exited 0 (:data:`analysis.runs.folder.COMPLETE`).

A folder *counts* (:func:`locate`) only when its run finished
(:func:`analysis.runs.is_finished`: ``.complete``, or the trainer's ``summary.json``) and its
recorded spec is the current one (:func:`analysis.campaign.spec.same_spec`): a changed
preset name, flag, preset value or task suite, here or in any run it starts from, makes the
folder *stale* and it is never reused (``--list`` shows it). Config fields added to or removed from the code since are no
difference, a renamed one is compared under its new name.

Light copies in ``results/<home>`` (:func:`results_dir`; :data:`RESULTS` for the pool) are
committed, so a fresh clone reuses them (and ``make
figures`` does not retrain): the logs, configs and eval JSON of every run, plus the
checkpoint folders other runs start from (SFT ``final/`` and ``weak/``, RCTP-FT ``final/``).
Each checkpoint is ``save_pretrained`` of the tiny Qwen2: 1,821,888 fp32 parameters =
7.29 MB ``model.safetensors`` + 61 kB tokenizer, chat template and configs = 7.35 MB on disk
(measured on ``sft-s0/final``); a seed's Stage 1 is 3 checkpoints, 22 MB. An RL copy holds
no checkpoint (about 0.6 MB at 30 steps), and its per-rollout table gzip-compressed
(``rollouts.jsonl.gz``: regime-rcgrpo-s3's 5.67 MB table of 200 steps is 150 kB).
:func:`run_all` exports a run's copy as soon as it completes, and a dependency resolves to
wherever it is located (``runs/<home>`` first, then ``results/<home>``) when the command
is built at launch, so a campaign killed at any point continues on another machine from
what is committed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from analysis import REPO_ROOT as ROOT
from analysis.campaign.spec import same_spec
from analysis.runs.folder import (
    COMPLETE,
    LIGHT_DIRS,
    LIGHT_FILES,
    copy_conversations,
    copy_light_dir,
    copy_light_file,
    is_finished,
)
from analysis.runs.sources import RUNS_ROOT
from rcgrpo.train.provenance import DIFF

CAMPAIGN = RUNS_ROOT / "campaign"
"""Where the pool regime's runs train; a home's folder is a sibling (:func:`runs_dir`)."""
RESULTS = ROOT / "results" / "campaign"
"""The pool regime's committed light copies; a home's folder is a sibling (:func:`results_dir`)."""
POOL_HOME = "campaign"
SPEC_FILE = "campaign.json"
LAUNCHER: tuple[str, ...] = (sys.executable, "-m", "rcgrpo")
"""The command prefix of every run (the tests put a fake trainer here)."""
POLL_S = 2.0
"""Seconds between two looks at the running subprocesses."""
Where = Callable[[str], Path]
"""Run name -> the folder it was located in."""


def runs_dir(home: str) -> Path:
    """``runs/<home>``: where the runs of a home train (:data:`CAMPAIGN` for the pool)."""
    return CAMPAIGN.parent / home


def results_dir(home: str) -> Path:
    """``results/<home>``: a home's committed light copies (:data:`RESULTS` for the pool)."""
    return RESULTS.parent / home


@dataclass(frozen=True)
class Checkpoint:
    """An argument naming a checkpoint folder of another run, resolved to a path at launch."""

    run: RunSpec
    sub: str = "final"

    def __str__(self) -> str:
        return f"{self.run.name}/{self.sub}"


@dataclass(frozen=True)
class RunSpec:
    """One run: its folder name and its ``python -m rcgrpo`` arguments."""

    name: str
    argv: tuple[str | Checkpoint, ...]
    pin: Callable[[RunSpec], dict] | None = field(default=None, compare=False, repr=False)
    """The values the argv resolves to (recorded as ``resolved``; None: not recorded)."""
    home: str = POOL_HOME
    """Its folders: ``runs/<home>/<name>`` (training) and ``results/<home>/<name>`` (the
    committed light copy)."""
    keep: tuple[str, ...] = field(default=(), compare=False)
    """Checkpoint sub-folders its light copy keeps though no run starts from them (one a
    measurement reads, so it can be repeated from a fresh clone)."""
    conversations: bool = field(default=False, compare=False)
    """Its light copy keeps every logged conversation, gzip-compressed
    (:func:`analysis.runs.folder.copy_conversations`): for a run whose text is the point (a real model's), where
    regenerating it (:mod:`analysis.campaigns.pool.conversation_sample`) would cost the run
    again."""

    @property
    def folder(self) -> Path:
        """Where it trains: ``runs/<home>/<name>``."""
        return runs_dir(self.home) / self.name

    @property
    def copy(self) -> Path:
        """Its committed light copy: ``results/<home>/<name>``."""
        return results_dir(self.home) / self.name

    @property
    def starts_from(self) -> tuple[RunSpec, ...]:
        """The runs whose checkpoints this one reads, in argv order."""
        deps = {a.run.name: a.run for a in self.argv if isinstance(a, Checkpoint)}
        return tuple(deps.values())

    @property
    def needs(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.starts_from)

    def record(self) -> dict:
        """The spec as ``campaign.json`` holds it: independent of the machine's paths."""
        out = {
            "name": self.name,
            "argv": [str(a) for a in self.argv],
            "needs": {d.name: d.record() for d in self.starts_from},
        }
        return out | ({"resolved": self.pin(self)} if self.pin is not None else {})

    def command(self, where: Where, resume: bool) -> list[str]:
        """The command line, each checkpoint resolved to ``where(run) / sub``."""
        args = [
            str(where(a.run.name) / a.sub) if isinstance(a, Checkpoint) else a for a in self.argv
        ]
        run = ["--run.root", str(runs_dir(self.home)), "--run.name", self.name]
        return [*LAUNCHER, *args, *run, *(["--run.resume"] if resume else [])]


@dataclass
class Campaign:
    """Run specs by name and experiments as lists of run names."""

    runs: dict[str, RunSpec] = field(default_factory=dict)
    experiments: dict[str, list[str]] = field(default_factory=dict)

    def add(self, experiment: str, spec: RunSpec) -> None:
        for dep in spec.starts_from:
            if self.runs.get(dep.name) != dep:
                raise ValueError(f"run {spec.name} starts from {dep.name}, not in the campaign")
        self.runs[spec.name] = spec
        self.experiments.setdefault(experiment, []).append(spec.name)

    def checkpoints(self, name: str) -> tuple[str, ...]:
        """Sub-folders of run ``name`` kept in its light copy: those other runs start from and
        its own :attr:`RunSpec.keep`."""
        subs = {
            a.sub
            for s in self.runs.values()
            for a in s.argv
            if isinstance(a, Checkpoint) and a.run.name == name
        }
        subs |= set(self.runs[name].keep)
        return tuple(sorted(subs))

    def closure(self, names: list[str]) -> list[str]:
        """``names`` plus every run they start from, dependencies first."""
        order: list[str] = []

        def visit(n: str) -> None:
            if n not in order:
                for dep in self.runs[n].needs:
                    visit(dep)
                order.append(n)

        for n in names:
            visit(n)
        return order


def recorded_spec(folder: Path) -> dict | None:
    """The spec a run folder was launched with (None: none recorded or unreadable)."""
    try:
        return json.loads((folder / SPEC_FILE).read_text())
    except (OSError, ValueError):
        return None


def is_current(folder: Path, spec: RunSpec) -> bool:
    """``folder`` holds a finished run launched with ``spec`` (the test of ``done``)."""
    return is_finished(folder) and same_spec(recorded_spec(folder), spec.record())


def status(spec: RunSpec, force_train: bool = False) -> tuple[str, Path | None]:
    """``done`` (finished, current spec; the first of runs/<home>, results/<home>),
    else ``stale`` (finished, another spec), ``partial`` (an unfinished folder in
    runs/<home>: resumed if its spec is current) or ``missing``; with the folder."""
    places = (spec.folder,) if force_train else (spec.folder, spec.copy)
    finished = [f for f in places if is_finished(f)]
    for folder in finished:
        if is_current(folder, spec):
            return "done", folder
    if finished:
        return "stale", finished[0]
    if spec.folder.is_dir():
        return "partial", spec.folder
    return "missing", None


def locate(spec: RunSpec, force_train: bool = False) -> Path | None:
    """The folder of the finished run of ``spec`` with the current spec, else None."""
    state, folder = status(spec, force_train)
    return folder if state == "done" else None


def export_run(camp: Campaign, name: str) -> Path:
    """Copy run ``name``'s light files (and the checkpoints others start from) from
    runs/<home> to results/<home>, its metrics, per-rollout table and held-out evaluations
    gzip-compressed (:func:`analysis.runs.folder.copy_light_file`,
    :func:`~analysis.runs.folder.copy_light_dir`); built aside and renamed, so a kill never
    leaves half a copy that counts."""
    spec = camp.runs[name]
    src, dst = spec.folder, spec.copy
    tmp = dst.parent / f".{name}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for f in (*LIGHT_FILES, SPEC_FILE, COMPLETE, DIFF):  # git.diff: run from a dirty checkout
        copy_light_file(src, tmp, f)  # metrics.jsonl.gz, rollouts.jsonl.gz
    for d in LIGHT_DIRS:
        copy_light_dir(src, tmp, d)  # eval/<name>.json.gz
    for d in camp.checkpoints(name):
        if (src / d).is_dir() and any((src / d).iterdir()):  # git keeps no empty folder
            shutil.copytree(src / d, tmp / d)
    if spec.conversations:
        copy_conversations(src, tmp)
    shutil.rmtree(dst, ignore_errors=True)
    tmp.rename(dst)
    return dst


def export_results(camp: Campaign) -> list[Path]:
    """Light copies of every run that is finished and current in runs/<home> (a stale
    one is named on stderr and left out)."""
    copied = []
    for name, spec in camp.runs.items():
        state, folder = status(spec, force_train=True)
        if state == "done":
            copied.append(export_run(camp, name))
        elif state == "stale":
            print(f"not exported: {folder} is stale (adopt it if trained by hand)", file=sys.stderr)
    return copied


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    return env


def _where(camp: Campaign, force_train: bool, planned: bool = False) -> Where:
    """Run name -> its located folder (``planned``: runs/<home> for one not run yet)."""

    def where(name: str) -> Path:
        found = locate(camp.runs[name], force_train)
        if found is None and not planned:
            raise RuntimeError(f"run {name} is not done, but a run starting from it was launched")
        return found or camp.runs[name].folder

    return where


def _check_starts(camp: Campaign, todo: list[str], force_train: bool) -> None:
    """Every checkpoint a run of ``todo`` starts from exists, or will be trained first."""
    for n in todo:
        for a in camp.runs[n].argv:
            found = isinstance(a, Checkpoint) and locate(a.run, force_train)
            if found and not (found / a.sub).is_dir():
                raise RuntimeError(
                    f"run {n} starts from {found / a.sub}, which is missing: export "
                    f"{a.run.name} from a machine that trained it, or delete {found} to retrain"
                )


def _log(spec: RunSpec) -> Path:
    """The run's log: ``runs/<home>/<name>.log``."""
    return spec.folder.parent / f"{spec.name}.log"


def _launch(camp: Campaign, name: str, force_train: bool) -> subprocess.Popen:
    """Start run ``name``: resume its folder if it holds the current spec, else set the old
    folder aside in ``runs/<home>/stale/`` and start afresh; record the spec first."""
    spec = camp.runs[name]
    folder = spec.folder
    resume = folder.is_dir() and same_spec(recorded_spec(folder), spec.record())
    if folder.is_dir() and not resume:
        aside = folder.parent / "stale" / f"{name}-{time.strftime('%Y%m%dT%H%M%S')}"
        aside.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(aside)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SPEC_FILE).write_text(json.dumps(spec.record(), indent=2) + "\n")
    cmd = spec.command(_where(camp, force_train), resume)
    print(f"[campaign] start {name}: {' '.join(cmd[len(LAUNCHER) :])}", flush=True)
    with open(_log(spec), "a") as log:  # the child keeps its own descriptor
        return subprocess.Popen(
            ["nice", "-n", "5", *cmd], stdout=log, stderr=subprocess.STDOUT, env=_env(), cwd=ROOT
        )


def run_all(
    camp: Campaign,
    names: list[str],
    jobs: int = 2,
    force_train: bool = False,
    dry_run: bool = False,
    on_done: Callable[[RunSpec], None] | None = None,
) -> list[str]:
    """Train the runs of ``names`` (and what they start from) that are not done, ``jobs`` at
    a time, dependencies first; export each light copy as it completes, then call
    ``on_done(spec)`` (its training folder still holds every checkpoint). Returns the runs
    launched (``dry_run``: printed)."""
    todo = [n for n in camp.closure(names) if locate(camp.runs[n], force_train) is None]
    _check_starts(camp, todo, force_train)
    if dry_run:
        where = _where(camp, force_train, planned=True)
        for n in todo:
            resume = same_spec(recorded_spec(camp.runs[n].folder), camp.runs[n].record())
            print(" ".join(camp.runs[n].command(where, resume)))
        return todo
    for n in todo:
        camp.runs[n].folder.parent.mkdir(parents=True, exist_ok=True)
    launched, running = list(todo), {}
    while todo or running:
        busy = set(todo) | set(running)
        ready = [n for n in todo if not set(camp.runs[n].needs) & busy]
        for n in ready[: max(0, jobs - len(running))]:
            todo.remove(n)
            running[n] = _launch(camp, n, force_train)
        time.sleep(POLL_S)
        for n, proc in list(running.items()):
            if proc.poll() is None:
                continue
            del running[n]
            if proc.returncode != 0:
                for other in running.values():
                    other.terminate()
                log = _log(camp.runs[n])
                raise RuntimeError(f"run {n} failed (exit {proc.returncode}); see {log}")
            (camp.runs[n].folder / COMPLETE).write_text(time.strftime("%Y-%m-%dT%H:%M:%S\n"))
            copy = export_run(camp, n)
            left = len(todo) + len(running)
            print(f"[campaign] done  {n} (exported to {copy}; {left} to go)", flush=True)
            if on_done is not None:
                on_done(camp.runs[n])
    return launched
