"""Compress the metrics, the per-rollout table and the held-out evaluations of finished run
folders in place: ``metrics.jsonl`` -> ``metrics.jsonl.gz``, ``rollouts.jsonl`` ->
``rollouts.jsonl.gz`` and ``eval/<name>.json`` -> ``eval/<name>.json.gz``
(:func:`rcgrpo.train.runlog.compress_table`), the forms a light copy stores since the campaign
compresses them on export (:func:`analysis.runs.folder.copy_light_file`,
:func:`~analysis.runs.folder.copy_light_dir`).

``python -m analysis.runs.pack RUN_FOLDER ...`` (or ``--under ROOT``: every run folder below
``ROOT``, :func:`analysis.runs.sources.discover_runs`, e.g. ``--under results``) writes each
compressed file, checks that it decompresses to the bytes of the plain one, and only then
removes the plain one; a file already compressed is left as it is. A file's digest (:func:`analysis.runs.folder.digests`,
what a figure's sidecar records) is that of its text, under its plain name, so it does not
change. A run still training appends to its plain table, so a folder whose run has not
finished (:func:`analysis.runs.folder.is_finished`) is refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.runs.folder import EVAL_FORMS, GZ, is_finished
from analysis.runs.sources import discover_runs
from rcgrpo.train.runlog import METRICS, ROLLOUTS, RunPaths, compress_table, open_jsonl


def _compress(plain: Path) -> tuple[int, int]:
    """``plain`` -> ``plain.gz``, checked lossless before ``plain`` goes; (plain, gz) sizes."""
    packed = plain.with_name(plain.name + GZ)
    data = plain.read_bytes()
    compress_table(plain, packed)
    with open_jsonl(packed) as fh:
        if fh.read() != data:  # never reached with a sound zlib; checked before deleting
            packed.unlink()
            raise RuntimeError(f"{packed} does not decompress to {plain}; {plain} kept")
    plain.unlink()
    return len(data), packed.stat().st_size


def plain_files(folder: str | Path) -> list[Path]:
    """The files of run folder ``folder`` a light copy stores compressed and it holds plain:
    its metrics, its per-rollout table and its ``eval/*.json``."""
    folder = Path(folder)
    evals = RunPaths(folder).eval_dir
    found = sorted(evals.glob(f"*{EVAL_FORMS[0]}")) if evals.is_dir() else []
    return [p for p in (folder / METRICS, folder / ROLLOUTS, *found) if p.is_file()]


def pack(folder: str | Path) -> tuple[int, int, int] | None:
    """Compress every :func:`plain_files` of ``folder``; returns (files, plain bytes,
    compressed bytes), None when the folder has no plain file left. Raises on a folder that
    is not a finished run."""
    folder = Path(folder)
    if not is_finished(folder):
        raise ValueError(f"{folder}: not a finished run folder (no summary.json or .complete)")
    files = plain_files(folder)
    if not files:
        return None
    sizes = [_compress(p) for p in files]
    return len(files), sum(s[0] for s in sizes), sum(s[1] for s in sizes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.runs.pack", description=__doc__)
    parser.add_argument("folders", nargs="*", type=Path, help="finished run folders")
    parser.add_argument(
        "--under",
        type=Path,
        action="append",
        default=[],
        metavar="ROOT",
        help="also every run folder below ROOT (repeatable; e.g. --under results)",
    )
    args = parser.parse_args(argv)
    missing = [root for root in args.under if not root.is_dir()]
    if missing or not (args.folders or args.under):
        what = f"--under {missing[0]}: no such folder" if missing else "no run folder given"
        print(f"pack: {what} (FOLDER ... or --under ROOT)", file=sys.stderr)
        return 2
    folders = [*args.folders, *(f for root in args.under for f in discover_runs(root))]
    failed, total = 0, [0, 0, 0]
    for folder in folders:
        try:
            sizes = pack(folder)
        except (OSError, ValueError, RuntimeError) as err:
            print(f"pack: {err}", file=sys.stderr)
            failed += 1
            continue
        if sizes is None:
            print(f"{folder}: packed already")
        else:
            print(f"{folder}: {sizes[0]} file(s), {sizes[1]:,} bytes -> {sizes[2]:,} bytes")
            total = [t + n for t, n in zip(total, sizes, strict=True)]
    if len(folders) > 1:
        print(
            f"{len(folders)} folder(s), {failed} refused: packed {total[0]} file(s), "
            f"{total[1]:,} bytes -> {total[2]:,} bytes"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
