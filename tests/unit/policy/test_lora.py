"""LoRA adapters (rcgrpo.policy.lora) on a tiny random Llama with SmolLM2's tokenizer: the
zero-initialised B leaves the logits equal to the base model's, the reward tokens extend
the vocabulary without moving any other id, an adapter checkpoint holds the adapter only
and reloads to the same logits, and a changed base is refused in one line."""

from __future__ import annotations

import json

import pytest
import torch

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy import lora
from rcgrpo.policy.models import load_policy, save_policy
from rcgrpo.policy.tokenizer import add_reward_tokens
from rcgrpo.train.errors import ConfigError
from tests.smol import SMOL_VOCAB, smol_llama, smol_llama_folder

TEXT = "ls the folder, then mv report.txt to archive/ " + HIGH_TOKEN


@pytest.fixture
def base_folder(tmp_path):
    return smol_llama_folder(tmp_path / "base")


def _logits(model, tokenizer, text=TEXT):
    ids = torch.tensor([tokenizer.encode(text, add_special_tokens=False)])
    with torch.no_grad():
        return model(input_ids=ids).logits


def test_reward_tokens_extend_the_vocabulary_and_move_no_other_id():
    model, tokenizer = smol_llama()
    text = "<|im_start|>user\nmove a.txt into b/<|im_end|>\n"
    before = tokenizer.encode(text, add_special_tokens=False)
    added = add_reward_tokens(tokenizer, model)
    assert added == [HIGH_TOKEN, LOW_TOKEN]
    assert tokenizer.convert_tokens_to_ids(added) == [SMOL_VOCAB, SMOL_VOCAB + 1]
    assert tokenizer.encode(text, add_special_tokens=False) == before
    goal = tokenizer.encode(f"x {HIGH_TOKEN}{LOW_TOKEN}", add_special_tokens=False)
    assert goal[-2:] == [SMOL_VOCAB, SMOL_VOCAB + 1]  # one id each, never split
    weight = model.get_input_embeddings().weight
    assert weight.shape[0] == SMOL_VOCAB + 2
    mean = weight[:SMOL_VOCAB].mean(dim=0)
    torch.testing.assert_close(weight[SMOL_VOCAB], mean)
    torch.testing.assert_close(weight[SMOL_VOCAB + 1], mean)
    assert model.get_output_embeddings().weight.data_ptr() == weight.data_ptr()  # still tied


def test_zero_initialised_adapter_leaves_the_logits_unchanged(base_folder):
    model, tokenizer, _ = load_policy(base_folder)
    base = _logits(model, tokenizer)
    wrapped = lora.with_adapters(model, tokenizer, str(base_folder), 4, 8.0, 0.0, "all-linear")
    assert lora.is_peft(wrapped)
    assert torch.equal(_logits(wrapped, tokenizer), base)  # B = 0, token deltas = 0: exact


def test_only_adapters_and_goal_rows_train(base_folder):
    model, tokenizer, _ = load_policy(base_folder)
    wrapped = lora.with_adapters(model, tokenizer, str(base_folder), 4, 8.0, 0.0, "q_proj,v_proj")
    names = [n for n, p in wrapped.named_parameters() if p.requires_grad]
    assert names and all("lora_" in n or "trainable_tokens_delta" in n for n in names)
    assert sum("q_proj" in n for n in names) == 2 * 2  # A and B of 2 layers
    assert not any(k in n for n in names for k in ("k_proj", "o_proj", "mlp"))
    delta = [p for n, p in wrapped.named_parameters() if "trainable_tokens_delta" in n]
    assert [tuple(p.shape) for p in delta] == [(2, 32)]


def _train_a_little(wrapped, tokenizer):
    opt = torch.optim.SGD(lora.trainable_parameters(wrapped), lr=0.5)
    ids = torch.tensor([tokenizer.encode(TEXT, add_special_tokens=False)])
    for _ in range(2):
        opt.zero_grad()
        wrapped(input_ids=ids, labels=ids).loss.backward()
        opt.step()


def test_an_adapter_checkpoint_holds_the_adapter_and_reloads_exactly(base_folder, tmp_path):
    model, tokenizer, _ = load_policy(base_folder)
    wrapped = lora.with_adapters(model, tokenizer, str(base_folder), 4, 8.0, 0.0, "all-linear")
    _train_a_little(wrapped, tokenizer)
    wrapped.eval()
    trained = _logits(wrapped, tokenizer)
    out = save_policy(wrapped, tokenizer, tmp_path / "ckpt")
    files = sorted(p.name for p in out.iterdir())
    assert "model.safetensors" not in files
    assert {
        lora.ADAPTER_CONFIG,
        "adapter_model.safetensors",
        lora.BASE_FILE,
        lora.GOAL_ROWS,
    } <= set(files)
    record = json.loads((out / lora.BASE_FILE).read_text())
    assert record["base"] == str(base_folder)
    assert set(record["sha256"]) == {"model.safetensors"}
    size = sum(p.stat().st_size for p in out.iterdir())
    assert size < (base_folder / "model.safetensors").stat().st_size
    loaded, tok2, added = load_policy(out)
    assert added == [] and lora.is_peft(loaded)
    assert tok2.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN]) == [SMOL_VOCAB, SMOL_VOCAB + 1]
    torch.testing.assert_close(_logits(loaded, tok2), trained, rtol=0, atol=0)
    assert any(p.requires_grad for p in loaded.parameters())  # resumable: the adapter trains


def test_an_adapter_on_a_changed_base_is_one_line(base_folder, tmp_path):
    model, tokenizer, _ = load_policy(base_folder)
    wrapped = lora.with_adapters(model, tokenizer, str(base_folder), 2, 4.0, 0.0, "all-linear")
    out = save_policy(wrapped, tokenizer, tmp_path / "ckpt")
    smol_llama_folder(base_folder, seed=1)  # other weights at the recorded path
    with pytest.raises(ConfigError, match=r"has other weights than it was trained on") as err:
        load_policy(out, key="--model")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["all-linear", " all-linear "])
def test_targets_all_linear(text):
    assert lora.targets_of(text) == "all-linear"


def test_targets_names():
    assert lora.targets_of("q_proj, v_proj,") == ["q_proj", "v_proj"]


def test_rank_zero_leaves_the_model_alone(base_folder):
    model, tokenizer, _ = load_policy(base_folder)
    assert lora.with_adapters(model, tokenizer, "x", 0, 8.0, 0.0, "all-linear") is model
