"""LoRA adapters (``peft``) for both stages and RL, and the checkpoint of an adapter run.

LoRA (Hu et al. 2021, arXiv 2106.09685) freezes the base weight :math:`W_0` of each target
linear layer and trains a low-rank update,

.. math:: h = W_0 x + \\frac{\\alpha}{r} B A x,\\qquad A \\in \\mathbb R^{r\\times k},\\;
          B \\in \\mathbb R^{d\\times r},\\; B_0 = 0,

so at step 0 the adapted model computes exactly the base model's logits (tested:
``tests/unit/policy/test_lora.py``). The reward-goal tokens that
:func:`rcgrpo.policy.tokenizer.add_reward_tokens` adds are trained too, as their own rows
only (peft's ``trainable_token_indices``: a delta on those rows of the input embedding,
which the tied output layer shares), so RCTP-FT can move them apart without training the
49k-row matrix.

An adapter checkpoint folder holds (never the base weights)::

    adapter_config.json, adapter_model.safetensors   peft's save_pretrained: A, B, token deltas
    goal_rows.safetensors    the added rows as initialised (the mean row), so a reload
                             rebuilds them bit for bit on any CPU
    base.json                the base model: its name or path and its files' sha256
    tokenizer files          with the added reward tokens

:func:`load_adapter` loads the base by the name in ``base.json`` (a name of
:mod:`rcgrpo.policy.named` or a folder), checks its hash, resizes it to the checkpoint's
tokenizer, restores the added rows and attaches the adapter, trainable (resume, RL from a
Stage-1 adapter) or not.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import torch

from rcgrpo.train.errors import ConfigError

ADAPTER_CONFIG = "adapter_config.json"
BASE_FILE = "base.json"
GOAL_ROWS = "goal_rows.safetensors"
ALL_LINEAR = "all-linear"
"""peft's name for every linear layer but the output head."""


def is_adapter(path: str | Path) -> bool:
    """Whether ``path`` is an adapter checkpoint folder (module docstring)."""
    return (Path(path) / ADAPTER_CONFIG).is_file()


def is_peft(model) -> bool:
    """Whether ``model`` carries peft adapters."""
    return hasattr(model, "peft_config")


def base_files_sha256(base: str) -> dict[str, str]:
    """sha256 of the base model's weight files: from ``conversion.json`` for a named model,
    else hashed from the folder's ``*.safetensors`` (empty for a Hub id)."""
    from rcgrpo.policy import named

    if named.is_named(base):
        return named.base_record(base)["files"]
    folder = Path(base)
    files = sorted(folder.glob("*.safetensors")) if folder.is_dir() else []
    return {p.name: named.sha256_file(p) for p in files}


def wrap(
    model,
    base: str,
    r: int,
    alpha: float,
    dropout: float = 0.0,
    targets: str | Sequence[str] = ALL_LINEAR,
    token_ids: Sequence[int] = (),
):
    """``model`` with fresh LoRA adapters of rank ``r`` on ``targets`` and trainable rows
    for ``token_ids``; ``base`` (the name or path it was loaded from) goes into the
    checkpoint's ``base.json``. Every other weight is frozen; B starts at 0."""
    from peft import LoraConfig, get_peft_model

    if r < 1:
        raise ValueError(f"lora rank r must be >= 1, got {r}")
    rows = _goal_rows(model, token_ids)
    config = LoraConfig(
        r=r,
        lora_alpha=alpha,
        lora_dropout=dropout,
        target_modules=targets if isinstance(targets, str) else list(targets),
        trainable_token_indices=list(token_ids) or None,
        base_model_name_or_path=str(base),
        task_type="CAUSAL_LM",
    )
    with warnings.catch_warnings():  # peft 0.21 asks transformers 5.23 a deprecated name,
        # and says it records the folder the base was read from (set back below)
        warnings.filterwarnings("ignore", "`is_gradient_checkpointing` is deprecated")
        warnings.filterwarnings("ignore", "The PEFT config's `base_model_name_or_path`")
        wrapped = get_peft_model(model, config)
    # peft writes the folder the base was read from (for a name: the local cache); record the
    # name or path the run was given, which loads on any machine
    wrapped.peft_config["default"].base_model_name_or_path = str(base)
    wrapped.rcgrpo_base = {"base": str(base), "sha256": base_files_sha256(str(base))}
    wrapped.rcgrpo_goal_rows = rows
    return wrapped


def _goal_rows(model, token_ids: Sequence[int]) -> dict[str, torch.Tensor]:
    ids = list(token_ids)
    weight = model.get_input_embeddings().weight
    return {"ids": torch.tensor(ids, dtype=torch.long), "rows": weight[ids].detach().clone()}


def save_adapter(model, tokenizer, path: str | Path) -> Path:
    """Write an adapter checkpoint (module docstring) into ``path``."""
    from safetensors.torch import save_file

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path, save_embedding_layers=False)
    (path / "README.md").unlink(missing_ok=True)  # peft's model-card stub
    rows = getattr(model, "rcgrpo_goal_rows", None)
    if rows is not None and rows["ids"].numel():
        save_file({k: v.contiguous() for k, v in rows.items()}, str(path / GOAL_ROWS))
    record = getattr(model, "rcgrpo_base", None)
    if record is None:
        raise ValueError("save_adapter: model was not wrapped by rcgrpo.policy.lora.wrap")
    (path / BASE_FILE).write_text(json.dumps(record, indent=1) + "\n")
    if tokenizer is not None:
        tokenizer.save_pretrained(path)
    return path


def load_adapter(path: str | Path, dtype: torch.dtype, device: str, key: str, load_base):
    """(model, tokenizer): the base named in ``base.json``, loaded by ``load_base(base,
    dtype, device, key=...)`` (:func:`rcgrpo.policy.models.load_policy`), with the adapter
    of ``path`` attached (trainable) and the checkpoint's tokenizer. A base whose files'
    sha256 differ from the recorded ones is a one-line ConfigError."""
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    path = Path(path)
    record = json.loads((path / BASE_FILE).read_text()) if (path / BASE_FILE).is_file() else {}
    base = record.get("base") or json.loads((path / ADAPTER_CONFIG).read_text()).get(
        "base_model_name_or_path"
    )
    if not base:
        raise ConfigError(f"{key}: {path} is an adapter without a base model name")
    model, _, _ = load_base(base, dtype, device, key=f"{key} (base of {path})")
    recorded, found = record.get("sha256") or {}, base_files_sha256(base)
    if recorded and found and recorded != found:
        raise ConfigError(
            f"{key}: the base {base!r} of {path} has other weights than it was trained on "
            f"(sha256 of {sorted(recorded)} differ)"
        )
    tokenizer = AutoTokenizer.from_pretrained(path)
    if len(tokenizer) > model.get_input_embeddings().weight.shape[0]:
        model.resize_token_embeddings(len(tokenizer), mean_resizing=False)
    if (path / GOAL_ROWS).is_file():
        rows = load_file(str(path / GOAL_ROWS))
        with torch.no_grad():
            weight = model.get_input_embeddings().weight
            weight[rows["ids"]] = rows["rows"].to(weight.dtype)
    else:
        rows = None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`is_gradient_checkpointing` is deprecated")
        wrapped = PeftModel.from_pretrained(model, path, is_trainable=True)
    wrapped.rcgrpo_base = {"base": base, "sha256": recorded or found}
    wrapped.rcgrpo_goal_rows = rows
    return wrapped, tokenizer


def trainable_parameters(model) -> list[torch.nn.Parameter]:
    """The parameters the optimizer updates: all of them, or under LoRA the adapters' and
    the goal-token rows."""
    return [p for p in model.parameters() if p.requires_grad]


def targets_of(text: str) -> str | list[str]:
    """The ``lora.targets`` setting as peft takes it: ``all-linear`` or a list of names."""
    text = text.strip()
    return text if text == ALL_LINEAR else [t.strip() for t in text.split(",") if t.strip()]


def with_adapters(model, tokenizer, base: str, r: int, alpha: float, dropout: float, targets: str):
    """``model`` as a run starts it: unchanged without LoRA (``r`` 0) or when it already
    carries an adapter (a run from an adapter checkpoint continues it), else wrapped with
    fresh adapters whose trainable token rows are the reward-goal tokens."""
    from rcgrpo.conditioning import HIGH_TOKEN, LOW_TOKEN

    if r == 0 or is_peft(model):
        return model
    ids = tokenizer.convert_tokens_to_ids([HIGH_TOKEN, LOW_TOKEN])
    return wrap(model, base, r, alpha, dropout, targets_of(targets), ids)
