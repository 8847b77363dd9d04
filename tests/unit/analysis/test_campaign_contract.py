"""The campaign contract: a campaign is one folder, found by the registry
(analysis/campaign/registry.py), with no central list to edit.

- No module outside a campaign folder imports one (``analysis.campaigns.<pkg>``), statically or
  by a constant ``importlib.import_module``: the registry's loader reads the folders.
- A throwaway campaign written to a temporary folder (one arm, one block, one LaTeX table, its
  INDEX row), with the registry's search path pointed there and no other file edited, is in
  ``make campaign``'s listing, in the arms and presets, in the README's studies table, on its
  own results page (made on the first write) and the results index, and in the report.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from analysis.campaign import arms as am
from analysis.campaign import registry
from analysis.campaign.__main__ import main as campaign_main
from analysis.campaigns import presets as ps
from analysis.report import docs_tables
from analysis.report import readme_results as rr
from analysis.report.__main__ import campaign_tables
from analysis.runs import index as ix
from rcgrpo.docblocks import markers

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ROOT / "analysis" / "campaigns"
LOADER = "analysis.campaign.registry"
"""The one module outside the folders that imports them (dynamically)."""


def campaign_folders() -> set[str]:
    """``analysis.campaigns.<pkg>`` of every campaign folder."""
    return {f"analysis.campaigns.{p.parent.name}" for p in FOLDERS.glob("*/__init__.py")}


def imported(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import statement of ``source`` and every
    ``importlib.import_module("...")`` with a constant name, wherever they stand."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((node.lineno, str(node.args[0].value)))
    return found


def outside_imports(root: Path = ROOT) -> list[str]:
    """``path:line: module`` for each import of a campaign folder by a module of ``analysis/``
    or ``rcgrpo/`` outside the campaign folders, the loader excepted."""
    folders = campaign_folders()
    wrong = []
    for path in sorted(p for pkg in ("analysis", "rcgrpo") for p in (root / pkg).rglob("*.py")):
        rel = path.relative_to(root)
        name = ".".join(rel.with_suffix("").parts)
        if any(name == f or name.startswith(f + ".") for f in folders) or name == LOADER:
            continue
        for line, module in imported(path.read_text()):
            if any(module == f or module.startswith(f + ".") for f in folders):
                wrong.append(f"{rel}:{line}: {module}")
    return wrong


def test_no_module_outside_a_campaign_folder_imports_one():
    assert outside_imports() == []


def test_the_import_check_finds_what_it_looks_for():
    source = textwrap.dedent(
        """
        import importlib
        from analysis.campaigns import presets
        from analysis.campaigns.pool import driver
        def f():
            import analysis.campaigns.collapse.tables
            return importlib.import_module("analysis.campaigns.regime_d10.rules")
        """
    )
    assert [m for _, m in imported(source)] == [
        "importlib",
        "analysis.campaigns.presets",
        "analysis.campaigns.pool.driver",
        "analysis.campaigns.collapse.tables",
        "analysis.campaigns.regime_d10.rules",
    ]
    assert {"analysis.campaigns.pool", "analysis.campaigns.regime_d10"} <= campaign_folders()
    assert "analysis.campaigns.presets" not in campaign_folders()


TOY = "toy-campaign"
TOY_FILES = {
    "__init__.py": "",
    "toy_campaign/__init__.py": "",
    "toy_campaign/campaign.py": """
        from analysis.campaign.entry import Block, Entry, Table
        from analysis.campaign.mechanics import Campaign, RunSpec


        def build():
            camp = Campaign()
            argv = ("train", "--preset", "toy-grpo", "--run.seed", "0")
            camp.add("toy-factorial", RunSpec("toy-grpo-s0", argv, home="toy"))
            return camp


        ENTRY = Entry(
            "toy-campaign",
            "one arm on the toy suite",
            build,
            lambda camp: list(camp.experiments),
            lambda names, jobs, force, dry: None,
            blocks=(Block("toy-finding", "report:finding"),),
            tables=(Table("toy.tex", "report:tex"),),
            index="report:row",
        )
        """,
    "toy_campaign/arms.py": """
        from analysis.campaign.arms import Arm

        ARMS = (Arm("toy-grpo", "sft", "SFT + GRPO", "GRPO", "black", "toy-factorial", "sft_grpo"),)
        """,
    "toy_campaign/presets.py": """
        BASE = {"algo": {"kl_beta": 0.05}}
        INITS = {"sft": "runs/toy/sft/final", "rctp": "runs/toy/rctp/final"}
        SUITE = "toy suite"
        CHANGES = {"toy-grpo": {}}
        """,
    "toy_campaign/report.py": """
        def finding():
            return "The toy arm learns nothing.\\n"


        def tex():
            return "\\\\begin{tabular}{l}toy\\\\end{tabular}\\n"


        def row():
            return {
                "title": "Toy campaign: one arm",
                "suite": "toy",
                "status": "planned",
                "folders": ["toy/toy-grpo-s*"],
                "protocol": "docs/experiments.md",
                "verdicts": "toy_campaign/report.py",
                "finding": "Nothing yet.",
                "summary": "Nothing yet.",
            }
        """,
}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The throwaway campaign in ``tmp/<lab>/toy_campaign``, the registry searching only
    ``<lab>`` (a package name of its own per test, so no module or cache is shared)."""
    lab = f"toylab_{tmp_path.name.replace('-', '_')}"
    for name, text in TOY_FILES.items():
        path = tmp_path / lab / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "SEARCH", (lab,))
    return tmp_path


def test_a_throwaway_campaign_is_listed_armed_and_given_presets(toy, capsys):
    assert campaign_main(["--ids"]) == 0
    assert capsys.readouterr().out.split() == [TOY]
    assert campaign_main(["--campaign", TOY, "--list"]) == 0
    assert capsys.readouterr().out.split() == ["toy-factorial", "toy-grpo-s0", "missing"]
    assert am.REGIMES == (TOY,)
    assert [(a.preset, a.regime) for a in am.arms(TOY)] == [("toy-grpo", TOY)]
    table = ps.build()
    assert table["toy-grpo"].init == "runs/toy/sft/final" and table["toy-grpo"].algo.kl_beta == 0.05
    assert table.descriptions["toy-grpo"] == "SFT + GRPO (toy suite)"


def test_a_throwaway_campaign_is_in_the_readme_table_its_page_and_the_report(toy, monkeypatch):
    monkeypatch.setattr(docs_tables, "figures_markdown", lambda: "figures\n")  # not under test
    readme, docs, index = toy / "README.md", toy / "docs", toy / "INDEX.toml"
    index.write_text(ix.INDEX.read_text())
    shared = {
        readme: "campaigns",
        docs / "results.md": "results-pages",
        docs / "experiments.md": "figures",
        docs / "theory-checks.md": "theory",
    }
    for path, block in shared.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(markers(block)) + "\n")
    assert rr.readme_main(True, None, readme, docs, index) == 1  # its row and page are missing
    assert rr.readme_main(False, None, readme, docs, index) == 0
    assert rr.readme_main(True, None, readme, docs, index) == 0
    assert ix.studies(index)[-1].id == TOY  # its row, from its entry
    assert "| Toy campaign: one arm | toy | planned, no runs yet | 0 |" in readme.read_text()
    page = (docs / "results" / f"{TOY}.md").read_text()
    assert page.startswith("# Toy campaign: one arm\n")
    assert "The toy arm learns nothing." in page
    listed = (docs / "results.md").read_text()
    assert f"| [Toy campaign: one arm](results/{TOY}.md) | `toy-finding` |" in listed
    out = toy / "generated"
    out.mkdir()
    assert campaign_tables(out, None) == ["toy.tex"]
    assert (out / "toy.tex").read_text() == "\\begin{tabular}{l}toy\\end{tabular}\n"
