"""``python -m analysis.figures build --jobs N`` hands each process a group of figures: a figure
whose module uses another figure module's functions is built in the same process, after or
before it, so a computation they share (an ``lru_cache``) runs once."""

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
