"""Hypothesis laws of the policy stack (kept next to the unit tests of the area)."""

from __future__ import annotations

import itertools

import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rcgrpo.policy.chat import ChatEncoder
from rcgrpo.policy.prefix import plan_buckets
from rcgrpo.policy.sampling import top_p_filter

# message text: printable, may contain reward tokens; starts with a non-space character
# (a leading newline may merge with the template's header newline when the WHOLE text is
# re-tokenized, which the engine never does) and never contains <|im_end|> / <|im_start|>
TEXT = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF) | st.sampled_from("\n\t💥"),
    min_size=1,
    max_size=40,
).map(lambda s: "x" + s.replace("<|im_", "<im_")) | st.sampled_from(
    ["[mv(source='a', destination='b')]", "Done.", "<|high_reward|> ok", "[ls(a=True)]"]
)


@st.composite
def conversations(draw):
    messages = [{"role": "system", "content": draw(TEXT)}] if draw(st.booleans()) else []
    messages.append({"role": "user", "content": draw(TEXT)})
    for _ in range(draw(st.integers(1, 4))):
        messages.append({"role": "assistant", "content": draw(TEXT)})
        role = draw(st.sampled_from(["tool", "tool", "user"]))
        for _ in range(draw(st.integers(1, 2))):
            messages.append({"role": role, "content": draw(TEXT)})
    return messages[:-1] if draw(st.booleans()) else messages


@settings(max_examples=40)
@given(conversations())
def test_mask_equals_template_generation_markers(tiny_tokenizer, messages):
    ids, mask = ChatEncoder(tiny_tokenizer).encode_conversation(messages)
    ref = tiny_tokenizer.apply_chat_template(
        messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    assert ids == list(ref["input_ids"])[: len(ids)]
    assert mask == list(ref["assistant_masks"])[: len(ids)]
    assert ids[-1] == tiny_tokenizer.eos_token_id and mask[-1] == 1


def _partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for k in range(len(part)):
            yield part[:k] + [[first, *part[k]]] + part[k + 1 :]
        yield [[first], *part]


def _cost(groups, counts, overhead):
    return sum(max(counts[r] for r in g) * len(g) + overhead for g in groups)


@settings(max_examples=80)
@given(
    st.lists(st.integers(1, 300), min_size=1, max_size=6),
    st.integers(0, 200),
    st.integers(0, 4),
)
@example([10, 100, 10, 10], 64, 0)
@example([10, 100, 10, 10], 64, 2)
def test_plan_buckets_is_optimal_over_all_partitions(counts, overhead, max_rows):
    """Optimal among ALL partitions whose groups hold at most ``max_rows`` rows (0 = any)."""
    groups = plan_buckets(counts, overhead, max_rows)
    assert sorted(r for g in groups for r in g) == list(range(len(counts)))
    assert all(len(g) <= (max_rows or len(counts)) for g in groups)
    allowed = [
        p
        for p in _partitions(list(range(len(counts))))
        if all(len(g) <= (max_rows or len(counts)) for g in p)
    ]
    assert _cost(groups, counts, overhead) == min(_cost(p, counts, overhead) for p in allowed)


@settings(max_examples=60)
@given(
    st.lists(st.floats(0.01, 1.0), min_size=2, max_size=12),
    st.floats(0.05, 1.0),
)
def test_top_p_keeps_the_smallest_sufficient_prefix(weights, top_p):
    probs = torch.tensor([weights], dtype=torch.float64)
    probs = probs / probs.sum()
    kept = top_p_filter(probs, top_p)[0]
    sorted_kept = sorted(kept[kept > 0].tolist(), reverse=True)
    # kept tokens are the most likely ones, their mass reaches top_p (up to rounding), and
    # dropping the least likely kept token would fall below top_p
    assert min(sorted_kept) >= max(
        [p for p in probs[0].tolist() if p not in sorted_kept], default=0
    )
    assert sum(sorted_kept) >= min(top_p, 1.0) - 1e-9
    assert sum(sorted_kept[:-1]) < top_p + 1e-9
    assert list(itertools.accumulate(sorted_kept))[-1] <= 1 + 1e-9
