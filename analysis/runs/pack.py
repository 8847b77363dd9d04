"""Compress the per-rollout table of finished run folders in place: ``rollouts.jsonl`` ->
``rollouts.jsonl.gz`` (:func:`rcgrpo.train.runlog.compress_table`), the form a light copy
has stored since the campaign compresses it on export
(:func:`analysis.runs.folder.copy_light_file`).

``python -m analysis.runs.pack RUN_FOLDER ...`` writes the compressed table, checks that it
decompresses to the bytes of the plain one, and only then removes the plain one; a folder
already packed is left as it is. The table's digest (:func:`analysis.runs.folder.digests`,
what a figure's sidecar records) is that of its JSONL text, so it does not change. A run
still training appends to its plain table, so a folder whose run has not finished
(:func:`analysis.runs.folder.is_finished`) is refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.runs.folder import is_finished
from rcgrpo.train.runlog import ROLLOUTS, ROLLOUTS_GZ, compress_table, open_jsonl


def pack(folder: str | Path) -> tuple[int, int] | None:
    """Replace ``folder``'s ``rollouts.jsonl`` with ``rollouts.jsonl.gz``; returns the sizes
    (plain, compressed) in bytes, None when the folder is packed already. Raises on a
    folder that is not a finished run or has no per-rollout table."""
    folder = Path(folder)
    plain, packed = folder / ROLLOUTS, folder / ROLLOUTS_GZ
    if not is_finished(folder):
        raise ValueError(f"{folder}: not a finished run folder (no summary.json or .complete)")
    if not plain.is_file():
        if packed.is_file():
            return None
        raise FileNotFoundError(f"{folder}: no per-rollout table ({ROLLOUTS}[.gz])")
    data = plain.read_bytes()
    compress_table(plain, packed)
    with open_jsonl(packed) as fh:
        if fh.read() != data:  # never reached with a sound zlib; checked before deleting
            packed.unlink()
            raise RuntimeError(f"{packed} does not decompress to {plain}; {plain} kept")
    plain.unlink()
    return len(data), packed.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.runs.pack", description=__doc__)
    parser.add_argument("folders", nargs="+", type=Path, help="finished run folders")
    args = parser.parse_args(argv)
    failed = 0
    for folder in args.folders:
        try:
            sizes = pack(folder)
        except (OSError, ValueError, RuntimeError) as err:
            print(f"pack: {err}", file=sys.stderr)
            failed += 1
            continue
        if sizes is None:
            print(f"{folder}: packed already ({ROLLOUTS_GZ})")
        else:
            print(f"{folder}: {ROLLOUTS} {sizes[0]:,} bytes -> {ROLLOUTS_GZ} {sizes[1]:,} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
