"""Writers of the diagnose report: ``report.json`` (every number), ``figures/*.png`` and a
page, ``report.html`` (figures embedded, one self-contained file) or ``report.md`` (figures
linked).

``report.json``::

    {"source": str, "format": "run" | "verl" | "table",
     "std": {"ddof": 0 | 1 | null, "why": str}, "notes": [str],
     "summary": {"steps", "first_step", "last_step", "means": {name: float | null},
                 "verdict": {"collapsed", "onset_step", "explained_by_iid", "observed",
                             "predicted_iid", "all_pass", "all_fail", "constant",
                             "success_rate", "rule": {...}, "text"}},
     "steps": [{"step", "groups", "group_size", <registry name>: float | null}, ...],
     "metrics": {name: meaning}}

NaN (e.g. a goal statistic of a step without goals) is written as null.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from pathlib import Path
from typing import Any

from rcgrpo.diagnose.figures import FIGURES
from rcgrpo.diagnose.instruments import COLLAPSE_KEYS
from rcgrpo.metrics import METRICS

HEADLINE = (
    *COLLAPSE_KEYS,
    "reward/success_rate",
    "adv/gap_mean",
    "group/var_mean",
    "group/var_between_mean",
    "group/between_frac",
    "theory/var_bound_iid",
)
"""Run means shown on the page (all of them are in the JSON)."""


def jsonable(value: Any) -> Any:
    """NaN / inf -> None, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def std_text(std: dict) -> str:
    """The report's ``std`` as words: ``std ddof 1 (<why>)``, or ``none recomputed (<why>)``."""
    head = "none recomputed" if std["ddof"] is None else f"std ddof {std['ddof']}"
    return f"{head} ({std['why']})"


def _summary_rows(report: dict) -> list[tuple[str, str, str]]:
    means = report["summary"]["means"]
    out = []
    for name in HEADLINE:
        if name in means:
            value = means[name]
            text = "n/a" if value is None else f"{value:.4g}"
            out.append((name, text, METRICS[name].meaning))
    return out


def _html(report: dict, pngs: dict[str, bytes]) -> str:
    v = report["summary"]["verdict"]
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>GRPO collapse report: {e(report['source'])}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "td,th{padding:2px 8px;text-align:left}img{max-width:100%}</style></head><body>",
        f"<h1>GRPO collapse report</h1><p><code>{e(report['source'])}</code> "
        f"({e(report['format'])}, steps {report['summary']['first_step']}-"
        f"{report['summary']['last_step']})</p>",
        f"<p id='std'>Advantages: {e(std_text(report['std']))}</p>",
        f"<h2>Verdict</h2><p id='verdict'>{e(v['text'])}</p>",
        "<h2>Run means</h2><table><tr><th>metric</th><th>mean over steps</th><th>meaning</th></tr>",
    ]
    for name, value, meaning in _summary_rows(report):
        parts.append(
            f"<tr><td><code>{e(name)}</code></td><td>{value}</td><td>{e(meaning)}</td></tr>"
        )
    parts.append("</table><h2>Figures</h2>")
    for name, (caption, _) in FIGURES.items():
        data = base64.b64encode(pngs[name]).decode()
        parts.append(
            f"<figure id='fig-{name}'><img alt='{e(caption)}' src='data:image/png;base64,{data}'>"
            f"<figcaption>{e(caption)}</figcaption></figure>"
        )
    if report["notes"]:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in report["notes"]))
        parts.append("</ul>")
    parts.append("<p>Every number per step: <code>report.json</code>.</p></body></html>")
    return "\n".join(parts) + "\n"


def _markdown(report: dict) -> str:
    v = report["summary"]["verdict"]
    lines = [
        "# GRPO collapse report",
        "",
        f"`{report['source']}` ({report['format']}, steps {report['summary']['first_step']}-"
        f"{report['summary']['last_step']})",
        "",
        f"Advantages: {std_text(report['std'])}",
        "",
        "## Verdict",
        "",
        v["text"],
        "",
        "## Run means",
        "",
        "| metric | mean over steps | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| `{n}` | {x} | {m} |" for n, x, m in _summary_rows(report)]
    lines += ["", "## Figures", ""]
    lines += [f"![{cap}](figures/{name}.png)\n" for name, (cap, _) in FIGURES.items()]
    if report["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in report["notes"]] + [""]
    lines += ["Every number per step: `report.json`.", ""]
    return "\n".join(lines)


def write_report(out: Path, report: dict, page: str = "html") -> Path:
    """Write ``report.json``, ``figures/*.png`` and the page (``html`` or ``md``) under
    ``out``; returns the page's path."""
    if page not in ("html", "md"):
        raise ValueError(f"page must be 'html' or 'md', got {page!r}")
    out.mkdir(parents=True, exist_ok=True)
    names = {k for row in report["steps"] for k in row if k in METRICS}
    report = {**report, "metrics": {k: METRICS[k].meaning for k in sorted(names)}}
    (out / "report.json").write_text(json.dumps(jsonable(report), indent=1) + "\n")
    (out / "figures").mkdir(exist_ok=True)
    pngs = {name: _png(make(report["steps"])) for name, (_, make) in FIGURES.items()}
    for name, data in pngs.items():
        (out / "figures" / f"{name}.png").write_bytes(data)
    path = out / f"report.{page}"
    path.write_text(_html(report, pngs) if page == "html" else _markdown(report))
    return path
