"""Result figures for the report, found through the figure builder's sidecar JSON files.

``python -m analysis.figures build`` writes ``figures/<name>.pdf`` and a sidecar
``figures/<name>.json`` naming the experiments the figure read. Theory figures (no
experiments) are placed by hand in ``paper/main.tex``; every figure that read runs is listed
here, with the caption of its module, so a new figure module appears in the report without
editing LaTeX.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis.report.latex import escape


def result_sidecars(figures_dir: str | Path) -> list[dict]:
    """Sidecars of built figures that read experiments (their PDF exists), by name."""
    out = []
    for path in sorted(Path(figures_dir).glob("*.json")):
        try:
            side = json.loads(path.read_text())
        except json.JSONDecodeError:
            continue
        if not isinstance(side, dict) or "figure" not in side:
            continue  # e.g. theory_report.json
        if side.get("experiments") and (path.with_suffix(".pdf")).is_file():
            out.append(side)
    return out


def figures_tex(sidecars: list[dict], rel_dir: str = "../figures") -> str:
    """One ``figure`` float per sidecar; an explicit *not yet built* paragraph when none."""
    if not sidecars:
        return (
            "\\paragraph{Result figures.} \\textit{Not yet built: no figure module that reads "
            "experiment runs has been built (\\texttt{make figures}).}\n"
        )
    blocks = []
    for side in sidecars:
        name = side["figure"]
        runs = sum(len(v) for v in side.get("runs", {}).values())
        exps = ", ".join(side.get("experiments", []))
        caption = escape((side.get("caption") or name).rstrip(". ")) + "."
        source = f"Experiments: {escape(exps)}; {runs} run folder(s)."
        blocks.append(
            "\\begin{figure}[t]\n\\centering\n"
            f"\\includegraphics[width=\\linewidth]{{{rel_dir}/{name}.pdf}}\n"
            f"\\caption{{{caption} {source}}}\\label{{fig:{name}}}\n"
            "\\end{figure}\n"
        )
    return "\n".join(blocks)
