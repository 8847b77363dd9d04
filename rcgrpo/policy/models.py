"""Policy models: the tiny Qwen2 presets for CPU, and loading any Hugging Face causal LM.

A policy checkpoint is a plain ``save_pretrained`` folder (model + tokenizer with its chat
template), so notebooks and outside tools open it with ``AutoModelForCausalLM`` /
``AutoTokenizer``. Create a fresh tiny checkpoint from the command line::

    python -m rcgrpo.policy.models --out runs/tiny_init --preset tiny
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from safetensors import SafetensorError
from transformers import (
    AutoModelForCausalLM,
    AutoTokenizer,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen2ForCausalLM,
)

from rcgrpo.policy.tokenizer import add_reward_tokens, bfcl_corpus, train_tiny_tokenizer
from rcgrpo.train.errors import ConfigError
from rcgrpo.validation import check_choice

# Qwen2 architecture sizes. Parameter counts are for a 1024-token vocabulary (embeddings
# tied with the output layer); RoPE has no parameters, so the context length is free.
PRESETS: dict[str, dict] = {
    # ~1.8M parameters: the CPU experiments' model.
    "tiny": dict(
        hidden_size=192,
        intermediate_size=512,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
    ),
    # ~0.9M parameters.
    "small": dict(
        hidden_size=128,
        intermediate_size=384,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
    ),
    # ~0.1M parameters: tests only.
    "micro": dict(
        hidden_size=64,
        intermediate_size=192,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
    ),
}


def tiny_config(preset: str, tokenizer) -> Qwen2Config:
    """The Qwen2 config of ``preset`` sized to ``tokenizer`` (vocab, pad and EOS ids)."""
    check_choice("preset", preset, PRESETS)
    return Qwen2Config(
        vocab_size=len(tokenizer),
        tie_word_embeddings=True,
        rope_theta=10000.0,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        **PRESETS[preset],
    )


def build_tiny_policy(
    preset: str = "tiny", tokenizer=None, seed: int = 0, vocab_size: int = 1024
) -> tuple[Qwen2ForCausalLM, object]:
    """A randomly initialised tiny Qwen2 and its tokenizer (trained on the BFCL corpus if None).

    Deterministic given ``seed`` (the tokenizer training is deterministic too).
    """
    if tokenizer is None:
        tokenizer = train_tiny_tokenizer(bfcl_corpus(), vocab_size=vocab_size)
    config = tiny_config(preset, tokenizer)
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        model = Qwen2ForCausalLM(config)
    finally:
        torch.random.set_rng_state(generator_state)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model.eval(), tokenizer


_PIPELINE = ("normalizer", "pre_tokenizer", "model", "decoder")


def faithful_tokenizer(tokenizer, path: str | Path):
    """``tokenizer``, or the generic fast tokenizer of ``path`` if ``tokenizer`` does not
    tokenize as the folder's ``tokenizer.json`` says.

    transformers 5 picks the tokenizer class from the model type (``Qwen2Tokenizer`` for a
    Qwen2 config) and that class rebuilds its own pre-tokenizer, silently replacing the one
    a from-scratch BPE was trained with (ours isolates whitespace): the reloaded checkpoint
    then sees other token ids than in training (held-out success 0.145 → 0.045 on the CPU
    suite). A real model's own class reproduces its file and is kept.
    """
    file = Path(path) / "tokenizer.json"
    if not file.is_file():
        return tokenizer  # a hub id: trust its class
    saved = json.loads(file.read_text())
    loaded = json.loads(tokenizer.backend_tokenizer.to_str())
    if all(saved.get(k) == loaded.get(k) for k in _PIPELINE):
        return tokenizer
    generic = PreTrainedTokenizerFast.from_pretrained(path)
    loaded = json.loads(generic.backend_tokenizer.to_str())
    differ = [k for k in _PIPELINE if saved.get(k) != loaded.get(k)]
    if differ:
        raise ValueError(f"{file}: no tokenizer class reproduces its {differ}")
    return generic


LOCAL_ROOTS = ("runs", "results")
"""Top folders of this project's run folders: a path under one is local, never a Hub id."""


def looks_local(path: str | Path) -> bool:
    """Whether ``path`` names a local folder rather than a Hugging Face Hub id
    (``namespace/name``): absolute or ``./`` ``../`` ``~``, not exactly two parts, under
    :data:`LOCAL_ROOTS`, or its first part an existing folder."""
    text = str(path)
    parts = text.split("/")
    return (
        text.startswith(("/", ".", "~"))
        or len(parts) != 2
        or parts[0] in LOCAL_ROOTS
        or Path(parts[0]).is_dir()
    )


def check_model_path(path: str | Path, key: str) -> None:
    """ConfigError (one line naming ``key`` and the path) when ``path`` looks local
    (:func:`looks_local`) and does not exist: no Hub lookup, nothing created. A name of
    :mod:`rcgrpo.policy.named` is found when converted or its wheel installed (else one line
    saying how to install it)."""
    from rcgrpo.policy import named

    if named.is_named(path):
        if named.conversion_record(named.model_folder(str(path))) is None:
            try:
                named.gguf_path(str(path))
            except ConfigError as err:
                raise ConfigError(f"{key}: {err}") from None
        return
    if looks_local(path) and not Path(path).expanduser().exists():
        raise ConfigError(f"{key}: no model folder at {str(path)!r} (a local path, not looked up)")


PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
"""With one of these set the Hub is reached through a proxy: :func:`hub_offline` does not
probe a direct connection."""


def hub_offline(timeout: float = 5.0) -> str | None:
    """Why the Hugging Face Hub cannot be reached (``HF_HUB_OFFLINE`` set, or one TCP
    connection to its endpoint fails within ``timeout`` s), or None: so a Hub id that is not
    cached fails in one line at once, not after ~50 s of retries."""
    import os
    import socket
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return "HF_HUB_OFFLINE is set"
    if any(os.environ.get(v) for v in PROXY_VARIABLES):
        return None
    url = urlsplit(constants.ENDPOINT)
    try:
        socket.create_connection((url.hostname, url.port or 443), timeout=timeout).close()
    except OSError as err:
        return f"the lookup of {url.hostname} failed: {err}"
    return None


def check_hub_id(path: str | Path, key: str) -> bool:
    """For a Hub id (not :func:`looks_local`): whether to load from the Hugging Face cache
    only (the Hub is offline and the id is cached); ConfigError (one line) when it is offline
    and the id is not cached. False for a local path."""
    if looks_local(path):
        return False
    from huggingface_hub import try_to_load_from_cache

    why = hub_offline()
    if why is None:
        return False
    if isinstance(try_to_load_from_cache(str(path), "config.json"), str):
        return True
    raise ConfigError(
        f"{key}: model {str(path)!r} not found locally (no such folder, not in the Hugging "
        f"Face cache), and offline ({why})"
    )


def _unreadable(path: str | Path, err: Exception) -> ConfigError:
    """One line naming the weight file of ``path`` that failed to load and why."""
    files = sorted(Path(path).glob("*.safetensors")) if Path(path).is_dir() else []
    where = str(files[0]) if len(files) == 1 else str(path)
    first = (str(err).strip().splitlines() or [type(err).__name__])[0]
    return ConfigError(f"{where}: cannot be loaded ({type(err).__name__}: {first})")


def load_policy(
    path: str | Path, dtype: torch.dtype = torch.float32, device: str = "cpu", key: str = "model"
):
    """Load any causal LM + tokenizer; add the reward tokens if the tokenizer lacks them.

    ``path``: a checkpoint folder, a Hub id, a name of
    :data:`rcgrpo.policy.named.NAMED_MODELS` (converted on first use) or an adapter
    checkpoint (the base it names with the adapter attached, trainable:
    :func:`rcgrpo.policy.lora.load_adapter`).

    Returns ``(model, tokenizer, added)`` with ``added`` the reward tokens that were added
    (see :func:`rcgrpo.policy.tokenizer.add_reward_tokens` for the initialisation). A
    missing local ``path`` (:func:`check_model_path`; ``key`` names it), a Hub id found
    neither in the Hugging Face cache nor on the Hub (offline) or an unreadable local weight
    file is a one-line ConfigError.
    """
    from rcgrpo.policy import lora, named

    check_model_path(path, key)
    if lora.is_adapter(path):
        model, tokenizer = lora.load_adapter(path, dtype, device, key, load_policy)
        return model.eval(), faithful_tokenizer(tokenizer, path), []
    path = named.resolve(path)
    cached = check_hub_id(path, key)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=cached)
    except OSError as err:  # a Hub id the Hub does not hold
        if looks_local(path):
            raise
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ConfigError(f"{key}: model {str(path)!r}: {first}") from None
    tokenizer = faithful_tokenizer(tokenizer, path)
    if not tokenizer.chat_template:
        raise ValueError(f"path {str(path)!r}: the tokenizer has no chat template")
    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=cached).to(
            device
        )
    except SafetensorError as err:
        raise _unreadable(path, err) from None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    added = add_reward_tokens(tokenizer, model)
    return model.eval(), tokenizer, added


def set_grad_checkpointing(model, on: bool) -> None:
    """Turn gradient checkpointing on (``model.grad_checkpointing``): in training mode each
    decoder layer's activations are recomputed in the backward pass (non-reentrant, so a
    model whose inputs need no gradient, as under LoRA, still gets its adapters' ones)."""
    if on:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})


def save_policy(model, tokenizer, path: str | Path) -> Path:
    """``save_pretrained`` of both into one folder (the checkpoint format of the project);
    a model with LoRA adapters saves its adapter only, never the base weights
    (:func:`rcgrpo.policy.lora.save_adapter`)."""
    from rcgrpo.policy import lora

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model = getattr(model, "module", model)  # DDP
    if lora.is_peft(model):
        return lora.save_adapter(model, tokenizer, path)
    model.save_pretrained(path, safe_serialization=True)
    if tokenizer is not None:
        tokenizer.save_pretrained(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rcgrpo.policy.models", description=__doc__)
    parser.add_argument("--out", required=True, help="checkpoint folder to create")
    parser.add_argument("--preset", default="tiny", choices=sorted(PRESETS))
    parser.add_argument("--vocab-size", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    model, tokenizer = build_tiny_policy(args.preset, seed=args.seed, vocab_size=args.vocab_size)
    save_policy(model, tokenizer, args.out)
    params = sum(p.numel() for p in model.parameters())
    print(f"saved {args.preset} ({params:,} parameters, vocab {len(tokenizer)}) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
