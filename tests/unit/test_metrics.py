"""The metric registry and the name check (rcgrpo/metrics.py)."""

from __future__ import annotations

import pytest
import torch

from rcgrpo import group_advantages, group_diagnostics, policy_loss
from rcgrpo import metrics as reg


def test_names_are_unique_and_namespaced():
    names = [name for name, _, _ in reg._ENTRIES]
    assert len(names) == len(set(names)) == len(reg.METRICS)
    for name, metric in reg.METRICS.items():
        space, _, rest = name.partition("/")
        assert space == metric.namespace and space in reg.NAMESPACES and rest, name
        assert metric.meaning and metric.formula, name
    assert set(reg.NAMESPACES) == {m.namespace for m in reg.METRICS.values()}


def test_library_outputs_use_registry_names():
    r = torch.tensor([[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    high = torch.tensor([[True, False, True], [False, False, True]])
    diag = group_diagnostics(r, group_advantages(r), high, p=0.5)
    reg.validate_metric_names(k for k in diag if "/" in k)
    logp = torch.zeros(2, 3, requires_grad=True)
    _, stats = policy_loss(
        logp,
        logp.detach(),
        logp.detach(),
        torch.ones(2),
        torch.ones(2, 3),
        beta=0.1,
        entropy=torch.ones(2, 3),
        entropy_coef=0.1,
    )
    reg.validate_metric_names(stats)


def test_validate_rejects_unknown_names_with_a_hint():
    with pytest.raises(ValueError, match=r"'group/var_men' \(did you mean 'group/var_mean'\?\)"):
        reg.validate_metric_names({"reward/mean": 1.0, "group/var_men": 2.0})
    with pytest.raises(ValueError, match="'step'"):
        reg.validate_metric_names(["step"])  # bookkeeping keys are not metrics
