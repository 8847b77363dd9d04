"""Byte-identical figure files: the same figure from the same inputs gives the same bytes.

Matplotlib stamps a PDF with its creation date and an SVG with a date and random element ids;
the sidecar used to hold wall seconds, the git commit and absolute run paths. Each of these
changes the files on every rebuild, so ``git status`` after ``make figures`` could not show
whether a figure really changed. Here:

- PDF: ``CreationDate`` removed (matplotlib then writes no date and derives the trailer ID
  from the content); ``Producer`` / ``Creator`` are the fixed strings below.
- SVG: no ``Date``; element ids from a fixed hash salt (``svg.hashsalt``); clip-path ids,
  which matplotlib derives from object ids (memory addresses) for path clips, are renumbered
  in order of first appearance.
- PNG (Agg): matplotlib writes no time; ``Software`` is fixed.
- Sidecar JSON: sorted keys, no times, no commit. Each input run is named by where it lives
  in a campaign (``campaign/<run>``), the same whether it was found in ``runs/`` (trained
  here) or ``results/`` (the committed light copy), with the SHA-256 of every light file
  the figure can read (``campaign.json``, ``config.json``, ``metrics.jsonl``,
  ``rollouts.jsonl``, ``summary.json``, ``data.json``, ``eval/*``; taken by
  :func:`analysis.runs.folder.digests`): a change of a run's data shows. Other input files
  (a module's ``INPUTS``) are named relative to the repository, with their hashes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from analysis.campaign.mechanics import SPEC_FILE
from analysis.runs.folder import LIGHT_FILES, digests, file_digest

FORMATS = ("png", "pdf")
"""What ``make figures`` writes per figure (``svg`` on request)."""
SOFTWARE = "rcgrpo analysis.figures (matplotlib)"
HASHED_FILES = (SPEC_FILE, *LIGHT_FILES)
"""A run's files a figure may read: what a light copy holds (its campaign spec and
:data:`analysis.runs.folder.LIGHT_FILES`), besides ``eval/*``."""
RUN_HOMES = ("runs", "results")
"""Top-level folders a run is found in; a run's name in a sidecar leaves them out."""
_METADATA = {
    "png": {"Software": SOFTWARE},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": SOFTWARE, "Creator": SOFTWARE},
    "svg": {"Date": None, "Creator": SOFTWARE},
}


def save_figure(
    fig: Figure, out_dir: Path, name: str, formats: tuple[str, ...] = FORMATS, dpi: int = 150
) -> list[Path]:
    """Write ``out_dir/<name>.<fmt>`` for each format, deterministically; returns the paths."""
    unknown = sorted(set(formats) - set(_METADATA))
    if unknown:
        raise ValueError(f"unknown figure format(s) {unknown}; have {sorted(_METADATA)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    with plt.rc_context({"svg.hashsalt": "rcgrpo", "pdf.compression": 6}):
        for fmt in formats:
            path = out_dir / f"{name}.{fmt}"
            kwargs = {"dpi": dpi} if fmt == "png" else {}
            fig.savefig(path, bbox_inches="tight", metadata=_METADATA[fmt], **kwargs)
            if fmt == "svg":
                _renumber_clip_ids(path)
            paths.append(path)
    return paths


_CLIP_ID = re.compile(r"\bp[0-9a-f]{10}\b")


def _renumber_clip_ids(path: Path) -> None:
    """Rename matplotlib's clip-path ids (``p`` + 10 hex digits) to ``clip0``, ``clip1``, …
    in order of first appearance, so they no longer depend on memory addresses."""
    text, names = path.read_text(), {}
    path.write_text(_CLIP_ID.sub(lambda m: names.setdefault(m[0], f"clip{len(names)}"), text))


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it (else as given), with '/' separators."""
    path = Path(path)
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def run_name(run_dir: Path, root: Path) -> str:
    """A run's name in a sidecar: its path relative to ``root`` without the top-level
    ``runs/`` or ``results/`` (``campaign/cpu-grpo-s0`` for both homes of that run)."""
    rel = relative(run_dir, root)
    head, _, rest = rel.partition("/")
    return rest if head in RUN_HOMES and rest else rel


def run_entry(run_dir: Path, root: Path) -> dict:
    """One input run of a sidecar: its name and the content hash of every file a figure
    may read (None for a file the run does not have)."""
    return {"path": run_name(run_dir, root), "sha256_16": digests(run_dir, HASHED_FILES)}


def file_entries(patterns: tuple[str, ...], root: Path) -> list[dict]:
    """The files matching each glob pattern (relative to ``root``), with their hashes; a
    pattern that matches nothing is an error (a figure's input cannot be missing)."""
    out = []
    for pattern in patterns:
        found = sorted(p for p in root.glob(pattern) if p.is_file())
        if not found:
            raise FileNotFoundError(f"figure input {pattern!r} matches no file under {root}")
        out += [{"path": relative(p, root), "sha256_16": file_digest(p)} for p in found]
    return out


def write_sidecar(path: Path, sidecar: dict) -> Path:
    """The sidecar as sorted, indented JSON with a final newline."""
    path.write_text(json.dumps(sidecar, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return path
