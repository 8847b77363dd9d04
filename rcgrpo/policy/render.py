"""Prompt styles and reward-goal placement: from an episode's first messages to a chat.

The conversation is a list of OpenAI-style messages (``{"role": ..., "content": ...}``);
:mod:`rcgrpo.policy.chat` turns it into token ids with the model's own chat template. This
module only decides the text:

- a system prompt built from the available functions' JSON docs, by style
  (:data:`PROMPT_STYLES`): ``bfcl`` (BFCL's official prompting-mode system prompt, for real
  models), ``docs`` (one line per function: its signature and the first sentence of its
  description; a pretrained model on CPU), ``compact`` (one short signature per function,
  for tiny context windows) or ``bare`` (no system message); ``auto`` picks one per model
  (:func:`resolve_prompt_style`);
- the reward goal (paper §2): ``[Reward Goal: <|high_reward|>]`` or
  ``[Reward Goal: <|low_reward|>]`` appended ONCE, to the first user message, separated by
  :data:`GOAL_SEPARATOR`; nothing at all without a token (plain SFT / GRPO).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence

from rcgrpo.conditioning import reward_goal_text
from rcgrpo.validation import check_choice

GOAL_SEPARATOR = "\n"
PYTHON_HINT = " Note that the provided function is in Python 3 syntax."

COMPACT_HEADER = (
    "Call tools as [func(arg=value), func2(arg=value)]; reply without a call when done.\n"
    "Tools (optional arguments end with ?):"
)


def bfcl_system_prompt(functions: Sequence[dict]) -> str:
    """BFCL v4's default prompting-mode system prompt with ``functions`` as JSON.

    Rebuilt from ``bfcl_eval.constants.default_prompts`` exactly as BFCL's
    ``formulate_system_prompt`` does for its default format
    (``ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=classic``);
    like BFCL's loader, each description gets the Python-syntax hint (once).
    """
    from bfcl_eval.constants import default_prompts as bfcl

    docs = copy.deepcopy(list(functions))
    for doc in docs:
        if not doc.get("description", "").endswith(PYTHON_HINT):
            doc["description"] = doc.get("description", "") + PYTHON_HINT
    style = bfcl.PROMPT_STYLE_TEMPLATES["classic"]
    tool_call_format = style["tool_call_no_tag"].format(
        output_format=bfcl.OUTPUT_FORMAT_MAPPING["python"],
        param_types=bfcl.PARAM_TYPE_MAPPING["python"],
    )
    available = style["available_tools"].format(format="json", functions=json.dumps(docs, indent=4))
    return bfcl.PROMPT_TEMPLATE_MAPPING["plaintext"].format(
        persona=style["persona"],
        task=style["task"],
        tool_call_format=tool_call_format,
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=available,
    )


def compact_signature(doc: dict) -> str:
    """``name(required, optional?)`` from a JSON function doc."""
    params = doc.get("parameters", {})
    required = set(params.get("required", ()))
    names = [n if n in required else f"{n}?" for n in params.get("properties", {})]
    return f"{doc['name']}({', '.join(names)})"


def compact_system_prompt(functions: Sequence[dict]) -> str:
    """A short header and one signature per line (no descriptions)."""
    return "\n".join([COMPACT_HEADER, *(compact_signature(d) for d in functions)])


TOOL_DESCRIPTION = "Tool description:"
"""BFCL's marker between a backend's shared preamble and the function's own description."""


def first_sentence(description: str) -> str:
    """The function's own description (after BFCL's :data:`TOOL_DESCRIPTION` marker, if
    any) up to its first full stop: ``"... Tool description: Copy a file. If ..."`` ->
    ``"Copy a file."``."""
    own = description.split(TOOL_DESCRIPTION, 1)[-1].strip()
    head, dot, _ = own.partition(". ")
    return (head + "." if dot else own).strip()


def docs_system_prompt(functions: Sequence[dict]) -> str:
    """The compact header and one line per function: its signature and the first sentence
    of its own description (the functions' docs at a fraction of BFCL's JSON: a pretrained
    model on CPU; token counts per suite in docs/real-model.md)."""
    lines = [
        f"{compact_signature(d)}: {first_sentence(d.get('description', ''))}" for d in functions
    ]
    return "\n".join([COMPACT_HEADER, *lines])


PROMPT_STYLES: dict[str, Callable[[Sequence[dict]], str] | None] = {
    "bfcl": bfcl_system_prompt,
    "docs": docs_system_prompt,
    "compact": compact_system_prompt,
    "bare": None,
}


AUTO = "auto"
"""The prompt style chosen per model (:func:`resolve_prompt_style`)."""


STYLE_KEY = "rcgrpo_prompt_style"
"""Key of the tokenizer's ``init_kwargs`` (saved in ``tokenizer_config.json``) holding the
prompt style a checkpoint was trained with (:func:`record_prompt_style`)."""


def resolve_prompt_style(style: str, tokenizer) -> str:
    """``style``, or for ``auto`` the style of the model: the one its checkpoint was trained
    with (:func:`record_prompt_style`), else ``compact`` for a from-scratch model of this
    project (its tokenizer carries :data:`rcgrpo.policy.tokenizer.CHAT_TEMPLATE`; it learned
    the suite's language with that prompt), else ``bfcl`` (the functions' JSON docs in
    BFCL's official prompt) for a pretrained model with its own chat template, which has to
    be told what the tools do."""
    from rcgrpo.policy.tokenizer import CHAT_TEMPLATE

    if style != AUTO:
        check_choice("style", style, PROMPT_STYLES)
        return style
    recorded = getattr(tokenizer, "init_kwargs", {}).get(STYLE_KEY)
    if recorded in PROMPT_STYLES:
        return recorded
    return "compact" if tokenizer.chat_template == CHAT_TEMPLATE else "bfcl"


def record_prompt_style(tokenizer, style: str) -> None:
    """Record ``style`` in ``tokenizer`` so every checkpoint saved with it carries the style
    it was trained with (``tokenizer_config.json``), which ``auto`` then reads."""
    check_choice("style", style, PROMPT_STYLES)
    tokenizer.init_kwargs[STYLE_KEY] = style


def system_prompt(style: str, functions: Sequence[dict]) -> str | None:
    """The system prompt of ``style`` (None for ``bare``)."""
    check_choice("style", style, PROMPT_STYLES)
    build = PROMPT_STYLES[style]
    return None if build is None else build(functions)


def with_reward_goal(messages: Sequence[dict], high: bool | None) -> list[dict]:
    """A copy of ``messages`` with the reward goal appended to the first user message.

    ``high`` True/False = ``<|high_reward|>``/``<|low_reward|>``; None = unchanged copy.
    """
    out = [dict(m) for m in messages]
    goal = reward_goal_text(high)
    if not goal:
        return out
    for message in out:
        if message["role"] == "user":
            message["content"] = f"{message['content']}{GOAL_SEPARATOR}{goal}"
            return out
    raise ValueError("messages has no user message to carry the reward goal")


def initial_messages(
    first_messages: Sequence[dict],
    functions: Sequence[dict],
    style: str = "compact",
    high: bool | None = None,
) -> list[dict]:
    """System prompt (by style) + the episode's first messages with the reward goal."""
    if not first_messages:
        raise ValueError("first_messages must hold at least one user message")
    system = system_prompt(style, functions)
    head = [] if system is None else [{"role": "system", "content": system}]
    return head + with_reward_goal(first_messages, high)
