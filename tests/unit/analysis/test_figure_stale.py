"""``python -m analysis.figures stale``: a figure whose sidecar names inputs other than the
ones there now (a file added to its ``INPUTS`` glob, changed or gone) is stale, without
drawing anything; and no committed figure is (marked results: it reads the lab's files)."""

from __future__ import annotations

import sys
import types

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import analysis.figures.__main__ as builder  # noqa: E402

TOY = "_toy_figure_for_staleness"


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A figure ``toy`` reading ``data/*.json`` under a repository root ``tmp_path/repo``,
    built once into ``tmp_path/figures``; returns (repo, figures folder)."""
    repo, out = tmp_path / "repo", tmp_path / "figures"
    (repo / "data").mkdir(parents=True)
    out.mkdir()
    (repo / "data" / "a.json").write_text('{"x": 1}')
    module = types.ModuleType(TOY)
    module.INPUTS = ("data/*.json",)
    module.make_figure = lambda runs: plt.figure(figsize=(1, 1))
    monkeypatch.setitem(sys.modules, TOY, module)
    monkeypatch.setattr(builder, "ROOT", repo)
    monkeypatch.setattr(builder, "modules", lambda: {"toy": TOY})
    builder.build_one("toy", out, ("png",))
    return repo, out


def test_a_figure_just_built_is_not_stale(toy):
    _, out = toy
    assert builder.stale("toy", out) == []


def test_a_file_added_changed_or_gone_makes_it_stale(toy):
    repo, out = toy
    (repo / "data" / "b.json").write_text("{}")
    assert builder.stale("toy", out) == ["added data/b.json"]
    (repo / "data" / "a.json").write_text('{"x": 2}')
    assert builder.stale("toy", out) == ["added data/b.json", "changed data/a.json"]
    builder.build_one("toy", out, ("png",))
    (repo / "data" / "b.json").unlink()
    assert builder.stale("toy", out) == ["gone data/b.json"]


def test_a_missing_sidecar_is_stale(toy):
    _, out = toy
    (out / "toy.json").unlink()
    assert builder.stale("toy", out) == ["no sidecar toy.json"]


def test_the_command_names_the_stale_figure_and_exits_1(toy, capsys):
    repo, out = toy
    assert builder.main(["stale", "--out", str(out)]) == 0
    (repo / "data" / "a.json").write_text("[]")
    assert builder.main(["stale", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "[figures] toy: changed data/a.json" in captured.out
    assert "build --only toy" in captured.err


@pytest.mark.results
def test_no_committed_figure_is_older_than_its_inputs():
    old = {n: r for n in builder.discover() if (r := builder.stale(n, builder.ROOT / "figures"))}
    assert not old, f"rebuild (python -m analysis.figures build --only ...): {old}"
