"""Which code made a run: the package version and the git commit of the checkout.

``summary.json`` records the commit as ``"git": {"commit": <40 hex>, "dirty": bool}``
(:func:`git_record`); when tracked files differ from it, the output of ``git diff HEAD`` is
written beside as :data:`DIFF` and named under ``"diff"``, so the run's code is that commit
plus that patch. An extension of a run records its own (:mod:`rcgrpo.train.rl.resume`).
``"code": {"rcgrpo": version, "git": "<commit>[-dirty]"}`` (:func:`code_version`) stays for
older readers.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"""The ``rcgrpo`` package folder: the git checkout asked is the one holding it."""
DIFF = "git.diff"
"""The file beside ``summary.json`` holding ``git diff HEAD`` of a dirty checkout."""


def _git(root: Path | None, *args: str) -> subprocess.CompletedProcess | None:
    """``git -C root args`` (``root`` None: :data:`PACKAGE_ROOT`); None without git."""
    where = str(root if root is not None else PACKAGE_ROOT)
    try:
        return subprocess.run(["git", "-C", where, *args], capture_output=True, text=True)
    except OSError:  # no git on PATH
        return None


def git_state(root: Path | None = None) -> dict | None:
    """``{"commit": <40 hex>, "dirty": bool}`` of the checkout holding ``root``; dirty = a
    tracked file differs from the commit (untracked files do not count). None outside git."""
    sha = _git(root, "rev-parse", "HEAD")
    if sha is None or sha.returncode != 0:
        return None
    return {"commit": sha.stdout.strip(), "dirty": bool(dirty_paths(root))}


def dirty_paths(root: Path | None = None) -> list[str]:
    """The tracked files of the checkout holding ``root`` that differ from its commit
    (staged or not; untracked files do not count); [] outside git."""
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    if status is None or status.returncode != 0:
        return []
    return [line[3:].split(" -> ")[-1] for line in status.stdout.splitlines() if line[3:]]


def git_record(folder: Path, name: str = DIFF, root: Path | None = None) -> dict | None:
    """:func:`git_state` of the checkout holding ``root``; when dirty, ``git diff HEAD``
    (binary-safe, so ``git apply`` restores the tree) is written to ``folder / name`` and
    the record gets ``"diff": name``. None outside git."""
    state = git_state(root)
    if state is None or not state["dirty"]:
        return state
    diff = _git(root, "diff", "--binary", "HEAD")
    Path(folder, name).write_text(diff.stdout if diff is not None else "")
    return {**state, "diff": name}


def code_version(root: Path | None = None) -> dict[str, str]:
    """The package version and, inside a git checkout, the commit (+ "-dirty")."""
    from rcgrpo import __version__

    out = {"rcgrpo": __version__}
    state = git_state(root)
    if state is not None:
        out["git"] = state["commit"] + ("-dirty" if state["dirty"] else "")
    return out
