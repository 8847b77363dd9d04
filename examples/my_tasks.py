"""Your own tasks on the command line: a task source for rcgrpo (``docs/own-task.md``).

    python -m rcgrpo train --preset quick-rcgrpo --tasks.source examples.my_tasks:make_tasks

A task source is a function ``(split, seed=0, limit=None, **options) -> list[Task]``. Every
command that takes tasks (``sft``, ``rctp``, ``train``, ``trl``, ``eval``) imports it by the
``module:function`` spec (or ``path/to/file.py:function``) of its ``--tasks.source`` and calls
it for its ``train`` and ``test`` splits.

The tasks here file things away on BFCL's ``GorillaFileSystem`` backend: a home folder holds
three files; turn 1 asks for a new folder and one file moved into it, and half of the tasks
have a turn 2 asking to delete another file. A task is executed on the real backend, so the
reward R = R_state * R_action applies unchanged: the final file tree must equal the one the
ground-truth calls leave, and every ground-truth call must be made. Train and test use
disjoint folder names, so the held-out split asks for names the model never saw.
"""

from __future__ import annotations

import random

from rcgrpo.env.synth import class_function_docs
from rcgrpo.env.tasks import Task

FS = "GorillaFileSystem"
FOLDERS = {
    "train": ("archive", "drafts", "invoices", "photos", "recipes", "letters", "old", "music"),
    "test": ("reports", "backup", "travel", "school"),
}
"""Folder names per split (disjoint: the held-out split asks for unseen names)."""
FILES = ("notes.txt", "budget.csv", "todo.md", "plan.txt", "scan.pdf", "list.csv", "memo.txt")
OFFERED = ("cd", "ls", "mkdir", "mv", "rm")
"""The functions each task offers (the backend's others are never offered)."""
DEFAULT_COUNT = 100


def _task(split: str, seed: int, index: int) -> Task:
    """Task ``index`` of ``split``: deterministic in (split, seed, index)."""
    rng = random.Random(f"my-tasks/{split}/{seed}/{index}")
    folder = rng.choice(FOLDERS[split])
    keep, drop, other = rng.sample(FILES, 3)
    home = {
        name: {"type": "file", "content": f"{name} of task {index}"} for name in (keep, drop, other)
    }
    turns = [f"Create a folder named {folder} and move {keep} into it."]
    truth = [(f"mkdir(dir_name='{folder}')", f"mv(source='{keep}', destination='{folder}')")]
    if rng.random() < 0.5:
        turns.append(f"Now delete {drop}.")
        truth.append((f"rm(file_name='{drop}')",))
    docs = class_function_docs(FS)
    return Task(
        id=f"my_tasks_{split}_{seed}_{index}",
        category="my_tasks",
        turns=tuple(({"role": "user", "content": text},) for text in turns),
        initial_config={FS: {"root": {"home": {"type": "directory", "contents": home}}}},
        involved_classes=(FS,),
        ground_truth=tuple(truth),
        function_docs=tuple(docs[name] for name in OFFERED),
        excluded_functions=tuple(sorted(set(docs) - set(OFFERED))),
    )


def make_tasks(split: str, seed: int = 0, limit: int | None = None, **options) -> list[Task]:
    """The first ``limit`` tasks (default :data:`DEFAULT_COUNT`) of ``split`` (train | test)."""
    if split not in FOLDERS:
        raise ValueError(f"split must be one of {sorted(FOLDERS)}, got {split!r}")
    if options:
        raise ValueError(f"options: make_tasks takes none, got {sorted(options)}")
    return [_task(split, seed, i) for i in range(DEFAULT_COUNT if limit is None else limit)]
