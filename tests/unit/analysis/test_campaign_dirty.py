"""A campaign that would train refuses a checkout with uncommitted changes: one line naming
them, exit 1, nothing started; ``--allow-dirty`` and ``--dry-run`` go on
(:func:`analysis.campaign.__main__.check_clean`)."""

from __future__ import annotations

import pytest

from analysis.campaign import __main__ as cli
from analysis.campaign import registry
from analysis.campaign.entry import Entry
from analysis.campaign.mechanics import Campaign

DIRTY = [f"rcgrpo/m{i}.py" for i in range(7)]


@pytest.fixture
def started(monkeypatch) -> list[tuple]:
    """Every start of training the campaign CLI asks for (a fake campaign ``x``), with the
    checkout's dirty paths faked as :data:`DIRTY`."""
    calls: list[tuple] = []
    camp = Campaign(experiments={"exp": []})
    entry = Entry(
        "x", "fake", lambda: camp, lambda c: ["exp"], lambda *a: calls.append(("run", *a))
    )
    monkeypatch.setattr(registry, "campaign", lambda cid: entry)
    monkeypatch.setattr(cli, "_known", lambda c, names: names)
    monkeypatch.setattr(cli, "run_all", lambda *a, **k: calls.append(("run_all", *a[1:3])))
    monkeypatch.setattr(cli, "dirty_paths", lambda root: list(DIRTY))
    monkeypatch.delenv("RCGRPO_JOBS", raising=False)  # --jobs defaults to 2
    return calls


@pytest.mark.parametrize("extra", [[], ["--runs", "sft-s0"]], ids=["campaign", "runs"])
def test_a_dirty_checkout_is_refused_in_one_line_and_nothing_starts(started, capsys, extra):
    assert cli.main(["--campaign", "x", *extra]) == 1
    out, err = capsys.readouterr()
    assert (out, started) == ("", [])
    assert err.splitlines() == [
        "error: the checkout has uncommitted changes (rcgrpo/m0.py, rcgrpo/m1.py, rcgrpo/m2.py, "
        "rcgrpo/m3.py, rcgrpo/m4.py and 2 more): commit them so every run is reproducible from "
        "its commit, or pass --allow-dirty (each run then writes git.diff beside its "
        "summary.json); nothing was started"
    ]


@pytest.mark.parametrize("flag", ["--allow-dirty", "--dry-run"])
def test_allow_dirty_and_dry_run_go_on(started, capsys, flag):
    assert cli.main(["--campaign", "x", flag]) == 0
    assert started == [("run", ["exp"], 2, False, flag == "--dry-run")]
    assert cli.main(["--campaign", "x", "--runs", "a", flag]) == 0
    assert started[1] == ("run_all", ["a"], 2)


def test_a_clean_checkout_trains(started, monkeypatch):
    monkeypatch.setattr(cli, "dirty_paths", lambda root: [])
    assert cli.main(["--campaign", "x", "--jobs", "1"]) == 0
    assert started == [("run", ["exp"], 1, False, False)]


def test_listing_needs_no_clean_checkout(started, capsys):
    assert cli.main(["--campaign", "x", "--list"]) == 0
    assert started == [] and capsys.readouterr().err == ""
