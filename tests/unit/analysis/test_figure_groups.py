"""``python -m analysis.figures build --jobs N`` hands each process a group of figures: a figure
whose module uses another figure module's functions, or that reads runs of an experiment another
figure reads, is built in the same process, so what they share (an ``lru_cache``, a run's
staleness check and parsed tables) is computed once."""

from __future__ import annotations

import analysis.figures.__main__ as builder


def test_every_figure_is_in_exactly_one_group_in_the_order_given():
    names = builder.discover()
    groups = builder.groups(names)
    flat = [n for g in groups for n in g]
    assert sorted(flat) == sorted(names) and len(flat) == len(names)
    for g in groups:
        assert g == sorted(g, key=names.index)
    assert [g[0] for g in groups] == sorted((g[0] for g in groups), key=names.index)


def test_the_beta_figure_is_built_with_the_fit_it_reads():
    groups = builder.groups(builder.discover())
    (group,) = [g for g in groups if "theory_separation_beta" in g]
    assert "theory_separation_fit" in group


def test_figures_sharing_nothing_stay_apart():
    names = ["theory_collapse", "theory_variance", "stage1"]
    assert builder.groups(names) == [[n] for n in names]


def test_figures_reading_runs_of_one_experiment_share_a_group():
    names = builder.discover()
    modules = builder.modules()
    readers: dict[str, set[str]] = {}
    for name in names:
        module = __import__(modules[name], fromlist=["REQUIRES"])
        for experiment in getattr(module, "REQUIRES", ()):
            readers.setdefault(experiment, set()).add(name)
    assert readers, "no figure reads runs: the rule has nothing to test"
    groups = builder.groups(names)
    for experiment, figures in readers.items():
        assert any(figures <= set(g) for g in groups), (experiment, figures)
