"""Presets of other packages (rcgrpo/train/plugins.py): found through the entry-point group
"rcgrpo.presets" after the method's own, loaded only when needed, a clash refused, a broken
plugin skipped with one line."""

from __future__ import annotations

import textwrap
from importlib.metadata import EntryPoint

import pytest

from rcgrpo.train import plugins
from rcgrpo.train.cli import command_presets, parse_cli
from rcgrpo.train.cli_help import preset_descriptions
from rcgrpo.train.errors import ConfigError
from rcgrpo.train.presets import preset as rl_preset
from rcgrpo.train.stage1.config import preset as stage1_preset

PLUGIN = """
from rcgrpo.train.config import TrainConfig, from_dict
from rcgrpo.train.plugins import PresetTable
from rcgrpo.train.stage1.config import RCTPConfig, SFTConfig

PRESETS = PresetTable(
    {
        "my-grpo": from_dict(
            TrainConfig, {"init": "my/sft", "run": {"name": "{preset}-s{seed}"}}
        ),
        "my-sft": SFTConfig(),
        "my-rctp": RCTPConfig(),
    },
    {"my-grpo": "GRPO from my SFT model"},
)
CLASH = {"paper-qwen7b": TrainConfig()}
TWICE = {"my-grpo": TrainConfig()}
NOT_A_MAPPING = 3
"""


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Entry points of group rcgrpo.presets set by the test (``install(*values)``), no
    environment plugins; the loaded plugins forgotten before and after."""
    (tmp_path / "my_presets.py").write_text(textwrap.dedent(PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(plugins.ENV, raising=False)
    points: list[EntryPoint] = []
    monkeypatch.setattr(
        plugins, "entry_points", lambda group: [p for p in points if p.group == group]
    )
    plugins.loaded.cache_clear()

    def install(*values: str) -> None:
        points[:] = [EntryPoint(f"p{i}", v, plugins.GROUP) for i, v in enumerate(values)]
        plugins.loaded.cache_clear()

    yield install
    plugins.loaded.cache_clear()


def test_plugin_presets_follow_the_own_ones_in_each_command_of_their_class(installed):
    installed("my_presets:PRESETS")
    train = list(command_presets("train"))
    own = ["quick-grpo", "quick-rcgrpo", "quick-grpo-smol", "quick-rcgrpo-smol", "paper-qwen7b"]
    own.append("paper-qwen7b-grpo")
    assert train[-1] == "my-grpo" and train[: len(own)] == own
    assert "my-sft" in command_presets("sft") and "my-sft" not in command_presets("rctp")
    assert "my-rctp" in command_presets("rctp") and "my-rctp" not in command_presets("sft")
    cfg = parse_cli("train", ["--preset", "my-grpo", "--run.seed", "3"])
    assert (cfg.init, cfg.preset, cfg.run.name) == ("my/sft", "my-grpo", "my-grpo-s3")
    assert rl_preset("my-grpo").init == "my/sft"
    assert type(stage1_preset("my-rctp")).__name__ == "RCTPConfig"
    assert preset_descriptions()["my-grpo"] == "GRPO from my SFT model"


def test_an_own_preset_loads_no_plugin(installed, monkeypatch):
    def refuse(value):
        raise AssertionError(f"loaded {value}")

    installed("my_presets:PRESETS")
    monkeypatch.setattr(plugins, "_load", refuse)
    assert parse_cli("train", ["--preset", "paper-qwen7b"]).preset == "paper-qwen7b"
    assert rl_preset("paper-qwen7b-grpo").preset == "paper-qwen7b-grpo"
    assert stage1_preset("sft-bfcl-tiny").stage == "sft"


def test_a_plugin_preset_named_like_an_own_or_another_plugins_is_an_error(installed):
    installed("my_presets:CLASH")
    with pytest.raises(ConfigError, match="paper-qwen7b would replace rcgrpo's own"):
        command_presets("train")
    installed("my_presets:PRESETS", "my_presets:TWICE")
    with pytest.raises(ConfigError, match="'my-grpo' is also a preset of plugin p0"):
        parse_cli("train", ["--preset", "my-grpo"])


def test_a_plugin_that_fails_to_load_is_skipped_with_one_line(installed, capsys):
    installed("no_such_module:PRESETS", "my_presets:NOT_A_MAPPING", "my_presets:PRESETS")
    assert "my-grpo" in command_presets("train")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("rcgrpo: preset plugin p") for line in err)
    assert "No module named 'no_such_module'" in err[0] and "not a mapping" in err[1]


def test_the_environment_names_plugins_too_each_reference_once(installed, monkeypatch):
    installed("my_presets:PRESETS")
    monkeypatch.setenv(plugins.ENV, "my_presets:PRESETS, my_presets:NOT_A_MAPPING")
    assert plugins.references() == [
        ("p0", "my_presets:PRESETS"),
        (plugins.ENV, "my_presets:NOT_A_MAPPING"),
    ]


def test_the_campaigns_register_their_presets_in_pyproject():
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    points = pyproject["project"]["entry-points"][plugins.GROUP]
    assert points == {"campaigns": "analysis.campaigns.presets:PRESETS"}
