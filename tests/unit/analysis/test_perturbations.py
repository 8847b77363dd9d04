"""Task-agnostic perturbations of the ground truth, scored by R and by BFCL's rule."""

from __future__ import annotations

import pytest

from analysis.diagnostics.perturbations import (
    PERTURBATIONS,
    drop_last_turn,
    perturbation_summary,
    perturbation_table,
    shift_call_earlier,
    swap_first_two,
    wrong_function,
    wrong_value,
)
from rcgrpo.env import load_bfcl_tasks
from tests.worked_example import MV, RM, WORKED


def test_edits_of_the_worked_example():
    gt = [[MV, RM]]
    assert swap_first_two(WORKED, gt) == [[RM, MV]]
    assert wrong_value(WORKED, gt) == [["mv(source='report.csv_x', destination='archive')", RM]]
    # the alphabetically first other GorillaFileSystem function, same arguments
    assert wrong_function(WORKED, gt) == [["cat(source='report.csv', destination='archive')", RM]]
    assert drop_last_turn(WORKED, gt) is None and shift_call_earlier(WORKED, gt) is None
    assert gt == [[MV, RM]]  # inputs are never modified
    assert shift_call_earlier(WORKED, [["a()"], ["b()", "c()"]]) == [["a()", "b()"], ["c()"]]
    assert wrong_value(WORKED, [["f(n=3, flag=True)"]]) == [["f(n=4, flag=True)"]]
    assert wrong_value(WORKED, [["pwd()"]]) is None


def test_worked_example_scores():
    # ground truth: 1. drop rm ("only mv"): temp.log remains (state 0) and rm is unmatched
    # (action 0). duplicate rm: the second rm fails on a missing file, the state is unchanged,
    # both gold calls matched -> 1, and BFCL's results are still contained -> valid.
    # swap: order-free -> 1. wrong value / wrong function: mv fails, report.csv stays -> 0.
    table = perturbation_table([WORKED]).set_index("perturbation")
    expected = {
        "ground_truth": (1, 1, 1.0, True),
        "drop_last_call": (0, 0, 0.0, False),
        "duplicate_last_call": (1, 1, 1.0, True),
        "swap_first_two": (1, 1, 1.0, True),
        "wrong_value": (0, 0, 0.0, False),
        "wrong_function": (0, 0, 0.0, False),
    }
    got = table[["state", "action", "reward", "bfcl_valid"]].apply(tuple, axis=1).to_dict()
    assert got == expected


@pytest.mark.bfcl
def test_laws_on_bfcl_tasks():
    tasks = load_bfcl_tasks(["base"])[:12]
    table = perturbation_table(tasks)
    by = dict(tuple(table.groupby("perturbation")))
    assert (by["ground_truth"]["reward"] == 1.0).all() and by["ground_truth"]["bfcl_valid"].all()
    # a truncated episode scores 0 under both rules; a wrong function is never matched
    for name in ("drop_last_turn", "wrong_function", "drop_last_call"):
        assert (by[name]["reward"] == 0.0).all(), name
    assert not by["drop_last_turn"]["bfcl_valid"].any()
    summary = perturbation_summary(table)
    assert list(summary.index) == ["ground_truth", *PERTURBATIONS]
    assert summary.loc["ground_truth", "tasks"] == 12
    # R is order-free across turns, BFCL is per turn: shifting work earlier keeps R = 1 more
    # often than it keeps BFCL valid, and combined mode (one turn) removes that difference
    shifted = summary.loc["shift_call_earlier"]
    assert shifted["reward"] > shifted["bfcl_valid"]
    combined = perturbation_summary(perturbation_table(tasks, mode="combined"))
    assert combined.loc["shift_call_earlier", "disagree"] == 0.0
    with pytest.raises(ValueError, match="empty"):
        perturbation_summary(table.iloc[:0])
