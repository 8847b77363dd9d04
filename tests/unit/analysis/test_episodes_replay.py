"""Scripted replays through the real Episode: the conversation a policy sees, and its reward."""

from __future__ import annotations

import pytest

from analysis.notebook.episodes import format_conversation, replay, task_frame
from rcgrpo.policy.render import COMPACT_HEADER
from tests.worked_example import MV, RM, WORKED


def test_oracle_replay_multi_turn_compact_with_goal():
    rep = replay(WORKED, mode="multi_turn", style="compact", high=True)
    roles = [m["role"] for m in rep.messages]
    # system, user(+goal), assistant [mv, rm], tool x2, assistant "Done." (ends the only turn)
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert rep.messages[0]["content"].startswith(COMPACT_HEADER)
    assert rep.messages[1]["content"].endswith("\n[Reward Goal: <|high_reward|>]")
    assert rep.messages[2]["content"] == f"[{MV}, {RM}]"
    assert (rep.record.reward, rep.record.bfcl_valid, rep.steps) == (1, True, 2)


def test_replay_styles_modes_and_a_custom_script():
    bare = replay(WORKED, style="bare")
    assert bare.messages[0]["role"] == "user" and "Reward Goal" not in bare.messages[0]["content"]
    combined = replay(WORKED, mode="combined", style="bfcl", high=False)
    assert combined.messages[0]["content"].startswith("You are an expert in composing functions")
    assert "<|low_reward|>" in combined.messages[1]["content"]
    assert combined.record.reward == 1 and combined.record.mode == "combined"
    # only mv, then stop: the paper's "only mv -> 0"
    only_mv = replay(WORKED, script=lambda view: f"[{MV}]" if view.step_in_turn == 0 else "")
    assert (only_mv.record.state, only_mv.record.action, only_mv.record.reward) == (0, 0, 0)


def test_format_conversation_cuts_long_messages():
    msgs = [{"role": "user", "content": "x" * 10}, {"role": "tool", "content": "ok"}]
    assert (
        format_conversation(msgs, max_chars=4) == "[user]\nxxxx … (6 more characters)\n\n[tool]\nok"
    )
    assert format_conversation(msgs, max_chars=None).startswith("[user]\n" + "x" * 10)
    with pytest.raises(ValueError, match="max_chars"):
        format_conversation(msgs, max_chars=0)


def test_task_frame():
    df = task_frame([WORKED], request_chars=7)
    assert df.to_dict("records") == [
        {
            "id": "worked_example_0",
            "category": "base",
            "turns": 1,
            "gt_calls": 2,
            "classes": "GorillaFileSystem",
            "first_request": "Archive",
        }
    ]
