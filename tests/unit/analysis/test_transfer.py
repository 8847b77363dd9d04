"""The transfer diagnostic (analysis.diagnostics.transfer): hand-computed statistics, the
identical-share counter, the decision alternatives against the demonstrator and their decision
token, and laws on a tiny random Qwen2: a goal-blind policy gives identical pairs, ρ̂ = 1 and a
gradient cosine and gain ratio of 1 exactly, the probe's gradient is the trainer's, and the
finite-difference remainder is second order in the step."""

from __future__ import annotations

import math
import os

import pytest
import torch

from analysis.diagnostics.transfer.estimates import (
    mean_of_ratios,
    paired_difference,
    ratio_of_means,
    t_interval,
)
from analysis.diagnostics.transfer.logodds import alternatives, encode_items, wrong_call
from analysis.diagnostics.transfer.paired import identical_share, invert_cdf
from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN, reward_goal_text
from rcgrpo.env.synth import SYNTH_PRESETS, generate_synth_tasks
from rcgrpo.policy.policies import format_calls
from rcgrpo.policy.sampling import draw

T975 = {1: 12.706204736174698, 2: 4.302652729749464}
"""t_{0.975, df} (scipy.stats.t.ppf)."""


# --- statistics, by hand --------------------------------------------------------------------


def test_paired_difference_by_hand():
    # d = (0.5, 0, 0.5): mean 1/3; deviations (1/6, -1/3, 1/6), s² = (1/36 + 1/9 + 1/36)/2
    # = 1/12, se = sqrt(1/12)/sqrt(3) = 1/6; half-width t_{.975,2}/6
    out = paired_difference([1.0, 0.5, 0.75], [0.5, 0.5, 0.25])
    assert out["p_high"] == pytest.approx(0.75) and out["p_low"] == pytest.approx(5 / 12)
    assert out["diff"] == pytest.approx(1 / 3) and out["se"] == pytest.approx(1 / 6)
    assert out["ci"] == pytest.approx([1 / 3 - T975[2] / 6, 1 / 3 + T975[2] / 6])
    assert out["n"] == 3
    with pytest.raises(ValueError, match="pair by task"):
        paired_difference([1.0], [1.0, 0.0])


def test_ratio_of_means_by_hand():
    # a = 2b exactly: every residual a - ρ̂ b is 0, so the interval is the point
    exact = ratio_of_means([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    assert exact["estimate"] == 2.0 and exact["ci"] == [2.0, 2.0] and exact["se"] == 0.0
    # a = (1, 3), b = (1, 1): ρ̂ = 2, residuals (-1, 1), s = sqrt(2), se = sqrt(2)/(1·sqrt(2)) = 1;
    # b has no spread, so its t statistic is infinite
    out = ratio_of_means([1.0, 3.0], [1.0, 1.0])
    assert out["estimate"] == 2.0 and out["se"] == pytest.approx(1.0)
    assert out["ci"] == pytest.approx([2 - T975[1], 2 + T975[1]]) and out["den_t"] == math.inf
    # b = (1, 3): b̄ = 2, s_b = sqrt(2), se(b̄) = 1, den_t = 2
    assert ratio_of_means([1.0, 3.0], [1.0, 3.0])["den_t"] == pytest.approx(2.0)
    assert math.isnan(ratio_of_means([1.0], [2.0])["ci"][0])
    assert math.isnan(ratio_of_means([1.0, 2.0], [1.0, -1.0])["estimate"])  # b̄ = 0


def test_mean_of_ratios_and_t_interval_by_hand():
    # ratios (1, 3) (the pair with b = 0 left out): mean 2, s = sqrt(2), se = 1
    out = mean_of_ratios([1.0, 6.0, 5.0], [1.0, 2.0, 0.0])
    assert out["ratios"] == [1.0, 3.0] and out["mean"] == 2.0
    assert out["ci"] == pytest.approx([2 - T975[1], 2 + T975[1]])
    one = t_interval([4.0])
    assert one["mean"] == 4.0 and one["n"] == 1 and math.isnan(one["se"])


def test_identical_share_counts_pairs():
    # pair 1 identical; pair 2 differs in a token, same reward and length (loose match);
    # pair 3 differs in length; pair 4 in a token and the reward: 1/4 identical, 2/4 loose
    high = [((1, 2, 3), 1.0), ((1, 2), 0.0), ((5,), 0.0), ((7, 8), 1.0)]
    low = [((1, 2, 3), 1.0), ((1, 3), 0.0), ((5, 6), 0.0), ((7, 9), 0.0)]
    assert identical_share(high, low) == {
        "identical": 0.25,
        "same_reward_and_length": 0.5,
        "pairs": 4,
    }
    assert math.isnan(identical_share([], [])["identical"])


def test_invert_cdf_is_the_engines_draw_given_its_uniforms():
    """With the uniforms the engine's generator would draw, the same indices (the
    zero-weight column is never drawn)."""
    weights = torch.rand(64, 9, generator=torch.Generator().manual_seed(1))
    weights[:, 4] = 0
    for seed in range(5):
        u = torch.rand(64, 1, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
        got = invert_cdf(weights, u)
        assert torch.equal(got, draw(weights, torch.Generator().manual_seed(seed)))
        assert not bool((got == 4).any())


# --- the decision alternatives against the demonstrator -------------------------------------


def _tasks(preset: str, n: int) -> list:
    return [
        t
        for t in generate_synth_tasks(n, "train", 0, SYNTH_PRESETS[preset])
        if t.meta.get("decisions")
    ]


@pytest.mark.parametrize("preset", ["collapse1-d10", "regime-d10", "regime-wide-d10"])
def test_alternatives_rebuild_the_expert_and_the_demonstrator(preset):
    """prefix + right (+ the calls after) is the expert's message, prefix + wrong the
    demonstrator's wherever that point is its only mistake; every kind is met."""
    seen = set()
    for task in _tasks(preset, 120):
        flat = [c for turn in task.ground_truth for c in turn]
        demo = [c for turn in task.meta["demonstration"] for c in turn]
        points = task.meta["decisions"]
        for p in points:
            prefix, right, wrong, ends = alternatives(task, p)
            at = sum(len(t) for t in task.ground_truth[: p["turn"]]) + p["call"]
            rest = "" if ends else "".join(f", {c}" for c in flat[at + 1 :]) + "]"
            assert prefix + right + rest == format_calls(flat)
            if p["erred"] and sum(q["erred"] for q in points) == 1:
                assert prefix + wrong + rest == format_calls(demo)
                seen.add(p["kind"])
                if not ends:
                    assert wrong_call(p["kind"], right) == demo[at]
    kinds = {"regime-d10": 3, "collapse1-d10": 4, "regime-wide-d10": 5}[preset]
    assert len(seen) == kinds


def test_the_decision_token_covers_the_first_character_where_the_options_differ():
    """On collapse1-d10 and regime-d10 tasks, encoded with a tiny trained tokenizer: the text of
    the common prefix is a prefix of both options' texts, and the decision token of each option
    covers the first character where the two texts differ (for a swap, inside the call)."""
    from rcgrpo.env.turns import offered_docs, turn_messages
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.policy.models import build_tiny_policy
    from rcgrpo.policy.render import initial_messages
    from rcgrpo.policy.tokenizer import task_corpus, train_tiny_tokenizer

    for preset in ("collapse1-d10", "regime-d10"):
        tasks = _tasks(preset, 40)[:6]
        tok = train_tiny_tokenizer(task_corpus(tasks), vocab_size=400, isolate_whitespace=True)
        _, tok = build_tiny_policy("micro", tokenizer=tok, seed=0)
        enc = ChatEncoder(tok)
        for task in tasks:
            first, docs = turn_messages(task, "combined", 0), offered_docs(task, "combined", 0)
            head = enc.prompt_ids(initial_messages(first, docs, "bare", False))
            items = encode_items([task], enc, "bare")
            for point, item in zip(task.meta["decisions"], items, strict=True):
                prefix, right, wrong, _ = alternatives(task, point)
                text_r = enc.decode(head + enc.encode(prefix + right))
                text_w = enc.decode(head + enc.encode(prefix + wrong))
                d = len(os.path.commonprefix([text_r, text_w]))  # the first character that differs
                ids, r_c, w_c = item.rows["low"]
                shared = enc.decode(ids.tolist())
                with_r, with_w = enc.decode([*ids.tolist(), r_c]), enc.decode([*ids.tolist(), w_c])
                assert text_r.startswith(with_r) and text_w.startswith(with_w)
                assert len(shared) <= d < min(len(with_r), len(with_w))
                if item.kind != "stop_early":
                    assert d >= len(text_r) - len(right)  # inside the call (at its name)


# --- laws on a tiny random Qwen2 ------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny():
    """(model, tokenizer, cfg, tasks): a micro Qwen2 on a tokenizer of 4 collapse1-d10 tasks,
    the collapse RC-GRPO preset with bare prompts, 8-token messages and G = 2."""
    from rcgrpo.policy.models import build_tiny_policy
    from rcgrpo.policy.tokenizer import add_reward_tokens, task_corpus, train_tiny_tokenizer
    from rcgrpo.train.presets import preset

    tasks = _tasks("collapse1-d10", 40)[:4]
    tok = train_tiny_tokenizer(task_corpus(tasks), vocab_size=400, isolate_whitespace=True)
    model, tok = build_tiny_policy("micro", tokenizer=tok, seed=0)
    add_reward_tokens(tok, model)
    cfg = preset("collapse-rcgrpo")
    cfg.tasks.prompt_style = "bare"
    cfg.rollout.max_new_tokens, cfg.rollout.group_size, cfg.rollout.max_batch = 8, 2, 8
    return model, tok, cfg, tasks


def _goal_ids(tok) -> tuple[int, int]:
    return tok.convert_tokens_to_ids(HIGH_TOKEN), tok.convert_tokens_to_ids(LOW_TOKEN)


def _pairs(model, tok, cfg, tasks, samples=3) -> dict:
    from analysis.diagnostics.transfer.goal_effect import goal_effect, paired_records
    from rcgrpo.train.rl.setup import make_engine

    with torch.no_grad():
        records = paired_records(make_engine(cfg, model, tok), tasks, samples, 0)
    return goal_effect(records, samples, cfg.rollout.group_size, 0)


def _probe_step(model, tok, cfg, tasks, steps):
    """Probe on ``tasks``; one batch on the first two with advantages ±1 (a random model
    scores 0 everywhere, so the trainer's own advantages would all be 0)."""
    from analysis.diagnostics.transfer.probe import Probe, loss_gradient, sample_batch, step_effect
    from rcgrpo.policy.chat import ChatEncoder
    from rcgrpo.train.rl.setup import make_engine

    probe = Probe.at(model, encode_items(tasks, ChatEncoder(tok), "bare"), 1.0)
    with torch.no_grad():
        rollouts, _, _ = sample_batch(make_engine(cfg, model, tok), tasks[:2], cfg, 0, 0)
    adv = torch.tensor([1.0, -1.0, -1.0, 1.0])
    grads = loss_gradient(model, rollouts, adv, cfg, tok.pad_token_id)
    own = {t.id for t in tasks[:2]}
    return probe, [step_effect(probe, grads, s, own) for s in steps], (rollouts, adv, grads)


def test_a_goal_blind_policy_gives_identical_pairs_and_rho_one(tiny, monkeypatch):
    """Both goals render the same text: every pair is identical, z and Δz agree bit for bit
    under the two goals, so ρ̂ = 1 exactly."""
    model, tok, cfg, tasks = tiny
    monkeypatch.setattr(
        "rcgrpo.policy.render.reward_goal_text",
        lambda h: "" if h is None else reward_goal_text(True),
    )
    pairs = _pairs(model, tok, cfg, tasks)
    assert pairs["identical_share"]["identical"] == 1.0
    collapse = pairs["start_collapse"]  # the same samples under both goals: the same groups
    assert collapse["high"] == collapse["low"] and collapse["high"]["group"] == 2
    probe, (effect,), _ = _probe_step(model, tok, cfg, tasks, [1e-4])
    assert torch.equal(probe.z["high"], probe.z["low"])
    assert effect["high"]["dz"] == effect["low"]["dz"] != 0 and effect["ratio"] == 1.0
    assert effect["high"]["predicted"] == effect["low"]["predicted"]
    got = probe.coupling(seed=0)
    for name in ("cosine", "gain_ratio", "rho_low", "rho_high"):
        assert got[name]["estimate"] == pytest.approx(1.0, rel=1e-12), name
        assert got[name]["per_task"] == pytest.approx([1.0] * 4, rel=1e-12), name


def test_the_per_task_gradients_are_autograds_and_pool_to_the_mean(tiny):
    """Each row of the per-task gradient matrix is autograd's gradient of that task's z; their
    point-weighted mean is the gradient of z̄ the first-order prediction uses."""
    from analysis.diagnostics.transfer.logodds import item_z, task_gradients
    from rcgrpo.policy.chat import ChatEncoder

    model, tok, _, tasks = tiny
    items = encode_items(tasks[:2], ChatEncoder(tok), "bare")
    model = model.double()
    try:
        z, rows = task_gradients(model, items, "low", 1.0)
        params = [p for p in model.parameters() if p.requires_grad]
        for i, it in enumerate(items):
            ref = torch.autograd.grad(item_z(model, it, "low", 1.0), params, allow_unused=True)
            flat = torch.cat(
                [
                    (torch.zeros_like(p) if g is None else g).reshape(-1)
                    for g, p in zip(ref, params, strict=True)
                ]
            )
            assert torch.allclose(rows[i], flat, rtol=1e-10, atol=1e-14)
            assert float(z[i]) == pytest.approx(
                float(item_z(model, it, "low", 1.0).detach()), rel=1e-12
            )
    finally:
        model.float()


def test_equal_goal_embeddings_give_identical_pairs_distinct_ones_do_not(tiny):
    """The model path: equal embedding rows of the two goal tokens make the policy
    goal-blind (identical pairs, z equal); rows far apart make it read the goal."""
    model, tok, cfg, tasks = tiny
    high, low = _goal_ids(tok)
    emb = model.get_input_embeddings().weight
    saved = emb.detach().clone()
    try:
        with torch.no_grad():
            emb[low] = emb[high]
        assert _pairs(model, tok, cfg, tasks)["identical_share"]["identical"] == 1.0
        with torch.no_grad():
            emb[low] = 30 * torch.randn(emb.shape[1], generator=torch.Generator().manual_seed(0))
        assert _pairs(model, tok, cfg, tasks, samples=8)["identical_share"]["identical"] < 1.0
    finally:
        with torch.no_grad():
            emb.copy_(saved)


def test_the_probe_gradient_is_the_trainers_token_mean_policy_gradient(tiny):
    """At ratio 1 the trainer's loss has gradient −(1/N) Σ_i A_i Σ_t ∇ log π(a_it | h_it), N
    the generated tokens of the batch: the per-rollout recomputation agrees (relative 1e-4,
    the shared-prefix pass sums in another order)."""
    from rcgrpo.policy.recompute import sequence_logprobs

    model, tok, cfg, tasks = tiny
    _, _, (rollouts, adv, grads) = _probe_step(model, tok, cfg, tasks, [])
    params = [p for p in model.parameters() if p.requires_grad]
    tokens = sum(int(r.loss_mask.sum()) for r in rollouts)
    loss = 0.0
    for r, a in zip(rollouts, adv, strict=True):
        ids, mask = r.input_ids[None], r.loss_mask[None]
        loss = loss - a * sequence_logprobs(model, ids, torch.ones_like(ids), mask).sum() / tokens
    ref = torch.autograd.grad(loss, params)
    diff = math.sqrt(sum(float(((g - h) ** 2).sum()) for g, h in zip(grads, ref, strict=True)))
    norm = math.sqrt(sum(float((h**2).sum()) for h in ref))
    assert norm > 0 and diff <= 1e-4 * norm


def test_the_finite_difference_remainder_is_second_order_in_the_step(tiny):
    """|Δz̄ − ⟨∇z̄, Δθ⟩| is the second-order term, so the relative error scales with the step:
    as the step shrinks 4× at a time the error's shrink factor falls towards 4 and is within 10%
    of it at the smallest pair; the measured ratio and the first-order one converge together.
    (The decision token's z is a logit difference, nearly flat in its second derivative here:
    the third-order term adds about c₃h/c₂ to the factor, 5× per 4× at 6e-5 and up to 12× at
    1e-3. The steps reach 4e-6 only because the probe computes in float64 throughout.)"""
    model, tok, cfg, tasks = tiny
    steps = [6.25e-5, 1.5625e-5, 3.90625e-6]
    _, (big, mid, small), _ = _probe_step(model, tok, cfg, tasks, steps)
    for goal in ("high", "low"):
        shrinks = [a[goal]["rel_err"] / b[goal]["rel_err"] for a, b in ((big, mid), (mid, small))]
        assert 3.6 <= shrinks[1] <= 4.4, (goal, shrinks, big[goal], small[goal])
        assert abs(shrinks[1] - 4) < abs(shrinks[0] - 4), (goal, shrinks)
        assert small[goal]["predicted"] == pytest.approx(big[goal]["predicted"] / 16, rel=1e-9)
    first_order = small["high"]["predicted"] / small["low"]["predicted"]
    assert abs(small["ratio"] - first_order) < abs(big["ratio"] - first_order)


def test_the_probe_copy_computes_its_norms_in_float64(tiny):
    """``transformers``' RMSNorm casts to float32 whatever the weights; the probe's copy keeps
    float64 (w · h / sqrt(mean(h²) + ε) to float64 rounding) and leaves the model untouched."""
    from analysis.diagnostics.transfer.probe import float64_copy

    model = tiny[0]
    copied = float64_copy(model)
    norms = [m for m in copied.modules() if type(m).__name__.endswith("RMSNorm")]
    assert norms and all(p.dtype == torch.float64 for p in copied.parameters())
    h = torch.randn(
        3, norms[0].weight.shape[0], dtype=torch.float64, generator=torch.Generator().manual_seed(0)
    )
    want = (
        norms[0].weight
        * h
        / torch.sqrt(h.pow(2).mean(-1, keepdim=True) + norms[0].variance_epsilon)
    )
    assert torch.allclose(norms[0](h), want, rtol=1e-14, atol=0)
    assert all("forward" not in vars(m) for m in model.modules())
    assert next(model.parameters()).dtype == torch.float32
