"""Tables 4-5 analogues (analysis/campaigns/pool/dynamics_tables.py): hand-computed cells."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

from analysis.campaigns.pool.dynamics_tables import dynamics_tables
from analysis.campaigns.pool.report import dynamics_markdown
from analysis.campaigns.pool.tables import EXPERIMENTS, TABLES
from analysis.report.runtable import render
from analysis.runs import load_run
from analysis.runs.extractors import middle, spearman


def _run(tmp_path, name, entropy, reward):
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"preset": name.rsplit("-s", 1)[0]}))
    rows = [{"step": 0, "reward/eval_success": 0.5}]  # step 0 is not a training step
    for s, (h, r) in enumerate(zip(entropy, reward, strict=True), start=1):
        rows.append({"step": s, "policy/entropy": h, "reward/mean": r, "adv/gap_mean": 2 * h})
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "summary.json").write_text("{}")
    return d


def test_middle_window_and_spearman(tmp_path):
    # 10 steps: the 10% windows hold one step each; middle = step (10 - 1) // 2 + 1 = 5
    entropy = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    reward = [0.0, 0.2, 0.1, 0.3, 0.5, 0.4, 0.6, 0.8, 0.7, 0.9]
    run = load_run(_run(tmp_path, "cpu-grpo-s0", entropy, reward))
    assert middle("policy/entropy")(run) == pytest.approx(0.6)
    assert middle("policy/entropy", 0.3)(run) == pytest.approx((0.7 + 0.6 + 0.5) / 3)
    # entropy falls every step; the reward ranks are 1, 3, 2, 4, 6, 5, 7, 9, 8, 10 (three
    # neighbour swaps): sum d^2 = 3 * 2 = 6 against the step order, so
    # rho = -(1 - 6 * 6 / (n (n^2 - 1))) = -(1 - 36 / 990)
    assert spearman("policy/entropy", "reward/mean")(run) == pytest.approx(-(1 - 36 / 990))
    flat = load_run(_run(tmp_path, "cpu-grpo-s1", [0.5] * 4, [0.0, 1, 0, 1]))
    assert math.isnan(spearman("policy/entropy", "reward/mean")(flat))
    with pytest.raises(ValueError, match="fraction"):
        middle("policy/entropy", 0.0)


def test_rank_correlation_perfectly_inverse(tmp_path):
    run = load_run(_run(tmp_path, "cpu-grpo-s0", [3.0, 2.0, 1.0], [0.1, 0.2, 0.3]))
    assert spearman("policy/entropy", "reward/mean")(run) == pytest.approx(-1.0)


def test_registered_and_rendered(tmp_path):
    names = [t.name for t in TABLES]
    assert names[-2:] == ["entropy", "training"]
    entropy, training = dynamics_tables(EXPERIMENTS)
    assert len(training.columns) == 8 and entropy.requires[0] == EXPERIMENTS["sft_grpo"]
    a = _run(tmp_path, "cpu-grpo-s0", [0.2, 0.4, 0.6], [0.1, 0.2, 0.3])
    b = _run(tmp_path, "cpu-grpo-s1", [0.4, 0.4, 0.4], [0.1, 0.2, 0.3])
    found = {"cpu-grpo": [a, b]}
    tex = render(entropy, found, allow_missing=True)
    # H start: seeds 0.2, 0.4 -> 0.300 +- t(.975, 1) * 0.1414 / sqrt 2 = 12.706 * 0.1
    half = stats.t.ppf(0.975, 1) * 0.1
    assert f"$0.300 \\pm {half:.3f}$" in tex
    # rho: seed 0 entropy and reward both rise -> +1; seed 1 entropy constant -> NaN, dropped
    assert "$1.00$" in tex and "not yet run: cpu-rcgrpo" in tex
    md = dynamics_markdown(found)
    assert "| SFT | GRPO | 0.300 ± 1.271 | 0.400 ± 0.000 | 0.500 ± 1.271 | 1.00 | 2 |" in md
    assert "*not yet run: `cpu-rcgrpo`*" in md and "Table 5 analogue" in md
