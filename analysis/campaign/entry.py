"""The record of one campaign folder, ``ENTRY = Entry(...)`` of its ``campaign.py``
(:mod:`analysis.campaign.registry` finds it): everything the lab's shared code needs from the
campaign, so adding a campaign is one folder and no central list to edit.

A campaign that trains gives its driver (``summary``, ``build``, ``experiments``, ``run``,
``on_done``: ``make campaign C=<id>``); one whose runs are data only gives ``data_only``, the
line ``make campaign C=<id>`` prints, and ``trained_by``, the campaign whose driver trains its
runs when there is one. Every folder may give the generated blocks of the docs it owns
(:class:`Block`), the LaTeX files of the report (:class:`Table`; experiment tables of runs:
``run_tables``) and the fields of its
``results/INDEX.toml`` row its verdict module writes (``index``). A block, a table or the
index fields name a function of the folder as ``"module:function"`` (the module relative to
the folder's package), imported only when the docs or the report are written.

Three parts of a folder are found by their file names instead, so gathering them never imports
``campaign.py`` (whose own imports may read the arms): its arms (``ARMS`` of ``arms.py``,
gathered by :mod:`analysis.campaign.arms`), its presets (``presets.py``: ``BASE``, ``INITS``,
``CHANGES``, ``STAGE1``, ``DESCRIPTIONS`` and ``SUITE``, the synth suite its arms' presets name;
gathered by :mod:`analysis.campaigns.presets`) and its figures (``fig_<name>.py``,
:func:`analysis.campaign.registry.figure_modules`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analysis.campaign.mechanics import Campaign, RunSpec

RESULTS_PAGES = "docs/results"
"""The folder of the campaigns' results pages, one per campaign: ``docs/results/<id>.md``."""


@dataclass(frozen=True)
class Block:
    """A generated block of a docs page (between its ``<!-- begin:NAME -->`` markers)."""

    name: str
    """The block's marker name, unique on its page."""
    render: str
    """``"module:function"`` of the folder: the block's body."""
    page: str = ""
    """The page, relative to the repository (``docs/findings.md``); "": the campaign's own
    results page, ``docs/results/<id>.md``."""
    runs: bool = False
    """The function takes the report's resolver (the runs below ``--runs-root``, else None:
    its own), else no argument."""


@dataclass(frozen=True)
class Table:
    """A LaTeX file the report writes into ``paper/generated/``."""

    file: str
    """Its file name, e.g. ``collapse_verdicts.tex``."""
    render: str
    """``"module:function"`` of the folder: the file's text."""
    runs: bool = False
    """The function takes the report's resolver, else no argument."""


@dataclass(frozen=True)
class Entry:
    """One campaign folder (module docstring)."""

    id: str
    """Its ``results/INDEX.toml`` id and ``--campaign`` value (the folder: ``-`` as ``_``)."""
    summary: str = ""
    """What it trains, in one line (``--ids``)."""
    build: Callable[[], Campaign] | None = None
    """Every run of the campaign, by experiment (``--list``, ``--runs``, ``--export``); None:
    data only."""
    experiments: Callable[[Campaign], list[str]] | None = None
    """The experiments it trains when ``--only`` is not given, in order."""
    run: Callable[[list[str], int, bool, bool], None] | None = None
    """Train the runs of the named experiments that are not done: ``(experiments, jobs,
    force_train, dry_run)``."""
    on_done: Callable[[RunSpec], None] | None = None
    """What follows each run ``--runs`` trains (the pass@k and proof reports of the regime
    campaigns)."""
    data_only: str = "nothing to train"
    """A campaign without a driver: why, the line ``--campaign ID`` prints after its status."""
    trained_by: str = ""
    """A campaign without a driver: the id of the campaign whose driver trains its runs (its
    figures find their experiments there)."""
    blocks: tuple[Block, ...] = ()
    """The generated blocks of the docs it owns."""
    tables: tuple[Table, ...] = ()
    """The LaTeX files of the report it owns."""
    run_tables: str = ""
    """``"module:function"`` of the folder returning its experiment tables
    (:class:`~analysis.report.runtable.TableSpec`): one ``<name>.tex`` each, from finished runs
    of the experiments its rows name; the report names the missing ones (``--allow-missing``:
    *not yet run* rows)."""
    index: str = ""
    """``"module:function"`` of the folder: the fields of its ``results/INDEX.toml`` row that
    its verdict module writes (the whole row when the index has none yet)."""
    package: str = ""
    """The folder's package, ``analysis.campaigns.<pkg>``: set by the registry's loader."""

    @property
    def trains(self) -> bool:
        """Whether it has a driver."""
        return self.build is not None

    @property
    def page(self) -> str:
        """Its results page, relative to the repository."""
        return f"{RESULTS_PAGES}/{self.id}.md"
