"""The TRL path with LoRA (python -m rcgrpo trl --lora.r N) on a tiny random Llama with
SmolLM2's tokenizer (tests/smol.py), without the wheel.

One step, 2 prompts, G = 2. A scripted policy follows the reward goal (the oracle's calls
under ``<|high_reward|>``, "Done." under ``<|low_reward|>``) and the goals are stratified
(one of each per group), so every group holds R = (1, 0): advantages ±(1 − 0)/(σ + 1e-4) with σ = √½ (TRL's
Bessel std), never 0, and the update moves the adapter. Checked:

- only the LoRA matrices and the goal-token rows of the ``default`` adapter change; the
  base weights and TRL's ``ref`` adapter do not;
- π_ref is the starting policy exactly, for a fresh adapter (= the base) and for a Stage-1
  adapter checkpoint with trained goal rows (TRL 1.16 copies only ``*.default.*`` names
  and would leave the ref goal rows at their initial values;
  :func:`rcgrpo.integrations.trl_peft.sync_reference_adapter`);
- the collapse instruments are logged with their hand values (no zero-variance group;
  half the rollouts high, half succeed);
- ``final/`` holds the adapter only, no ``ref`` copy, and reloads to the trained logits;
- a pretrained model without reward tokens is refused in one line with ``lora.r 0`` and
  β > 0 (TRL would rebuild π_ref from its folder, without them).
"""

from __future__ import annotations

import math

import pytest
import torch

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.integrations import trl_cli
from rcgrpo.integrations.trl import RCGRPOTrainer
from rcgrpo.integrations.trl_peft import sync_reference_adapter
from rcgrpo.policy import lora
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.models import load_policy, save_policy
from rcgrpo.policy.policies import NO_CALL_REPLY, ScriptedPolicy, oracle_script
from rcgrpo.train.cli import parse_cli
from rcgrpo.train.errors import ConfigError
from tests.smol import smol_llama_folder

G, P, STEPS = 2, 2, 1
TEXT = f"<|im_start|>user\nmove a.txt into b/ [Reward Goal: {HIGH_TOKEN}] {LOW_TOKEN}<|im_end|>"


def _config(tmp_path, init, *flags):
    return parse_cli(
        "trl",
        ["--init", str(init), "--run.root", str(tmp_path), "--run.name", "run"]
        + ["--tasks.num-train", "2", "--tasks.prompt-style", "compact"]
        + ["--rollout.group-size", str(G), "--rollout.prompts-per-step", str(P)]
        + ["--rollout.max-new-tokens", "48", "--run.steps", str(STEPS)]
        + ["--algo.conditioning", "stratified", "--optim.lr", "1e-2", *flags],
    )


def _follow_the_goal(view):
    first_user = next(m["content"] for m in view.messages if m["role"] == "user")
    return oracle_script(view) if HIGH_TOKEN in first_user else NO_CALL_REPLY


def _trainer(cfg, model, tokenizer):
    from trl import GRPOConfig

    args = GRPOConfig(**trl_cli.grpo_kwargs(cfg, 1))
    encoder = ChatEncoder(tokenizer)
    return RCGRPOTrainer(
        model,
        args,
        trl_cli.training_tasks(cfg),
        tokenizer,
        trl_cli.rollout_settings(cfg),
        policy_factory=lambda m, tr: ScriptedPolicy(encoder, _follow_the_goal),
    )


def _logits(model, tokenizer, adapter=None):
    ids = torch.tensor([tokenizer.encode(TEXT, add_special_tokens=False)])
    was = model.active_adapter
    model.set_adapter(adapter or was)
    try:
        with torch.no_grad():
            return model(input_ids=ids).logits
    finally:
        model.set_adapter(was)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return smol_llama_folder(tmp_path_factory.mktemp("smol") / "base")


@pytest.fixture(scope="module")
def run(base, tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cfg = _config(tmp_path_factory.mktemp("trl_lora"), base, "--lora.r", "4")
        model, tokenizer = trl_cli.load_model(cfg)
        start = _logits(model, tokenizer)
        trainer = _trainer(cfg, model, tokenizer)
        before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
        trainer.train()
        yield cfg, trainer, tokenizer, start, before
    finally:
        torch.set_num_threads(threads)


def test_only_the_adapter_and_the_goal_rows_train(run):
    _, trainer, _, _, before = run
    after = dict(trainer.model.named_parameters())
    changed = {n for n, p in before.items() if n in after and not torch.equal(p, after[n])}
    assert changed and all(".default" in n for n in changed)
    assert all("lora_" in n or "trainable_tokens_delta" in n for n in changed)
    assert any("lora_B" in n for n in changed)
    delta = "base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta.default"
    assert delta in changed  # the goal rows move (RC-GRPO conditions on them)
    assert not any(".ref" in n for n in changed)  # π_ref frozen


def test_pi_ref_is_the_starting_policy(run, base):
    _, trainer, tokenizer, start, _ = run
    base_model, base_tok, _ = load_policy(base)
    model = trainer.model
    ref = _logits(model, tokenizer, "ref")
    torch.testing.assert_close(ref, start, rtol=0, atol=0)
    with torch.no_grad():
        ids = torch.tensor([base_tok.encode(TEXT, add_special_tokens=False)])
        torch.testing.assert_close(ref, base_model(input_ids=ids).logits, rtol=0, atol=0)
    assert not torch.equal(_logits(model, tokenizer), start)  # π_θ moved away from it


def test_collapse_instruments_are_logged_with_hand_values(run):
    _, trainer, _, _, _ = run
    logged = [row for row in trainer.state.log_history if "loss" in row]
    assert len(logged) == STEPS
    for row in logged:
        # every group (1, 0): no zero-variance group; s̄ = 1/2, predicted share 2·(1/2)²
        assert row["group/zero_var_frac"] == 0.0
        assert row["group/zero_var_predicted_pooled"] == pytest.approx(0.5)
        assert row["reward/high_frac"] == 0.5 and row["reward"] == 0.5
        # |A| = 0.5 / (√½ + 1e-4) for every rollout (TRL's std convention)
        assert row["adv/abs_mean"] == pytest.approx(0.5 / (math.sqrt(0.5) + 1e-4))
        assert row["group/var_within_mean"] == 0.0  # one rollout per goal in a group
        assert all(math.isfinite(v) for k, v in row.items() if k.startswith("group/"))


def test_final_holds_the_adapter_only_and_reloads(run, tmp_path):
    _, trainer, tokenizer, _, _ = run
    model = trainer.accelerator.unwrap_model(trainer.model)
    trained = _logits(model, tokenizer)
    out = trl_cli.save_final(model, tokenizer, tmp_path / "final")
    files = {p.name for p in out.iterdir()}
    assert {lora.ADAPTER_CONFIG, "adapter_model.safetensors", lora.BASE_FILE} <= files
    assert "model.safetensors" not in files and "ref" not in files
    loaded, tok, _ = load_policy(out)
    torch.testing.assert_close(_logits(loaded, tok), trained, rtol=0, atol=0)


def test_a_stage1_adapter_is_continued_and_is_pi_ref(base, tmp_path):
    model, tokenizer, _ = load_policy(base)
    stage1 = lora.with_adapters(model, tokenizer, str(base), 4, 8.0, 0.0, "all-linear")
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():  # a trained Stage-1 adapter: B ≠ 0, goal rows moved
        for p in lora.trainable_parameters(stage1):
            p.add_(0.05 * torch.randn(p.shape, generator=gen))
    ckpt = save_policy(stage1, tokenizer, tmp_path / "stage1")
    cfg = _config(tmp_path, ckpt, "--lora.r", "8")
    model, tokenizer = trl_cli.load_model(cfg)
    assert model.peft_config["default"].r == 4  # continued, not re-wrapped
    start = _logits(model, tokenizer)
    trainer = _trainer(cfg, model, tokenizer)
    torch.testing.assert_close(_logits(trainer.model, tokenizer, "ref"), start, rtol=0, atol=0)
    copied = sync_reference_adapter(trainer.model)  # again: TRL's own copy leaves out ...
    assert any("trainable_tokens_delta" in n for n in copied)
    delta = trainer.model.get_parameter(
        "base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta.ref"
    )
    assert delta.abs().sum() > 0  # ... such as the trained goal rows


def test_a_base_without_reward_tokens_needs_lora_for_a_kl_reference(base, tmp_path):
    with pytest.raises(ConfigError, match="has no reward-goal tokens") as err:
        trl_cli.load_model(_config(tmp_path, base))
    assert "\n" not in str(err.value)
    model, _ = trl_cli.load_model(_config(tmp_path, base, "--algo.kl-beta", "0"))
    assert not lora.is_peft(model)
