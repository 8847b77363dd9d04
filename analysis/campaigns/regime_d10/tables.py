r"""The regime suite's tables: the Table 1 analogue, pass@k of final checkpoints, verdicts.

Markdown blocks (``python -m analysis.report --write-readme``): ``regime-table1`` and
``regime-passk`` of ``docs/results/regime-d10.md``, ``regime-verdicts`` of ``docs/findings.md`` (the paper's
claims, :data:`README_RULES`); LaTeX for the paper (``paper/generated/regime_*.tex``): the Table 1
analogue split in two (:data:`TEX_MAIN`, per category), pass@k and the verdict table.

The Table 1 analogue is read from the committed runs ``results/regime/<arm>-s<seed>`` of the
``regime-factorial`` arms (:data:`analysis.campaign.arms.ARMS`), then of every other arm of the
regime that has a run (the baselines, the matched and stratified arms), on every seed the
verdict rules may count (:data:`analysis.verdicts.rules.RESERVED_SEEDS` never do). Per arm: the seeds, greedy
held-out success at the first and the last evaluation and their difference (the run's
evaluation goal: high for the RC arms; 1,000 held-out tasks), the last evaluation per task
category, the share of planted decision points that are right at the end, and the paper's
Table 1 (BFCL accuracy of single runs on 80 tasks, for the ordering only: a different model,
scale and task suite). Each cell is the mean over seeds ± the 95% Student-t half-width
(:func:`analysis.stats.mean_ci`), in %; arms differ in their seeds, so the rows are not a
paired comparison (that is the verdict table, paired by task and seed).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign.arms import Arm, arms
from analysis.campaigns.regime_d10 import population as pop
from analysis.campaigns.regime_d10.rules import RULES
from analysis.report.latex import escape, tabular
from analysis.report.paper_table1 import PAPER_LLAMA, PAPER_QWEN
from analysis.runs import Run
from analysis.runs.sources import layout_resolver
from analysis.stats import mean_ci
from analysis.verdicts import rules as rv

DASH = "—"
SPEED = "speed 25–175"
"""Learning speed: mean held-out success over the evaluations at steps 25–175
(:func:`analysis.verdicts.rules.speed_overall`; a run evaluated every 100 steps has none)."""
CATEGORY_PREFIX = "synth/"


def _rate(summary: dict) -> float:
    """A success summary (``{"successes": k, "n": n, ...}``) as a rate."""
    return summary["successes"] / summary["n"] if summary.get("n") else float("nan")


def cell(values: list[float]) -> str:
    """Mean ± 95% t half-width in % (one value: the mean alone; none: a dash)."""
    est = mean_ci(values)
    if est is None:
        return DASH
    pm = f" ± {100 * est.half_width:.1f}" if est.half_width is not None else ""
    return f"{100 * est.mean:.1f}{pm}"


def _columns(categories: list[str]) -> dict[str, Callable[[Run], float]]:
    def start(r: Run) -> float:
        return _rate(rv.evaluation(r, "first")["overall"]["reward"])

    def end(r: Run) -> float:
        return _rate(rv.evaluation(r, "last")["overall"]["reward"])

    def category(name: str) -> Callable[[Run], float]:
        def read(r: Run) -> float:
            per = rv.evaluation(r, "last").get("per_category", {})
            return _rate(per[name]["reward"]) if name in per else float("nan")

        return read

    def decisions(r: Run) -> float:
        right = rv.evaluation(r, "last").get("decisions", {}).get("right")
        return _rate(right) if right else float("nan")

    cols = {"start": start, "end": end, "Δ": lambda r: end(r) - start(r)}
    cols |= {SPEED: rv.speed_overall}
    cols |= {c.removeprefix(CATEGORY_PREFIX): category(c) for c in categories}
    return cols | {"decision points right": decisions}


def shown(by_arm: Mapping[str, Mapping[int, object]]) -> list[Arm]:
    """The rows of a per-arm table: the factorial's four cells (always), then every other arm
    of the regime with a run or report in ``by_arm``, in :data:`~analysis.campaign.arms.ARMS`
    order."""
    return [
        a for a in arms("regime-d10") if a.experiment == "regime-factorial" or by_arm.get(a.preset)
    ]


def table1_rows(by_arm: Mapping[str, Mapping[int, Run]]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the table from {arm preset: {seed: run}} (rows: :func:`shown`)."""
    cells = shown(by_arm)
    runs = {a.preset: dict(sorted(by_arm.get(a.preset, {}).items())) for a in cells}
    categories = sorted(
        {
            c
            for rs in runs.values()
            for r in rs.values()
            for c in rv.evaluation(r, "last").get("per_category", {})
        }
    )
    columns = _columns(categories)
    head = ["init", "stage 2", "seeds", *columns, "paper Qwen2.5-7B", "paper Llama-3.1-8B"]
    rows = []
    for a in cells:
        rs = list(runs[a.preset].values())
        seeds = ", ".join(map(str, runs[a.preset])) or DASH
        values = [cell([f(r) for r in rs]) for f in columns.values()]
        paper = [PAPER_QWEN.get(a.role, DASH), PAPER_LLAMA.get(a.role, DASH)]
        rows.append([a.init, a.method, seeds, *values, *paper])
    return head, rows


def markdown_table(head: list[str], rows: list[list[str]], labels: int = 3) -> str:
    """A markdown table: ``labels`` left-aligned label columns, the rest right-aligned."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * labels + "--:|" * (len(head) - labels)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def table1_markdown(by_arm: Mapping[str, Mapping[int, Run]]) -> str:
    """The ``regime-table1`` block (:func:`table1_rows` as markdown)."""
    return markdown_table(*table1_rows(by_arm))


def _by_arm(root: Path, presets) -> dict[str, dict[int, Run]]:
    resolve = layout_resolver(root)
    return pop.load_arms({p: resolve(p) for p in presets}, "admitted")


def every_arm(root: Path) -> dict[str, dict[int, Run]]:
    """{arm preset: {seed: run}} of every arm of the regime-d10 campaign under ``root``."""
    return _by_arm(root, [a.preset for a in arms("regime-d10")])


@functools.lru_cache(maxsize=4)
def regime_report(root: Path):
    """Every rule and check of the new regime on the committed runs under ``root``: the
    registered (admitted) population and the intention-to-treat one
    (:func:`analysis.campaigns.regime_d10.verdict_table.report`), cached per root."""
    from analysis.campaigns.regime_d10 import verdict_table as vt

    resolve = layout_resolver(root)
    found = {p: resolve(p) for p in sorted({a for r in RULES for a in r.arms})}
    return vt.report(pop.load_arms(found, "admitted"), pop.load_arms(found, "itt"))


def tex_table(head: list[str], rows: list[list[str]], **kw) -> str:
    """:func:`~analysis.report.latex.tabular` of plain-text cells: three label columns, the
    rest right-aligned."""
    cells = [[escape(c) for c in r] for r in rows]
    return tabular([escape(h) for h in head], cells, "lll" + "r" * (len(head) - 3), **kw)


def table1_block(root: Path) -> str:
    """:func:`table1_markdown` of the committed runs under ``root``."""
    return table1_markdown(every_arm(root))


TEX_MAIN = (
    "init",
    "stage 2",
    "seeds",
    "start",
    "end",
    "Δ",
    SPEED,
    "decision points right",
    "paper Qwen2.5-7B",
    "paper Llama-3.1-8B",
)
"""The columns of the paper's Table 1 analogue; the per-category columns are a table of
their own (``regime_categories.tex``), so that each fits the page."""


def _select(head: list[str], rows: list[list[str]], names) -> tuple[list[str], list[list[str]]]:
    idx = [head.index(n) for n in names]
    return [head[i] for i in idx], [[r[i] for i in idx] for r in rows]


def table1_latex(root: Path) -> str:
    """The paper's ``regime_table1.tex``: the :data:`TEX_MAIN` columns of :func:`table1_rows`
    of the runs under ``root``."""
    head, rows = _select(*table1_rows(every_arm(root)), TEX_MAIN)
    short = {
        "decision points right": "decisions",
        "paper Qwen2.5-7B": "paper Qwen",
        SPEED: "speed",
        "paper Llama-3.1-8B": "paper Llama",
    }
    return tex_table(
        [short.get(h, h) for h in head],
        rows,
        caption="The regime suite's Table~1 analogue: greedy held-out success (\\%) per "
        "arm at the first and last evaluation, and the planted decision points "
        "right at the end, beside the paper's Table~1.",
        label="tab:regime-table1",
        note=escape(
            "Mean over the arm's seeds ± 95% t half-width (1,000 held-out tasks; RC arms under "
            "the high goal). The arms' seeds differ (SFT + GRPO: the proof runs on seeds 0–2; "
            "the RCTP-FT arms: the admitted seeds), so rows are not paired; the verdicts ("
        )
        + "\\cref{tab:regime-verdicts}"
        + escape(
            ") are. Speed: mean held-out success over the evaluations at steps 25–175 "
            "(SFT + GRPO: the seeds evaluated every 25 steps; the proof runs 0–2 are evaluated "
            "every 100). Decisions: the planted decision points right at the end. The paper's "
            "columns (Qwen2.5-7B, Llama-3.1-8B) are BFCL accuracy of single runs on 80 tasks, "
            "for the ordering only."
        ),
        size="footnotesize",
        colsep="2pt",
    )


def categories_latex(root: Path) -> str:
    """The paper's ``regime_categories.tex``: final held-out success per task category."""
    head, rows = table1_rows(every_arm(root))
    names = head[head.index(SPEED) + 1 : head.index("decision points right")]
    return tex_table(
        *_select(head, rows, ["init", "stage 2", "seeds", "end", *names]),
        caption="The regime suite: final greedy held-out success (\\%) per task category.",
        label="tab:regime-categories",
        note=escape("As in ") + "\\cref{tab:regime-table1}" + escape(": mean over seeds ± 95% t."),
        size="footnotesize",
        colsep="3pt",
    )


SHORT_HEADER = (
    "rule",
    "claim",
    "estimate [95% CI]",
    "seeds × tasks",
    "p Holm",
    "verdict",
    "ITT estimate [95% CI]",
    "learning speed [95% CI], pts",
)
"""The columns of the findings page's and the paper's verdict table (the docs have them all)."""


def short_rows(root: Path, ids: tuple[str, ...] | None = None) -> list[list[str]]:
    """Rows of :data:`SHORT_HEADER` for the decided rules (``ids`` prefixes; default all),
    the by-construction rules left out (they are checks, not claims)."""
    from analysis.campaigns.regime_d10 import verdict_table as vt
    from analysis.verdicts import family as fm

    rep = regime_report(root)
    rows = []
    for d in rep.decisions:
        if d.family == "by construction" or (ids and d.rule.id[0] not in ids):
            continue
        cells = vt.rule_cells(d, rep.itt.get(d.rule.id), missing=rep.itt_missing.get(d.rule.id, ""))
        full = dict(zip(vt.RULE_HEADER, cells, strict=True))
        speed = (
            vt.interval_text(rep.speed.get(d.rule.id), 100, 1) if d.rule.id in fm.HELD_OUT else DASH
        )
        itt = rep.itt.get(d.rule.id)
        n = f" ({len(itt.outcome.seeds)} seeds)" if itt and itt.outcome.seeds else ""
        rows.append(
            [*(full[h] for h in SHORT_HEADER[:-2]), full["ITT estimate [95% CI]"] + n, speed]
        )
    return rows


def by_construction_line(root: Path) -> str:
    """One sentence per by-construction rule: its estimate, ITT estimate and why."""
    from analysis.campaigns.regime_d10 import verdict_table as vt

    rep = regime_report(root)
    out = []
    for d in (d for d in rep.decisions if d.family == "by construction"):
        itt = rep.itt.get(d.rule.id)
        i_iv = vt.interval_text(itt.outcome.interval) if itt else DASH
        out.append(
            f"{d.rule.id} ({d.rule.claim}) {d.verdict}: "
            f"{vt.interval_text(d.outcome.interval)} on the admitted seeds, {i_iv} intention to "
            f"treat ({itt.verdict if itt else 'not run'})."
        )
    return " ".join(out)


NOTE = (
    "p: two-sided t test against the rule's threshold, Holm-adjusted within its family "
    "(claims: C1, C3, I1, I2, T1–T5; mechanisms: E, D, S); equivalence: two one-sided tests "
    "against ±5 points, after the runs on the admitted seeds. ITT: the same rule on every "
    "seed whose RCTP-FT was trained (admitted or not; docs/protocols/regime-d10-reanalysis.md). "
    "Learning speed: the contrast on mean held-out success at steps 25–175 (exploratory). "
    "All seeds start from one base model (pool SFT seed 3): intervals cover Stage-1 and RL "
    "seed variance, not base-model variance."
)


def verdicts_latex(root: Path) -> str:
    """The paper's ``regime_verdicts.tex``: the decided rules of the new regime on the
    committed runs under ``root`` (:data:`SHORT_HEADER`; every column is in the docs)."""
    rows = [[escape(c) for c in r] for r in short_rows(root)]
    wrap = ">{\\raggedright\\arraybackslash}p{%s}"
    return tabular(
        [escape(h) for h in SHORT_HEADER],
        rows,
        ["l", wrap % "3.6cm", "r", "r", "r", wrap % "2.4cm", "r", "r"],
        caption="The regime suite's verdicts: rules and thresholds written down before the "
        "runs (\\code{docs/protocols/regime-d10.md}), decided with a family-wise correction "
        "(\\code{docs/protocols/regime-d10-reanalysis.md}).",
        label="tab:regime-verdicts",
        note=escape(NOTE + " " + by_construction_line(root)),
        size="scriptsize",
        colsep="2.5pt",
    )


DIAGNOSTICS = REPO_ROOT / "results" / "diagnostics"
"""Where ``regime-final-<run>.json`` lies: the regime diagnostic of an RL run's final
checkpoint under the run's evaluation goal, ``python -m analysis.diagnostics.regime --init <run>/checkpoints/step_200
--preset <arm> --conditions <goal> --seed <seed> --out results/diagnostics/regime-final-<run>.json``
(8 samples per task at τ = 1 on the first 200 of the 1,000 held-out tasks)."""
PASS_KS = (1, 2, 4, 8)


def final_reports(diagnostics: Path = DIAGNOSTICS) -> dict[str, dict[int, dict]]:
    """Arm preset -> {seed: the condition block of its final-checkpoint report} for the
    regime's arms, on the seeds the registered (admitted) population counts
    (:func:`analysis.campaigns.regime_d10.population.counts`)."""
    out: dict[str, dict[int, dict]] = {}
    for a in arms("regime-d10"):
        name = re.compile(rf"regime-final-{re.escape(a.preset)}-s(\d+)\.json")
        for path in sorted(diagnostics.glob(f"regime-final-{a.preset}-s*.json")):
            match = name.fullmatch(path.name)
            if match is None:  # e.g. regime-rcgrpo-strat-s3 under regime-rcgrpo-s*
                continue
            seed, report = int(match[1]), json.loads(path.read_text())
            if not pop.counts(a.preset, seed, "admitted") or report["preset"] != a.preset:
                continue
            (condition,) = report["conditions"].values()
            out.setdefault(a.preset, {})[seed] = condition
    return out


def passk_rows(reports: Mapping[str, Mapping[int, dict]]) -> tuple[list[str], list[list[str]]]:
    """(header, rows): per arm (:func:`shown`), greedy success and unbiased pass@k at τ = 1 of the
    final checkpoints (mean over seeds ± 95% t half-width, %)."""
    head = ["init", "stage 2", "seeds", "greedy", *(f"pass@{k}" for k in PASS_KS)]
    rows = []
    for a in shown(reports):
        by_seed = dict(sorted(reports.get(a.preset, {}).items()))
        conds = list(by_seed.values())
        seeds = ", ".join(map(str, by_seed)) or DASH
        greedy = cell([c["greedy"]["overall"] for c in conds])
        passk = [
            cell([c["pass_at_k"]["overall"][c["ks"].index(k)] for c in conds]) for k in PASS_KS
        ]
        rows.append([a.init, a.method, seeds, greedy, *passk])
    return head, rows


def passk_block(diagnostics: Path = DIAGNOSTICS) -> str:
    """The ``regime-passk`` block of docs/results/regime-d10.md (markdown)."""
    return markdown_table(*passk_rows(final_reports(diagnostics)))


def passk_latex(diagnostics: Path = DIAGNOSTICS) -> str:
    """The paper's ``regime_passk.tex``."""
    return tex_table(
        *passk_rows(final_reports(diagnostics)),
        caption="The regime suite: greedy success and unbiased pass@$k$ at $\\tau=1$ of each "
        "arm's final checkpoint (\\%; 8 samples on each of the first 200 held-out tasks).",
        label="tab:regime-passk",
        note=escape(
            "Mean over the seeds whose final checkpoint was measured ± 95% t half-width; RC arms "
            "under the high goal. pass@k = 1 − C(n − c, k)/C(n, k) with n = 8 samples, c successes."
        ),
        size="footnotesize",
        colsep="3pt",
    )


def admission_rows() -> tuple[list[str], list[list[str]]]:
    """(header, rows): every seed with an admission report, in the pre-registered order
    (:mod:`analysis.campaigns.regime_d10.driver`): the pool SFT its regime SFT starts from, pass@1 at τ
    under each goal on the 200-task diagnostic, their difference and the verdict."""
    from analysis import REPO_ROOT
    from analysis.campaigns.regime_d10 import driver as regime

    head = ["seed", "regime SFT starts from", "pass@1 high", "pass@1 low", "separation"]
    rows = []
    for seed in regime.SEED_ORDER:
        ok = regime.admitted(seed)
        if ok is None:
            continue
        report = json.loads(regime.admission_path(seed).read_text())
        high, low = (report["conditions"][c]["pass_at_k"]["overall"][0] for c in ("high", "low"))
        start = regime.stage1(seed)["pool"].copy.relative_to(REPO_ROOT) / "final"
        sep = f"{high - low:+.3f}".replace("-", "−")
        rows.append(
            [str(seed), f"`{start}`", f"{high:.3f}", f"{low:.3f}", sep, "yes" if ok else "no"]
        )
    return [*head, "admitted"], rows


def admission_block() -> str:
    """The ``regime-admission`` block of docs/results/regime-d10.md (markdown)."""
    head, rows = admission_rows()
    return markdown_table(head, rows, labels=2)


README_RULES = ("C", "I", "T")
"""Rule families the findings page shows (the paper's claims, informative variance, Table 1 order);
the entropy-matched (E) and stratified (S) rules and the checks are in docs/results/regime-d10.md."""


def readme_block(root: Path) -> str:
    """The ``regime-verdicts`` block of ``docs/findings.md``: the :data:`README_RULES` rows of the verdict
    table on the committed runs under ``root`` (:data:`SHORT_HEADER`), the by-construction
    rules in one sentence, then one line on the other rules."""
    rows = short_rows(root, README_RULES)
    lines = ["| " + " | ".join(SHORT_HEADER) + " |", "|---|---|--:|--:|--:|---|--:|--:|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    rest = [d for d in regime_report(root).decisions if d.rule.id[0] not in README_RULES]
    counts = Counter(d.verdict for d in rest)
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    lines += [
        "",
        by_construction_line(root),
        f"The other {len(rest)} rules (entropy-matched arms, DAPO and Dr. GRPO, stratified "
        f"goals): {summary}. {NOTE}",
    ]
    return "\n".join(lines) + "\n"
