"""A stand-in for ``python -m rcgrpo <stage> ...`` in the campaign tests (no torch, ~50 ms).

It reads the flags the campaign passes, fails (exit 4) when a checkpoint it should start from
is missing, exits 1 when ``FAKE_FAIL`` names its run (a campaign killed there), and otherwise
writes a run folder: logs, Stage 1's ``final/`` (and SFT's ``weak/``), RL's ``eval/`` and a
``checkpoints/`` folder that a light copy must leave out. Each call is appended to
``FAKE_LOG`` as ``{"name", "argv"}``.
"""

import json
import os
import sys
from pathlib import Path

argv = sys.argv[1:]
flags = {argv[i]: argv[i + 1] for i in range(1, len(argv) - 1) if argv[i].startswith("--")}
name, stage = flags["--run.name"], argv[0]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps({"name": name, "argv": argv}) + "\n")
for flag in ("--init", "--model.path", "--failures.policy"):
    if flag in flags and not (Path(flags[flag]) / "model.safetensors").is_file():
        sys.exit(4)
if os.environ.get("FAKE_FAIL") == name:
    sys.exit(1)
run = Path(flags["--run.root"]) / name
for sub in {"sft": ("final", "weak"), "rctp": ("final",)}.get(stage, ("eval",)):
    (run / sub).mkdir(parents=True, exist_ok=True)
    (run / sub / ("step_0.json" if sub == "eval" else "model.safetensors")).write_text(name)
(run / "checkpoints" / "step_1").mkdir(parents=True, exist_ok=True)
(run / "config.json").write_text(json.dumps({"stage": stage, "argv": argv}))
(run / "metrics.jsonl").write_text(json.dumps({"step": 1, "loss": 0.5}) + "\n")
(run / "summary.json").write_text(json.dumps({"stage": stage}))
