"""A stand-in for ``python -m analysis.diagnostics.regime ...`` in the regime campaign tests.

It fails (exit 4) when its ``--init`` checkpoint is missing, and otherwise writes ``--out``: a
report whose pass@1 under the high and the low goal separate by ``FAKE_SEPARATION[seed]``
(a JSON object by seed) when both goals are asked for, else one goal's report. Each call is
appended to ``FAKE_DIAG_LOG`` as its argv. Called as ``analysis.diagnostics.regime.proof``
(a run folder first, no ``--init``) it fails when the folder is missing and otherwise writes
``{"run": <folder>}``.
"""

import json
import os
import sys
from pathlib import Path

argv = sys.argv[1:]
with open(os.environ["FAKE_DIAG_LOG"], "a") as log:
    log.write(json.dumps(argv) + "\n")
if not argv[0].startswith("--"):  # the proof report of a run folder
    out = Path(argv[argv.index("--out") + 1])
    if not Path(argv[0]).is_dir():
        sys.exit(4)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"run": argv[0]}))
    sys.exit(0)
init, out, seed = (argv[argv.index(f) + 1] for f in ("--init", "--out", "--seed"))
if not Path(init).is_dir():
    sys.exit(4)
goals = argv[argv.index("--conditions") + 1 :]
goals = goals[: next((i for i, a in enumerate(goals) if a.startswith("--")), len(goals))]
sep = json.loads(os.environ.get("FAKE_SEPARATION", "{}")).get(seed, 0.0)
pass1 = {"high": 0.5, "low": 0.5 - sep, "none": 0.5}
report = {g: {"pass_at_k": {"overall": [pass1[g], 0.6]}} for g in goals}
Path(out).parent.mkdir(parents=True, exist_ok=True)
Path(out).write_text(json.dumps({"checkpoint": init, "conditions": report}))
