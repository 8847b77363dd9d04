"""Which code made a run: the package version and the git commit of the checkout.

``summary.json`` records both (:func:`code_version`), and so does every extension of a run
(:mod:`rcgrpo.train.rl.resume`), so a run can be traced to the commit that trained it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
"""The ``rcgrpo`` package folder: the git checkout asked is the one holding it."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError:  # no git on PATH
        return None


def git_state(root: Path = PACKAGE_ROOT) -> dict | None:
    """``{"commit": <40 hex>, "dirty": bool}`` of the checkout holding ``root``; dirty = a
    tracked file differs from the commit (untracked files do not count). None outside git."""
    sha = _git(root, "rev-parse", "HEAD")
    if sha is None or sha.returncode != 0:
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    dirty = status is not None and bool(status.stdout.strip())
    return {"commit": sha.stdout.strip(), "dirty": dirty}


def code_version(root: Path = PACKAGE_ROOT) -> dict[str, str]:
    """The package version and, inside a git checkout, the commit (+ "-dirty")."""
    from rcgrpo import __version__

    out = {"rcgrpo": __version__}
    state = git_state(root)
    if state is not None:
        out["git"] = state["commit"] + ("-dirty" if state["dirty"] else "")
    return out
