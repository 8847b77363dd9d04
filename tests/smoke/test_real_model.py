"""The real model end to end: ``smollm2-135m-instruct`` from its wheel, converted
twice to the same bytes with no quantisation marker, then a tiny ``sft`` -> ``rctp`` ->
``train`` -> ``eval`` chain with LoRA whose run folders hold adapters only (each under 50
MB), recording the base by name and hash. Needs the wheel (``make test-slow`` installs it:
``make real-model``); several minutes on 2 cores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from rcgrpo.policy import named

pytestmark = pytest.mark.slow  # end to end: converts the model and trains through the CLI

NAME = "smollm2-135m-instruct"
MB = 1 << 20


def _wheel() -> None:
    try:
        metadata.distribution(named.NAMED_MODELS[NAME].distribution)
    except metadata.PackageNotFoundError:
        pytest.fail(f"the wheel of {NAME} is not installed: make real-model")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A model cache of this module's own: the chain's first command converts into it."""
    _wheel()
    return tmp_path_factory.mktemp("model-cache")


def _cli(cache: Path, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, named.CACHE_VARIABLE: str(cache), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "rcgrpo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _adapter_only(folder: Path, sha: str) -> None:
    files = {p.name: p.stat().st_size for p in folder.iterdir() if p.is_file()}
    assert "model.safetensors" not in files and "adapter_model.safetensors" in files
    assert sum(files.values()) < 50 * MB, files
    base = json.loads((folder / "base.json").read_text())
    assert base["base"] == NAME and base["sha256"]["model.safetensors"] == sha


STAGE1 = [
    "--tasks.num-train",
    "4",
    "--tasks.num-eval",
    "1",
    "--sft.batch-size",
    "2",
    "--sft.eval-max-new-tokens",
    "8",
    "--run.steps",
    "2",
    "--run.no-progress",
    "--run.no-tensorboard",
]


def test_sft_rctp_train_eval_with_lora_keep_adapters_only(cache, tmp_path):
    root = str(tmp_path)
    _cli(cache, "sft", "--preset", "quick-sft-smol", "--run.root", root, *STAGE1)
    record = named.conversion_record(cache / NAME)
    assert record["gguf_sha256"] == named.sha256_file(named.gguf_path(NAME))
    config = json.loads((cache / NAME / "config.json").read_text())
    assert "quantization_config" not in config
    sha = record["files"]["model.safetensors"]
    sft = tmp_path / "sft" / "final"
    _adapter_only(sft, sha)
    rctp_args = f"--model.path {sft} --failures.policy {sft} --failures.num-tasks 2"
    rctp_args += " --failures.max-new-tokens 8"
    _cli(
        cache,
        "rctp",
        "--preset",
        "quick-rctp-smol",
        "--run.root",
        root,
        *rctp_args.split(),
        *STAGE1,
    )
    rctp = tmp_path / "rctp" / "final"
    _adapter_only(rctp, sha)
    rl_args = f"--init {rctp} --run.root {root} --run.steps 1 --rollout.prompts-per-step 1"
    rl_args += " --rollout.group-size 2 --rollout.max-new-tokens 8 --tasks.num-train 4"
    rl_args += " --tasks.num-eval 1 --run.no-progress --run.no-tensorboard"
    _cli(cache, "train", "--preset", "quick-rcgrpo-smol", *rl_args.split())
    run = tmp_path / "quick-rcgrpo-smol-s0"
    step = run / "checkpoints" / "step_1"
    _adapter_only(step, sha)
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert "group/zero_var_frac" in metrics[-1] and "reward/eval_success" in metrics[-1]
    out = tmp_path / "eval"
    eval_args = f"--model {step} --tasks.source synth --tasks.synth-preset collapse1-d10"
    _cli(cache, "eval", *eval_args.split(), *f"--limit 1 --max-new-tokens 8 --out {out}".split())
    report = json.loads((out / "synth-test-high.json").read_text())
    # auto: the goal tokens were trained (high), the style the checkpoint was trained with
    assert report["args"]["condition"] == "high" and report["args"]["prompt_style"] == "docs"
    assert report["added_reward_tokens"] == []


def test_two_conversions_give_the_same_bytes(cache, tmp_path):
    first = named.conversion_record(cache / NAME) or named.convert(NAME, cache / NAME, False)
    second = named.convert(NAME, tmp_path / NAME, progress=False)
    assert second["files"] == first["files"] and second["gguf_sha256"] == first["gguf_sha256"]
    assert second["parameters"] == 134_515_008
