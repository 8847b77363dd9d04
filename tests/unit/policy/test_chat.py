"""Loss masks cover exactly the assistant spans — for the tiny template, a Qwen2.5 template and
SmolLM2-135M-Instruct's own template and tokenizer (tests/data/smollm2-tokenizer).

Reference masks are computed independently of the engine: from the template's own
``{% generation %}`` markers (transformers' ``return_assistant_tokens_mask``) for the tiny
template, and from character offsets of ``content + "<|im_end|>"`` after each
``<|im_start|>assistant\\n`` header in the rendered text for the hand-built Qwen2.5 template
(which, as the real one, renders tool results inside a user block with <tool_response> tags
and merges consecutive tool messages) and for SmolLM2's (plain ChatML with a ``tool`` role).
"""

from __future__ import annotations

import pytest
from policy_fakes import FakeEpisode, fake_tasks
from transformers import AutoTokenizer

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.policies import ScriptedPolicy, oracle_script
from rcgrpo.policy.rollout import RolloutEngine, RolloutJob

# Qwen2.5-Instruct's chat template without the tools / tool_calls branches.
QWEN25_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if (message.role == 'user') or (message.role == 'system' and not loop.first) or (message.role == 'assistant') %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
    "{%- elif message.role == 'tool' %}"
    "{%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != 'tool') %}{{- '<|im_start|>user' }}{%- endif %}"
    "{{- '\\n<tool_response>\\n' }}{{- message.content }}{{- '\\n</tool_response>' }}"
    "{%- if loop.last or (messages[loop.index0 + 1].role != 'tool') %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

CONVERSATION = [
    {"role": "system", "content": "Tools: mv(source, destination)"},
    {"role": "user", "content": "Move a.txt to b.\n[Reward Goal: <|high_reward|>]"},
    {"role": "assistant", "content": "[mv(source='a.txt', destination='b'), ls(a=True)]"},
    {"role": "tool", "content": '{"result": "moved"}'},
    {"role": "tool", "content": '{"current_directory_content": ["b"]}'},
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": "Now list."},
    {"role": "assistant", "content": "[ls()]"},
]


@pytest.fixture(scope="module")
def qwen_tokenizer(tiny_tokenizer, tmp_path_factory):
    path = tmp_path_factory.mktemp("qwen_style")
    tiny_tokenizer.save_pretrained(path)
    tok = AutoTokenizer.from_pretrained(path)
    tok.chat_template = QWEN25_TEMPLATE
    return tok


@pytest.fixture(scope="module")
def smol_tokenizer():
    """SmolLM2-135M-Instruct's own tokenizer and ChatML template (its default system prompt
    when a conversation has none), with the reward tokens added as special tokens."""
    from tests.smol import smol_tokenizer as load

    tok = load()
    tok.add_special_tokens(
        {"additional_special_tokens": [HIGH_TOKEN, LOW_TOKEN]}, replace_extra_special_tokens=False
    )
    return tok


def _tokenizer(which, tiny_tokenizer, qwen_tokenizer, smol_tokenizer):
    tok = {"tiny": tiny_tokenizer, "qwen": qwen_tokenizer, "smol": smol_tokenizer}[which]
    return tok, generation_tag_reference if which == "tiny" else offset_reference


def generation_tag_reference(tokenizer, messages):
    out = tokenizer.apply_chat_template(
        messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    return list(out["input_ids"]), list(out["assistant_masks"])


def offset_reference(tokenizer, messages):
    text = tokenizer.apply_chat_template(messages, tokenize=False)
    spans, cursor = [], 0
    for m in messages:
        if m["role"] == "assistant":
            block = "<|im_start|>assistant\n" + m["content"] + "<|im_end|>"
            start = text.index(block, cursor) + len("<|im_start|>assistant\n")
            spans.append((start, start + len(m["content"]) + len("<|im_end|>")))
            cursor = spans[-1][1]
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    mask = [int(any(a <= s and e <= b for a, b in spans)) for s, e in enc["offset_mapping"]]
    return list(enc["input_ids"]), mask


def _until_last_eos(ids, mask, eos):
    end = max(i for i, t in enumerate(ids) if t == eos) + 1
    return ids[:end], mask[:end]


@pytest.mark.parametrize("which", ["tiny", "qwen", "smol"])
def test_encode_conversation_mask_is_exactly_the_assistant_spans(
    which, tiny_tokenizer, qwen_tokenizer, smol_tokenizer
):
    tok, reference = _tokenizer(which, tiny_tokenizer, qwen_tokenizer, smol_tokenizer)
    ids, mask = ChatEncoder(tok).encode_conversation(CONVERSATION)
    ref_ids, ref_mask = _until_last_eos(*reference(tok, CONVERSATION), tok.eos_token_id)
    assert ids == ref_ids
    assert mask == ref_mask
    # and the masked tokens decode to the three assistant texts with their <|im_end|>
    masked = tok.decode([t for t, m in zip(ids, mask, strict=True) if m])
    assert masked == "".join(
        m["content"] + "<|im_end|>" for m in CONVERSATION if m["role"] == "assistant"
    )


@pytest.mark.parametrize("which", ["tiny", "qwen", "smol"])
@pytest.mark.parametrize("mode", ["multi_turn", "combined"])
def test_engine_loss_mask_matches_reference(
    which, mode, tiny_tokenizer, qwen_tokenizer, smol_tokenizer
):
    tok, reference = _tokenizer(which, tiny_tokenizer, qwen_tokenizer, smol_tokenizer)
    encoder = ChatEncoder(tok)
    engine = RolloutEngine(
        ScriptedPolicy(encoder, oracle_script),
        encoder,
        lambda: FakeEpisode(pad=2),
        mode=mode,
        max_context=4096,
    )
    rollouts = engine.run([RolloutJob(t, high) for t in fake_tasks(4) for high in (True, None)])
    for r in rollouts:
        assert r.reward == 1.0
        ref_ids, ref_mask = _until_last_eos(*reference(tok, r.messages), tok.eos_token_id)
        assert r.input_ids.tolist() == ref_ids
        assert [int(m) for m in r.loss_mask] == ref_mask
        # spans are the maximal runs of the mask, one per assistant message
        covered = [i for a, b in r.message_spans for i in range(a, b)]
        assert covered == [i for i, m in enumerate(r.loss_mask) if m]
        assert len(r.message_spans) == sum(m["role"] == "assistant" for m in r.messages)


def test_capped_message_gets_template_end_as_prompt_token(tiny_tokenizer):
    encoder = ChatEncoder(tiny_tokenizer)
    policy = ScriptedPolicy(encoder, lambda view: "[mv(source='a.txt', destination='b0')]")
    engine = RolloutEngine(policy, encoder, FakeEpisode, max_new_tokens=3, max_context=4096)
    (r,) = engine.run([RolloutJob(fake_tasks(1)[0])])
    # the cut text does not parse as calls, so the single-turn episode ends after it
    assert (r.num_steps, r.capped_messages, r.truncated) == (1, 1, False)
    start, end = r.message_spans[0]
    assert end - start == 3 and end == r.length
    assert tiny_tokenizer.eos_token_id not in r.input_ids[start:end].tolist()


def test_two_step_capped_message_continuation_starts_with_end_token(tiny_tokenizer):
    encoder = ChatEncoder(tiny_tokenizer)
    history = [{"role": "user", "content": "hi"}]
    cont = encoder.continuation_ids(history, "[mv(", None, [{"role": "tool", "content": "x"}])
    assert cont[0] == tiny_tokenizer.eos_token_id  # <|im_end|> written by the template, mask 0
    stopped = encoder.continuation_ids(
        history, "[mv(", tiny_tokenizer.eos_token_id, [{"role": "tool", "content": "x"}]
    )
    assert stopped == cont[1:]
    assert encoder.decode(stopped) == "\n<|im_start|>tool\nx<|im_end|>\n<|im_start|>assistant\n"


def test_template_that_rewrites_history_is_rejected(tiny_tokenizer, tmp_path):
    tiny_tokenizer.save_pretrained(tmp_path)
    tok = AutoTokenizer.from_pretrained(tmp_path)
    tok.chat_template = (
        "{%- for m in messages %}{{- '<|im_start|>' + m.role + '\\n' + m.content | trim + "
        "'<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}"
        "{{- '<|im_start|>assistant\\n' }}{%- endif %}"
    )
    with pytest.raises(ValueError, match="verbatim"):
        ChatEncoder(tok).continuation_ids([{"role": "user", "content": "u"}], " padded ", None, [])
