"""Tokenizers: the tiny BPE preset, its chat template, and reward tokens for real tokenizers.

The tiny tokenizer is a byte-level BPE trained with the ``tokenizers`` library on the task
corpus and wrapped as a ``PreTrainedTokenizerFast``, so a checkpoint opens with
``AutoTokenizer.from_pretrained`` like any Hugging Face model. Its chat template
(:data:`CHAT_TEMPLATE`, saved in ``tokenizer_config.json``) is ChatML as in Qwen2.5::

    <|im_start|>{role}\\n{content}<|im_end|>\\n        role in system | user | assistant | tool

with ``<|im_start|>assistant\\n`` as generation prompt. Unlike Qwen2.5, tool results keep their
own ``tool`` role (Qwen2.5 wraps them in a user block with ``<tool_response>`` tags); that is
shorter for tiny context windows, and real models keep their own template anyway.

Special tokens: ``<|endoftext|>`` (padding), ``<|im_start|>`` (start of a message; the role
name that follows is a single BPE token, checked by the tests), ``<|im_end|>`` (end of a
message, the EOS the rollout engine stops at), ``<|high_reward|>`` and ``<|low_reward|>``
(the paper's reward-conditioning tokens, §2).

Reward tokens in a real tokenizer (:func:`add_reward_tokens`): the paper leaves the choice
open. We add both as special tokens (never split, never merged with neighbours) and
initialise their input and output embedding rows to the MEAN of the existing rows: the new
tokens then start as an "average" token, which leaves every logit of the unconditioned model
nearly unchanged (no random direction is injected) and lets RCTP-FT move the two rows apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources

import torch
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN
from rcgrpo.validation import check_positive_int

PAD_TOKEN = "<|endoftext|>"
MESSAGE_START = "<|im_start|>"
MESSAGE_END = "<|im_end|>"
SPECIAL_TOKENS = (PAD_TOKEN, MESSAGE_START, MESSAGE_END, HIGH_TOKEN, LOW_TOKEN)
ROLES = ("system", "user", "assistant", "tool")

# ChatML (Qwen2.5 style). The {% generation %} block marks exactly the tokens the model
# produces (content + <|im_end|>), so transformers' return_assistant_tokens_mask gives an
# independent reference for the rollout engine's loss mask (tests/unit/policy).
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{%- if message['role'] == 'assistant' %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- generation %}{{- message['content'] + '<|im_end|>' }}{%- endgeneration %}"
    "{{- '\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

_BFCL_FILES = ("base", "long_context", "miss_func", "miss_param")


def _bfcl_data(name: str):
    return resources.files("bfcl_eval").joinpath("data", name)


def _json_lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def bfcl_corpus() -> list[str]:
    """Texts of the four BFCL v4 multi-turn categories, read from the installed package.

    One text per user message, per ground-truth turn (rendered as ``[f(a=1), g(b=2)]``,
    the BFCL prompting-mode output format), per initial API state (JSON) and per function
    doc (JSON); plus the role names so each becomes a single token.
    """
    texts: list[str] = []
    for category in _BFCL_FILES:
        for entry in _json_lines(_bfcl_data(f"BFCL_v4_multi_turn_{category}.json")):
            texts += [m["content"] for turn in entry["question"] for m in turn]
            texts.append(json.dumps(entry["initial_config"]))
        for entry in _json_lines(_bfcl_data(f"possible_answer/BFCL_v4_multi_turn_{category}.json")):
            texts += ["[" + ", ".join(turn) + "]" for turn in entry["ground_truth"] if turn]
    for doc_file in sorted(_bfcl_data("multi_turn_func_doc").iterdir(), key=lambda p: p.name):
        if doc_file.name.startswith("memory_") or doc_file.name == "web_search.json":
            continue
        texts += [json.dumps(doc) for doc in _json_lines(doc_file)]
    return texts + role_corpus()


def role_corpus(repeats: int = 1000) -> list[str]:
    """Role headers as they appear after ``<|im_start|>``, often enough to become tokens."""
    check_positive_int("repeats", repeats)
    return [f"{role}\n" for role in ROLES] * repeats


def task_corpus(tasks: Iterable) -> list[str]:
    """Texts of any task source (``rcgrpo.env.tasks.Task`` records, e.g. the synth suite)."""
    texts: list[str] = []
    for task in tasks:
        texts += [m["content"] for turn in task.turns for m in turn]
        texts += ["[" + ", ".join(calls) + "]" for calls in task.ground_truth if calls]
        texts.append(json.dumps(task.initial_config))
        texts += [json.dumps(doc) for doc in task.function_docs]
    return texts + role_corpus()


def train_tiny_tokenizer(
    corpus: Iterable[str],
    vocab_size: int = 1024,
    min_frequency: int = 2,
    isolate_whitespace: bool = False,
) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE on ``corpus`` and wrap it with the special tokens and template.

    Byte-level: every byte string encodes (garbage model output never fails to tokenize).
    ``vocab_size`` counts the 256 byte symbols and the special tokens.
    ``isolate_whitespace``: every whitespace character is its own pre-token, so a word gets
    the same ids after a space as after a quote or ``=`` (GPT-2 style merges ``" name"``
    into one token, the call ``f(x='name')`` spells it differently); this makes copying a
    value from the user text into a call a plain token-for-token copy (what Stage 1 learns).
    """
    check_positive_int("vocab_size", vocab_size, minimum=256 + len(SPECIAL_TOKENS) + 1)
    check_positive_int("min_frequency", min_frequency)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if isolate_whitespace:
        bpe.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(r"\s"), behavior="isolated"), bpe.pre_tokenizer]
        )
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        pad_token=PAD_TOKEN,
        eos_token=MESSAGE_END,
        additional_special_tokens=[MESSAGE_START, HIGH_TOKEN, LOW_TOKEN],
        clean_up_tokenization_spaces=False,
        model_max_length=1_000_000,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def missing_reward_tokens(tokenizer) -> list[str]:
    """The reward tokens that ``tokenizer`` does not encode as one id."""
    return [
        t
        for t in (HIGH_TOKEN, LOW_TOKEN)
        if len(tokenizer.encode(t, add_special_tokens=False)) != 1
    ]


@torch.no_grad()
def add_reward_tokens(tokenizer, model) -> list[str]:
    """Add ``<|high_reward|>``/``<|low_reward|>`` to a real tokenizer and model if missing.

    New rows (input and, if untied, output embeddings) are set to the mean of the rows of
    the tokens that existed before (see module docstring). Returns the tokens added.
    """
    missing = missing_reward_tokens(tokenizer)
    if not missing:
        return []
    old_len = len(tokenizer)
    tokenizer.add_special_tokens(
        {"additional_special_tokens": missing}, replace_extra_special_tokens=False
    )
    new_ids = tokenizer.convert_tokens_to_ids(missing)
    if len(tokenizer) > model.get_input_embeddings().weight.shape[0]:
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    for layer in {
        id(m): m for m in (model.get_input_embeddings(), model.get_output_embeddings())
    }.values():
        if layer is None:
            continue
        weight = layer.weight
        weight[new_ids] = weight[:old_len].mean(dim=0, keepdim=True).to(weight.dtype)
    return missing


@torch.no_grad()
def spread_goal_rows(
    weight: torch.Tensor, high: int, low: int, spread: float, seed: int = 0
) -> float:
    r"""Set the two reward-goal rows of an embedding matrix ``spread`` median row norms apart,
    in place, keeping their midpoint and the direction of their difference:

    .. math:: m = \tfrac12(e_h + e_l),\quad u = \frac{e_h - e_l}{\lVert e_h - e_l\rVert},\quad
              e_{h,l} \leftarrow m \pm \tfrac12\, s\, \tilde\rho\, u,

    with :math:`\tilde\rho` the median row norm of ``weight`` before the change and
    :math:`s` = ``spread``. Rows that coincide (:func:`add_reward_tokens` gives both the mean
    row) have no difference to follow: :math:`u` is then a unit Gaussian direction drawn from
    ``seed``. ``spread`` 0 changes nothing. Returns the distance before the change.
    (docs/lab-notes/2026-12-regime-design-wide.md, variant 17: SFT with goals drawn at random leaves the rows ~0.12 median
    norms apart, and RCTP-FT runs that read their goal end ~0.6 apart.)"""
    if spread < 0:
        raise ValueError(f"spread must be >= 0, got {spread}")
    if high == low:
        raise ValueError("the high and low goal rows must differ")
    diff = (weight[high] - weight[low]).float()
    before = float(diff.norm())
    if spread == 0:
        return before
    if before < 1e-12:
        gen = torch.Generator().manual_seed(seed)
        diff = torch.randn(weight.shape[1], generator=gen)
    unit = diff / diff.norm()
    half = 0.5 * spread * float(weight.float().norm(dim=1).median()) * unit
    mid = 0.5 * (weight[high] + weight[low]).float()
    weight[high] = (mid + half).to(weight.dtype)
    weight[low] = (mid - half).to(weight.dtype)
    return before


GOALS_KEY = "rcgrpo_goals_trained"
"""Key of the tokenizer's ``init_kwargs`` (saved in ``tokenizer_config.json``): whether the
checkpoint was ever trained with reward goals in its prompts (:func:`record_goals`)."""


def record_goals(tokenizer, used: bool) -> None:
    """Record in ``tokenizer`` (so in every checkpoint saved with it) whether training has
    put reward goals in the prompts: once true, true for every checkpoint that follows."""
    tokenizer.init_kwargs[GOALS_KEY] = bool(tokenizer.init_kwargs.get(GOALS_KEY)) or used


def goals_trained(tokenizer) -> bool | None:
    """Whether the checkpoint was trained with reward goals; None if it does not say (a
    checkpoint from before the record, or a model never trained here)."""
    value = getattr(tokenizer, "init_kwargs", {}).get(GOALS_KEY)
    return None if value is None else bool(value)
