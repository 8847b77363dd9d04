r"""The generated blocks of the README and ``docs/`` that come from runs or from the code, and the
rows of ``results/INDEX.toml`` a campaign's verdict module writes.

``python -m analysis.report --write-readme`` rewrites them (never starting a run),
``--check-readme`` exits 1 when one is stale. Every campaign owns its blocks, its results page
``docs/results/<id>.md`` and its INDEX fields (``blocks`` and ``index`` of its entry in
:mod:`analysis.campaign.registry`; a campaign's block reads its own committed runs, so the
tables are the same on every clone). This module adds the blocks no campaign owns: the
README's studies table (``campaigns``, :func:`analysis.runs.index.markdown`), the index of the
results pages (``results-pages`` of ``docs/results.md``), the figure table of
``docs/experiments.md`` and the theory check of ``docs/theory-checks.md``
(:mod:`analysis.report.docs_tables`). :func:`generated_files` maps each file to its blocks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from analysis import REPO_ROOT
from analysis.campaign import registry
from analysis.campaign.entry import Entry
from analysis.runs import index
from analysis.runs.sources import THEORY_REPORT, Resolver, layout_resolver
from rcgrpo.docblocks import markers, update_file

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
RESULTS_INDEX = "results.md"
"""The index of the campaigns' results pages, in ``docs/``."""


def _resolver(runs_root: Path | None = None) -> Resolver | None:
    """Every finished run below ``runs_root`` when given, else None: each block reads its own
    campaign's runs."""
    return layout_resolver(runs_root) if runs_root is not None else None


def page_path(page: str, readme: Path = README, docs: Path = DOCS) -> Path:
    """The file of a page named relative to the repository (``README.md``, ``docs/...``)."""
    if page == "README.md":
        return readme
    if not page.startswith("docs/"):
        raise ValueError(f"a generated page is the README or under docs/, got {page!r}")
    return docs / page.removeprefix("docs/")


def _titles(index_path: Path) -> dict[str, str]:
    return {s.id: s.title for s in index.studies(index_path)}


def pages_markdown(index_path: Path = index.INDEX) -> str:
    """The ``results-pages`` block of ``docs/results.md``: each campaign with a results page,
    its INDEX title and the blocks the page holds."""
    titles = _titles(index_path)
    lines = ["| campaign | its generated tables |", "|---|---|"]
    for entry in registry.entries().values():
        own = [f"`{b.name}`" for b in entry.blocks if not b.page]
        if own:
            title = titles.get(entry.id, entry.id).replace("|", "\\|")
            lines.append(f"| [{title}](results/{entry.id}.md) | {', '.join(own)} |")
    return "\n".join(lines) + "\n"


def own_blocks(index_path: Path = index.INDEX) -> dict[str, dict[str, str]]:
    """Page -> block name -> body for the blocks no campaign owns (module docstring)."""
    from analysis.report.docs_tables import figures_markdown, theory_markdown

    return {
        "README.md": {"campaigns": index.markdown(index.studies(index_path))},
        f"docs/{RESULTS_INDEX}": {"results-pages": pages_markdown(index_path)},
        "docs/experiments.md": {"figures": figures_markdown()},
        "docs/theory-checks.md": {"theory": theory_markdown(json.loads(THEORY_REPORT.read_text()))},
    }


def campaign_blocks(entry: Entry, resolve: Resolver | None = None) -> dict[str, dict[str, str]]:
    """Page -> block name -> body for the blocks of campaign ``entry`` (``""``: its page)."""
    out: dict[str, dict[str, str]] = {}
    for block in entry.blocks:
        render = registry.function(entry, block.render)
        body = render(resolve) if block.runs else render()
        out.setdefault(block.page or entry.page, {})[block.name] = body
    return out


def generated_files(
    resolve: Resolver | None = None,
    readme: Path = README,
    docs: Path = DOCS,
    index_path: Path = index.INDEX,
) -> dict[Path, dict[str, str]]:
    """Every generated block: file -> block name -> body."""
    pages = own_blocks(index_path)
    for entry in registry.entries().values():
        for page, blocks in campaign_blocks(entry, resolve).items():
            taken = set(pages.get(page, {})) & set(blocks)
            if taken:
                raise ValueError(f"{page}: block(s) {sorted(taken)} named twice ({entry.id})")
            pages.setdefault(page, {}).update(blocks)
    return {page_path(p, readme, docs): blocks for p, blocks in pages.items()}


def new_page(entry_id: str, blocks: dict[str, str], index_path: Path = index.INDEX) -> str:
    """A campaign's results page before its first write: its INDEX title and a marker pair
    per block (prose around them is written by hand)."""
    title = _titles(index_path).get(entry_id, entry_id)
    pairs = "\n".join(f"{markers(n)[0]}\n{markers(n)[1]}\n" for n in blocks)
    return f"# {title}\n\n{pairs}"


def index_rows() -> dict[str, dict[str, str]]:
    """``results/INDEX.toml`` row id -> the fields its campaign's verdict module writes
    (``index`` of its entry)."""
    return {e.id: registry.function(e, e.index)() for e in registry.entries().values() if e.index}


def write_index(index_path: Path, check: bool) -> list[str]:
    """Rewrite (``check``: only compare) the generated fields of each row of
    :func:`index_rows` (:data:`analysis.runs.index.GENERATED_FIELDS`,
    :func:`analysis.runs.index.set_fields`), or add the whole row when the index has none yet
    (:func:`analysis.runs.index.add_study`); returns what changed."""
    have = {s.id for s in index.studies(index_path)}
    changed = []
    for study, fields in index_rows().items():
        if study in have:
            generated = {k: v for k, v in fields.items() if k in index.GENERATED_FIELDS}
            names = index.set_fields(study, generated, index_path, check)
        else:
            names = index.add_study({"id": study, **fields}, index_path, check)
        changed += [f"{index_path.name}: {study} {n}" for n in names]
    return changed


def write_pages(files: dict[Path, dict[str, str]], docs: Path, check: bool, index_path: Path):
    """Rewrite (``check``: only compare) every block of ``files``; a campaign's results page
    that does not exist yet is made (:func:`new_page`). Returns what changed."""
    changed = []
    for path, blocks in files.items():
        if not path.exists() and path.parent == docs / "results":
            changed.append(f"{path.name}: new page")
            if check:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new_page(path.stem, blocks, index_path))
        changed += [f"{path.name}: {n}" for n in update_file(path, blocks, check)]
    return changed


def readme_main(
    check: bool,
    runs_root: Path | None = None,
    readme: Path = README,
    docs: Path = DOCS,
    index_path: Path | None = None,
) -> int:
    """``--write-readme`` / ``--check-readme`` on the generated rows of ``results/INDEX.toml``
    (:func:`write_index`; first, as the README's studies table reads them) and every file of
    :func:`generated_files`: exit 0 done or up to date, 1 stale (check), 2 a file or its markers
    missing."""
    index_path = index_path or index.INDEX
    try:
        changed = write_index(index_path, check)
        files = generated_files(_resolver(runs_root), readme, docs, index_path)
        changed += write_pages(files, docs, check, index_path)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if check and changed:
        print(f"[report] stale block(s) {'; '.join(changed)}; run --write-readme")
        return 1
    print(f"[report] {'rewrote ' + '; '.join(changed) if changed else 'up to date'}")
    return 0
