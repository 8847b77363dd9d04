"""Bring back a committed run folder, or a Stage-1 checkpoint's files, removed from the
working tree (``make restore RUN=<name>``).

A run's light copy lives in ``results/<home>/<name>/`` (:mod:`analysis.campaign.mechanics`);
a Stage-1 checkpoint in ``results/<home>/<name>/final/`` (or ``weak/``). When such a folder is
deleted, by hand or by a commit that keeps the repository small, its files stay in the
history of branch ``main``. ``python -m analysis.runs.restore NAME [--branch main]``

1. finds the folder: every path ``results/**/NAME/**`` that a commit of the branch touched
   (``git log``); NAME may be ``regime-rcgrpo-s3``, ``sft-v3-s0/final`` or, when one name
   is in two homes, ``regime/sft-s7``;
2. takes the last commit of the branch that held it: the newest commit touching it, or that
   commit's parent when the commit deleted it;
3. writes that commit's files of the folder that are missing from the working tree
   (``git restore --source=<commit> --worktree``; a file present is never overwritten, the
   index is not touched).

A name no commit of the branch holds gets one line and exit status 1.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath

from analysis import REPO_ROOT

RESULTS = "results"
"""The committed top folder the run folders are under."""
BRANCH = "main"
"""The branch whose history is searched."""
_NAME = re.compile(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")


def _git(root: Path, *args: str, stdin: str | None = None) -> str:
    command = ["git", "-c", "core.quotePath=false", "-C", str(root), *args]
    env = {**os.environ, "GIT_LITERAL_PATHSPECS": "0"}
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    if done.returncode:
        raise RuntimeError(f"git {args[0]}: {done.stderr.strip() or done.returncode}")
    return done.stdout


def _parts(name: str) -> tuple[str, ...]:
    name = name.strip("/").removeprefix(f"{RESULTS}/")
    if not _NAME.fullmatch(name) or ".." in name.split("/"):
        raise ValueError(f"{name!r} is not a run name (e.g. regime-rcgrpo-s3, sft-v3-s0/final)")
    return tuple(name.split("/"))


def committed_folders(name: str, root: Path = REPO_ROOT, branch: str = BRANCH) -> list[str]:
    """The folders ``results/**/<name>`` (repository-relative) that held a file in any commit
    of ``branch``."""
    parts = _parts(name)
    spec = f":(glob){RESULTS}/**/{'/'.join(parts)}/**"
    out = _git(root, "log", branch, "--format=", "--name-only", "--", spec)
    found = set()
    for line in filter(None, out.splitlines()):
        path = PurePosixPath(line).parts
        for i in range(1, len(path) - len(parts)):
            if path[i : i + len(parts)] == parts:
                found.add("/".join(path[: i + len(parts)]))
                break
    return sorted(found)


def _holds(root: Path, commit: str, folder: str) -> bool:
    try:
        return _git(root, "cat-file", "-t", f"{commit}:{folder}").strip() == "tree"
    except RuntimeError:
        return False


def last_holding(folder: str, root: Path = REPO_ROOT, branch: str = BRANCH) -> str | None:
    """The last commit of ``branch`` whose tree holds ``folder``: the newest commit touching
    it, or the parent of that commit when it deleted the folder; None if none did."""
    for line in _git(root, "log", branch, "--format=%H %P", "--", folder).splitlines():
        for commit in line.split():  # the commit, then its parents
            if _holds(root, commit, folder):
                return commit
    return None


def restore(name: str, root: Path = REPO_ROOT, branch: str = BRANCH) -> tuple[str, str, list[str]]:
    """Write the missing files of the committed folder ``name`` (module docstring); returns
    (folder, commit, files written). Raises LookupError when no commit of ``branch`` holds
    it or the name is ambiguous."""
    root = Path(root)
    folders = committed_folders(name, root, branch)
    if not folders:
        raise LookupError(f"{name}: no commit of {branch} holds a folder {RESULTS}/**/{name}")
    if len(folders) > 1:
        shown = ", ".join(folders[:3]) + (", ..." if len(folders) > 3 else "")
        example = folders[0].removeprefix(f"{RESULTS}/")
        raise LookupError(
            f"{name} names {len(folders)} folders ({shown}): pass one, e.g. {example}"
        )
    folder = folders[0]
    commit = last_holding(folder, root, branch)
    if commit is None:
        raise LookupError(f"{name}: no commit of {branch} holds {folder}")
    files = _git(root, "ls-tree", "-r", "-z", "--name-only", commit, "--", folder).split("\0")
    missing = [f for f in files if f and not (root / f).exists()]
    if missing:
        _git(
            root,
            "restore",
            f"--source={commit}",
            "--worktree",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            stdin="\0".join(f":(literal){f}" for f in missing),
        )
    return folder, commit, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.runs.restore", description=__doc__)
    parser.add_argument("names", nargs="+", help="run names, e.g. regime-rcgrpo-s3")
    parser.add_argument("--branch", default=BRANCH, help="the branch whose history is searched")
    args = parser.parse_args(argv)
    failed = 0
    for name in args.names:
        try:
            folder, commit, files = restore(name, REPO_ROOT, args.branch)
        except (LookupError, ValueError, RuntimeError) as err:
            print(f"restore: {err}", file=sys.stderr)
            failed += 1
            continue
        subject = _git(REPO_ROOT, "log", "-1", "--format=%h %s", commit).strip()
        done = f"restored {len(files)} files" if files else "nothing missing"
        print(f"{folder}: {done} from {subject[:80]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
