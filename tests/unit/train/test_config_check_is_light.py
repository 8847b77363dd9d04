"""Checking a config loads no model code: ``parse_cli`` (every subcommand's first step, and
what the campaign's staleness check and figure builds call per run) imports neither
transformers nor the rollout engine, so a wrong key is answered before the model stack loads
and ``make figures`` does not import transformers in each process."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from rcgrpo.train.cli import parse_cli
for command, preset in (("train", "quick-grpo"), ("sft", "quick-sft"), ("rctp", "quick-rctp")):
    parse_cli(command, ["--preset", preset])
heavy = ("transformers", "rcgrpo.policy.rollout", "rcgrpo.policy.models")
print(",".join(m for m in heavy if m in sys.modules))
"""


def test_parse_cli_imports_no_model_code():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "", done.stdout


def test_the_policy_package_exports_its_names_on_first_use():
    import rcgrpo.policy as policy

    assert set(policy.__all__) <= set(dir(policy))
    for name in policy.__all__:
        assert getattr(policy, name) is not None
    assert policy.models.__name__ == "rcgrpo.policy.models"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = policy.nope
