"""The paper's worked example (§2) as a Task: gold = mv(report.csv -> archive), rm(temp.log)."""

from __future__ import annotations

import json

from rcgrpo.env import Task
from rcgrpo.env.bfcl import func_doc_lines

WORKED = Task(
    id="worked_example_0",
    category="base",
    turns=(({"role": "user", "content": "Archive report.csv and delete temp.log."},),),
    initial_config={
        "GorillaFileSystem": {
            "root": {
                "user": {
                    "type": "directory",
                    "contents": {
                        "report.csv": {"type": "file", "content": "a,b\n1,2"},
                        "temp.log": {"type": "file", "content": "tmp"},
                        "archive": {"type": "directory", "contents": {}},
                    },
                }
            }
        }
    },
    involved_classes=("GorillaFileSystem",),
    ground_truth=(("mv(source='report.csv', destination='archive')", "rm(file_name='temp.log')"),),
    function_docs=tuple(json.loads(line) for line in func_doc_lines("GorillaFileSystem")),
)
MV, RM = WORKED.ground_truth[0]
