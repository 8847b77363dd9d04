"""The smollm2-collapse runs as its protocol registers them (docs/protocols/smollm2-collapse.md):
one matched Stage 1 (the matched SFT on RCTP-FT's own successes with RCTP-FT's recipe), the
arms' starts and goals, the parts in priority order, the diagnostic's command, the reply cap and
the budget table from the unit costs."""

from __future__ import annotations

import gzip
import json
import re

from analysis import REPO_ROOT
from analysis.campaign.config import resolved_config
from analysis.campaign.mechanics import Checkpoint
from analysis.campaigns.smollm2_collapse import budget, design

PROTOCOL = REPO_ROOT / "docs" / "protocols" / "smollm2-collapse.md"


def _flags(argv) -> dict[str, tuple]:
    out, key = {}, None
    for a in argv:
        if isinstance(a, str) and a.startswith("--"):
            key = a
            out[key] = ()
        elif key:
            out[key] += (a,)
    return out


def test_every_run_is_in_one_part_and_the_parts_follow_the_arms_priority():
    camp = design.build()
    parted = [n for part in design.PARTS for n in part]
    assert len(parted) == len(set(parted)) == 4 + 12  # Stage 1, the pilot, 4 arms × 3 seeds
    assert set(camp.runs) == {*parted, "sft-base2-s31"}  # the retry only when gate B calls
    first = {
        a.name: min(i for i, p in enumerate(design.PARTS) for n in p if n.startswith(a.name + "-s"))
        for a in design.ARMS
    }
    assert list(first.values()) == sorted(first.values())  # RCTP-FT + GRPO, RC-GRPO, SFT, anchored
    assert [a.name for a in design.ARMS][:2] == ["smol-rctp-grpo", "smol-rcgrpo"]


def test_stage1_starts_from_the_base_and_the_matched_sft_reads_rctps_mix():
    for retry, base in ((False, "sft-base-s31"), (True, "sft-base2-s31")):
        runs = design.stage1(retry)
        rctp, sft = _flags(runs["rctp"].argv), _flags(runs["sft"].argv)
        assert runs["base"].name == base
        assert rctp["--model.path"] == rctp["--failures.policy"] == sft["--model.path"]
        assert rctp["--model.path"] == (Checkpoint(runs["base"]),)
        assert sft["--sft.successes_of"] == (Checkpoint(runs["rctp"], "mix"),)
        assert rctp["--failures.skip_decisions"] == design.SWAP_KINDS
        assert rctp["--failures.skip_keep"] == ("0.01",) and rctp["--failures.num_tasks"] == (
            "128",
        )
    assert _flags(design.base(True).argv)["--sft.epochs"] == ("2",)  # gate B's retry
    assert _flags(design.base(False).argv)["--tasks.num_train"] == ("320",)


def test_each_arm_starts_from_its_checkpoint_with_its_goals():
    runs = design.stage1()
    for arm, start, flags in (
        ("smol-rctp-grpo", "rctp", {"--algo.conditioning": ("high",)}),
        ("smol-rcgrpo", "rctp", {"--preset": ("smol-rcgrpo",)}),
        ("smol-sft-grpo", "sft", {"--preset": ("smol-grpo",)}),
        ("smol-rcgrpo-anchored", "rctp", {"--algo.no-low-goal-gradient": ()}),
    ):
        got = _flags(design.rl(design.ARM[arm], 4, runs).argv)
        assert got["--init"] == (Checkpoint(runs[start]),) and got["--run.seed"] == ("4",)
        assert all(got[k] == v for k, v in flags.items()), arm


def test_matched_sft_and_rctp_resolve_to_one_recipe():
    runs = design.stage1()
    where = lambda name: REPO_ROOT / "runs" / design.HOME / name  # noqa: E731
    rctp, sft = (resolved_config(runs[k], where) for k in ("rctp", "sft"))
    differ = {k for k in rctp["sft"] if rctp["sft"][k] != sft["sft"][k]}
    assert differ == {"successes_of", "threads"}  # threads: RCTP-FT runs on two cores
    for section in ("optim", "lora", "tasks", "model"):
        assert rctp[section] == sft[section], section
    assert (rctp["sft"]["epochs"], rctp["lora"]["r"], rctp["lora"]["alpha"]) == (2.0, 8, 16.0)
    assert rctp["sft"]["eval_max_new_tokens"] == rctp["failures"]["max_new_tokens"] == 96


def test_the_diagnostic_command_is_the_protocols():
    text = PROTOCOL.read_text()
    block = text[text.index("    OMP_NUM_THREADS=1 python -m analysis.diagnostics.transfer") :]
    block = block[: block.index("\n\n")].replace("\\\n", " ")
    registered = block.split()[1:]
    command = [a.replace(f"{REPO_ROOT}/", "") for a in design.transfer_command()]
    assert command == registered


def test_every_expert_reply_fits_the_cap_and_the_quick_cap_would_cut_some():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(
        str(REPO_ROOT / "tests" / "data" / "smollm2-tokenizer" / "tokenizer.json")
    )
    mix = REPO_ROOT / "results" / "collapse-pairs" / "rctp-p1-s31" / "mix" / "trajectories.jsonl.gz"
    rows = [json.loads(line) for line in gzip.decompress(mix.read_bytes()).decode().splitlines()]
    replies = [
        len(tok.encode(m["content"]).ids) + 1  # + the end-of-message token
        for r in rows
        if r["reward"] == 1
        for m in r["messages"]
        if m["role"] == "assistant"
    ]
    assert max(replies) == 93 <= design.REPLY_TOKENS
    first = [
        len(tok.encode(next(m["content"] for m in r["messages"] if m["role"] == "assistant")).ids)
        + 1
        for r in rows
        if r["reward"] == 1
    ]
    assert round(sum(n > 48 for n in first) / len(first), 2) == 0.18  # the protocol's 18%


def test_the_budget_table_is_the_unit_costs_plan():
    text = PROTOCOL.read_text()
    rows = re.findall(r"^\| (\d(?:–\d)?) \| .*? \| ([\d.]+) \| (?:3 × )?([\d.]+) h \|$", text, re.M)
    plan = budget.plan()
    assert [r[0] for r in rows] == [p.number for p in plan]
    for (_, cpu, wall), part in zip(rows, plan, strict=True):
        per_wall = part.wall_h / 3 if part.number == "4–6" else part.wall_h
        assert (f"{part.cpu_h:.1f}", f"{per_wall:.1f}") == (cpu, wall), part.number
    total = sum(p.cpu_h for p in plan)
    assert f"| total | | {total:.1f} | {sum(p.wall_h for p in plan):.1f} h |" in text
    assert total <= budget.CAP_CPU_H
