"""The real model's zero-shot scores, one row per committed evaluation folder
``results/real-model/zero-shot-*``: the eval report (``<tasks>-<split>-<condition>.json``) and
``run.json`` (the command, its commit, the host, wall and CPU time, peak memory).

    python -m analysis.campaigns.smollm2_zero_shot.zero_shot     # the markdown table
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis.runs.index import RESULTS

FOLDERS = "real-model/zero-shot-*"


def rows(results: Path = RESULTS) -> list[dict]:
    """One dict per evaluation folder, in name order."""
    out = []
    for folder in sorted(results.glob(FOLDERS)):
        run = json.loads((folder / "run.json").read_text())
        report = json.loads((folder / run["report"]).read_text())
        overall, args = report["overall"], report["args"]
        out.append(
            {
                "run": folder.name,
                "tasks": run["tasks"],
                "prompt_style": args["prompt_style"],
                "condition": args["condition"],
                "n": overall["n"],
                "success": overall["reward"],
                "bfcl_valid": overall["bfcl_valid"],
                "truncated": overall["truncated_rate"],
                "capped": overall["mean_capped_messages"],
                **{k: run[k] for k in ("wall_s", "cpu", "commit", "command")},
            }
        )
    return out


def _rate(r: dict) -> str:
    lo, hi = r["ci95"]
    return f"{r['successes']}/{r['n']} = {r['mean']:.3f} [{lo:.3f}, {hi:.3f}]"


def markdown(found: list[dict]) -> str:
    head = (
        "| evaluation | tasks | prompt | n | success R [95% CI] | BFCL checker [95% CI] | "
        "wall | host | commit |\n|---|---|---|--:|---|---|--:|---|---|"
    )
    lines = [
        f"| {r['run']} | {r['tasks']} | {r['prompt_style']} | {r['n']} | {_rate(r['success'])} | "
        f"{_rate(r['bfcl_valid'])} | {r['wall_s'] / 60:.0f} min | {r['cpu']} | "
        f"{r['commit'][:7]} |"
        for r in found
    ]
    return "\n".join([head, *lines])


if __name__ == "__main__":
    print(markdown(rows()))
