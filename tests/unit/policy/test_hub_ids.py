"""A Hugging Face Hub id while offline (issue 60): not cached is one line saying so, at once
(no retries, nothing loaded); cached is read from the cache only."""

from __future__ import annotations

import socket

import pytest
import transformers
from huggingface_hub import constants

from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.policy import models
from rcgrpo.train.errors import ConfigError

HUB_ID = "nosuch-org/nosuch-model"
NOT_FOUND = (
    f"--model: model {HUB_ID!r} not found locally (no such folder, not in the Hugging Face "
    "cache), and offline "
)


class Loaded(Exception):
    """Raised by the fake from_pretrained: the loader was reached, with these kwargs."""


def _no_network(address, timeout=None):
    raise OSError("[Errno -2] Name or service not known")


@pytest.fixture
def offline_hub(monkeypatch):
    """No proxy, no connection, nothing cached; from_pretrained records its kwargs."""
    for name in models.PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(socket, "create_connection", _no_network)

    def loader(path, **kwargs):
        raise Loaded(kwargs)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", loader)
    return monkeypatch


def test_hf_hub_offline_names_the_variable(offline_hub):
    offline_hub.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ConfigError) as err:
        models.load_policy(HUB_ID, key="--model")
    assert str(err.value) == NOT_FOUND + "(HF_HUB_OFFLINE is set)"


def test_a_failed_lookup_names_the_host_and_the_reason(offline_hub):
    with pytest.raises(ConfigError) as err:
        models.load_policy(HUB_ID, key="--model")
    assert str(err.value) == NOT_FOUND + (
        "(the lookup of huggingface.co failed: [Errno -2] Name or service not known)"
    )


def test_a_cached_id_is_read_from_the_cache_only(offline_hub):
    offline_hub.setattr(
        "huggingface_hub.try_to_load_from_cache", lambda repo, name: f"/cache/{repo}/{name}"
    )
    with pytest.raises(Loaded) as err:
        models.load_policy(HUB_ID, key="--model")
    assert err.value.args[0] == {"local_files_only": True}


def test_a_local_path_and_a_reachable_hub_are_not_cache_only(offline_hub):
    assert models.check_hub_id("runs/x/final", "--model") is False  # never probed
    offline_hub.setattr(socket, "create_connection", lambda address, timeout=None: socket.socket())
    assert models.hub_offline() is None and models.check_hub_id(HUB_ID, "--model") is False


def test_eval_of_an_uncached_hub_id_offline_is_one_line(offline_hub, capsys):
    offline_hub.setattr(constants, "HF_HUB_OFFLINE", True)
    assert rcgrpo_main(["eval", "--model", HUB_ID]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "",
        f"rcgrpo eval: {NOT_FOUND}(HF_HUB_OFFLINE is set)\n",
    )
