"""Prompt styles and reward-goal placement (paper §2)."""

from __future__ import annotations

import json

import pytest

from rcgrpo.policy.render import (
    PYTHON_HINT,
    bfcl_system_prompt,
    compact_signature,
    compact_system_prompt,
    initial_messages,
    system_prompt,
    with_reward_goal,
)

LS = {
    "name": "ls",
    "description": "List files.",
    "parameters": {
        "type": "dict",
        "properties": {"a": {"type": "boolean", "description": "all"}},
        "required": [],
    },
}
MV = {
    "name": "mv",
    "description": "Move.",
    "parameters": {
        "type": "dict",
        "properties": {"source": {"type": "string"}, "destination": {"type": "string"}},
        "required": ["source", "destination"],
    },
}


def test_bfcl_prompt_is_bfcl_default_format_text():
    # Hand-assembled from bfcl_eval/constants/default_prompts.py, default format
    # ret_fmt=python, no tag, json docs, plaintext, classic: "{persona}{task}\n\n{format}\n\n
    # {multiturn}\n\n{tools}" (persona and task are joined without a space, and the empty
    # python param_types leaves two spaces before "You SHOULD NOT", both as in BFCL).
    docs = [dict(LS, description="List files." + PYTHON_HINT)]
    expected = (
        "You are an expert in composing functions.You are given a question and a set of "
        "possible functions. Based on the question, you will need to make one or more "
        "function/tool calls to achieve the purpose. If none of the functions can be used, "
        "point it out. If the given question lacks the parameters required by the function, "
        "also point it out.\n\nYou should only return the function calls in your response."
        "\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of "
        "[func_name1(params_name1=params_value1, params_name2=params_value2...), "
        "func_name2(params)].  You SHOULD NOT include any other text in the response.\n\n"
        "At each turn, you should try your best to complete the tasks requested by the user "
        "within the current turn. Continue to output functions to call until you have "
        "fulfilled the user's request to the best of your ability. Once you have no more "
        "functions to call, the system will consider the current turn complete and proceed "
        "to the next turn or task.\n\nHere is a list of functions in json format that you can "
        "invoke.\n" + json.dumps(docs, indent=4) + "\n"
    )
    assert bfcl_system_prompt([LS]) == expected
    # the Python hint is added once, never twice, and the input docs are not mutated
    assert bfcl_system_prompt(docs) == expected
    assert LS["description"] == "List files."


def test_compact_signatures():
    assert compact_signature(MV) == "mv(source, destination)"
    assert compact_signature(LS) == "ls(a?)"
    assert compact_system_prompt([MV, LS]).splitlines()[-2:] == [
        "mv(source, destination)",
        "ls(a?)",
    ]


def test_style_registry():
    assert system_prompt("bare", [MV]) is None
    assert system_prompt("compact", [MV]) == compact_system_prompt([MV])
    with pytest.raises(ValueError, match="style"):
        system_prompt("fancy", [MV])


@pytest.mark.parametrize(
    "high,suffix",
    [
        (True, "\n[Reward Goal: <|high_reward|>]"),
        (False, "\n[Reward Goal: <|low_reward|>]"),
        (None, ""),
    ],
)
def test_reward_goal_appended_once_to_first_user_message(high, suffix):
    messages = [{"role": "user", "content": "Step 1"}, {"role": "user", "content": "Step 2"}]
    out = with_reward_goal(messages, high)
    assert out[0]["content"] == "Step 1" + suffix
    assert out[1]["content"] == "Step 2"
    assert messages[0]["content"] == "Step 1"  # copy, input untouched


def test_initial_messages_system_first_and_goal_on_user():
    out = initial_messages([{"role": "user", "content": "hi"}], [MV], "compact", True)
    assert [m["role"] for m in out] == ["system", "user"]
    assert out[1]["content"].count("<|high_reward|>") == 1
    assert "<|high_reward|>" not in out[0]["content"]
    bare = initial_messages([{"role": "user", "content": "hi"}], [MV], "bare", None)
    assert bare == [{"role": "user", "content": "hi"}]
    with pytest.raises(ValueError, match="user message"):
        with_reward_goal([{"role": "system", "content": "s"}], True)


# --------------------------------------------------------------- styles per model (auto)
def test_auto_is_compact_for_a_from_scratch_model_and_bfcl_for_a_pretrained_one(tiny_tokenizer):
    from rcgrpo.policy.render import resolve_prompt_style
    from tests.smol import smol_tokenizer

    assert resolve_prompt_style("auto", tiny_tokenizer) == "compact"
    assert resolve_prompt_style("auto", smol_tokenizer()) == "bfcl"
    assert resolve_prompt_style("docs", smol_tokenizer()) == "docs"


def test_a_recorded_style_is_what_auto_reads_after_a_save(tmp_path):
    from transformers import AutoTokenizer

    from rcgrpo.policy.render import record_prompt_style, resolve_prompt_style
    from tests.smol import smol_tokenizer

    tok = smol_tokenizer()
    record_prompt_style(tok, "docs")
    tok.save_pretrained(tmp_path)
    assert resolve_prompt_style("auto", AutoTokenizer.from_pretrained(tmp_path)) == "docs"
    with pytest.raises(ValueError):
        record_prompt_style(tok, "auto")


def test_docs_style_is_signature_and_first_sentence():
    from rcgrpo.policy.render import docs_system_prompt, first_sentence

    doc = {
        "name": "cp",
        "description": "This tool belongs to X. Tool description: Copy a file.  If the "
        "destination is a folder, copy into it.",
        "parameters": {
            "properties": {"source": {}, "destination": {}, "force": {}},
            "required": ["source", "destination"],
        },
    }
    assert first_sentence(doc["description"]) == "Copy a file."
    assert first_sentence("No marker and no full stop") == "No marker and no full stop"
    lines = docs_system_prompt([doc]).splitlines()
    assert lines[-1] == "cp(source, destination, force?): Copy a file."


def test_eval_auto_gives_no_goal_to_a_model_without_goal_tokens(tiny_tokenizer):
    from rcgrpo.policy.evaluate import EvalArgs, resolve_auto
    from tests.smol import smol_tokenizer

    args = EvalArgs(model="x")
    plain = resolve_auto(args, smol_tokenizer(), ["<|high_reward|>", "<|low_reward|>"])
    assert (plain.condition, plain.prompt_style) == ("none", "bfcl")
    trained = resolve_auto(args, tiny_tokenizer, [])
    assert (trained.condition, trained.prompt_style) == ("high", "compact")
    asked = resolve_auto(
        EvalArgs(model="x", condition="low", prompt_style="bare"), tiny_tokenizer, ["t"]
    )
    assert (asked.condition, asked.prompt_style) == ("low", "bare")


def test_eval_auto_reads_whether_the_checkpoint_was_trained_with_goals(tmp_path):
    from transformers import AutoTokenizer

    from rcgrpo.policy.evaluate import EvalArgs, resolve_auto
    from rcgrpo.policy.tokenizer import goals_trained, record_goals
    from tests.smol import smol_tokenizer

    tok = smol_tokenizer()
    assert goals_trained(tok) is None
    record_goals(tok, False)  # SFT without goals: its goal tokens exist but mean nothing
    tok.save_pretrained(tmp_path / "sft")
    sft = AutoTokenizer.from_pretrained(tmp_path / "sft")
    assert goals_trained(sft) is False
    assert resolve_auto(EvalArgs(model="x"), sft, []).condition == "none"
    record_goals(sft, True)  # RCTP-FT from it
    record_goals(sft, False)  # then GRPO without goals: still a goal-trained checkpoint
    assert resolve_auto(EvalArgs(model="x"), sft, []).condition == "high"


def test_eval_accepts_every_prompt_style_a_checkpoint_can_be_trained_with():
    """``rcgrpo eval --prompt-style`` offers every style of the registry and ``auto`` (``docs``,
    the SmolLM2 presets' style, was missing)."""
    import dataclasses
    import typing

    from rcgrpo.policy.evaluate import EvalArgs
    from rcgrpo.policy.render import AUTO, PROMPT_STYLES

    field = {f.name: f for f in dataclasses.fields(EvalArgs)}["prompt_style"]
    hints = typing.get_type_hints(EvalArgs)
    assert set(typing.get_args(hints[field.name])) == {AUTO, *PROMPT_STYLES}
