"""One command line for the training stages: ``python -m rcgrpo sft | rctp | train | trl``.

Every command loads its config the same way::

    --preset NAME     a named config of the command (default: its CPU preset)
    --config FILE     JSON overrides over the preset (strict keys)
    --section.field   flags over both (tyro; ``--run.no-progress`` for a False bool)

then fills ``{preset}`` / ``{seed}`` into ``run.name`` and validates
(:func:`rcgrpo.train.validate.validate_config`). A key the command does not read is an
error, not a no-op: each stage's config holds only the fields it uses, so ``rcgrpo train
--model.path X`` (Stage 1's starting model; RL starts from ``--init``) and ``rcgrpo sft
--optim.micro-batch 4`` (RL only) stop with one line naming the key and the command; so
does a field a command's config inherits but never reads (:data:`UNREAD`, e.g. ``rctp
--sft.random-goals``).

Every option takes ``--key value`` or ``--key=value``: ``--preset`` and ``--config`` are read
by argparse, the rest by tyro.

Errors exit alike in every command (:func:`run_command`): :class:`ConfigError` -> 2,
:class:`~rcgrpo.train.errors.NonFiniteError` -> 3, one line on stderr and no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import importlib
import io
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rcgrpo.train.errors import EXIT_CODES, ConfigError


@dataclass(frozen=True)
class Command:
    """A training command: its config class, its presets and the preset it starts from."""

    config: str
    """``module:Class`` of the command's config dataclass."""
    presets: str
    """``module:NAME`` of the preset dict (filtered to presets of the config class)."""
    default: str
    """Preset used when no ``--preset`` is given."""


UNREAD: dict[str, frozenset[str]] = {"rctp": frozenset({"sft.random_goals"})}
"""Keys a command's config class holds but the command never reads (inherited from a shared
section): refused like a key of another command."""

COMMANDS: dict[str, Command] = {
    "sft": Command(
        "rcgrpo.train.stage1.config:SFTConfig",
        "rcgrpo.train.stage1.config:PRESETS",
        "sft-synth-cpu",
    ),
    "rctp": Command(
        "rcgrpo.train.stage1.config:RCTPConfig",
        "rcgrpo.train.stage1.config:PRESETS",
        "rctp-synth-cpu",
    ),
    "train": Command(
        "rcgrpo.train.config:TrainConfig", "rcgrpo.train.presets:PRESETS", "cpu-rcgrpo"
    ),
    "trl": Command("rcgrpo.train.config:TRLConfig", "rcgrpo.train.presets:TRL_PRESETS", "trl-cpu"),
}
"""Subcommand of ``python -m rcgrpo`` -> how it loads its config."""


def _load(ref: str) -> Any:
    module, name = ref.split(":")
    return getattr(importlib.import_module(module), name)


def config_class(command: str) -> type:
    """The config dataclass of ``command``."""
    return _load(COMMANDS[command].config)


def command_presets(command: str) -> dict[str, Any]:
    """Presets of ``command`` (name -> config; the Stage-1 dict holds both stages)."""
    cls = config_class(command)
    return {n: c for n, c in _load(COMMANDS[command].presets).items() if type(c) is cls}


def config_keys(cls: type) -> set[str]:
    """Dotted names of the leaf fields of the config dataclass ``cls``."""
    out: set[str] = set()
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else None
        if dataclasses.is_dataclass(default):
            out |= {f"{f.name}.{k}" for k in config_keys(type(default))}
        else:
            out.add(f.name)
    return out


def command_keys(command: str) -> set[str]:
    """Dotted keys ``command`` reads: its config's leaf fields less :data:`UNREAD`."""
    return config_keys(config_class(command)) - UNREAD.get(command, frozenset())


def flag_spelling(key: str) -> str:
    """The command-line spelling of a dotted key: ``algo.kl_beta`` -> ``--algo.kl-beta``."""
    return "--" + key.replace("_", "-")


def _not_applicable(command: str, key: str, spell: Callable[[str], str]) -> str:
    """One line: why ``key`` is not a key of ``command`` (a suggestion spelled by ``spell``)."""
    users = [c for c in COMMANDS if c != command and key in command_keys(c)]
    if users:
        return f"{key} does not apply to {command} (it is read by {', '.join(users)} only)"
    close = difflib.get_close_matches(key, sorted(command_keys(command)), n=1)
    hint = f" (did you mean {spell(close[0])}?)" if close else ""
    return f"unknown key {key}{hint}; see --help"


def check_keys(command: str, keys: Iterable[str], where: str) -> None:
    """Every dotted key given in ``where`` (the message prefix: ``"flag "`` or
    ``"--config FILE: "``) is read by ``command`` (:data:`UNREAD` keys are refused as flags);
    a suggestion is spelled as a flag for a flag, as a dotted JSON key for a file."""
    flags = where == "flag "
    # a config file may hold an unread key (a run's own config.json does); a value that
    # would change it is refused by validate_config
    known = command_keys(command) if flags else config_keys(config_class(command))
    spell = flag_spelling if flags else str
    for key in keys:
        if key not in known:
            raise ConfigError(f"{where}{_not_applicable(command, key, spell)}")


def flag_keys(flags: Iterable[str], known: set[str]) -> list[str]:
    """Dotted keys named by the ``--a.b-c`` / ``--a.b=v`` / ``--a.no-b`` tokens of ``flags``."""
    out = []
    for token in flags:
        if not token.startswith("--") or token == "--":
            continue
        key = token[2:].split("=", 1)[0].replace("-", "_")
        head, _, last = key.rpartition(".")
        negated = f"{head}.{last[3:]}" if head else last[3:]
        out.append(negated if key not in known and last.startswith("no_") else key)
    return out


def json_keys(data: Any, prefix: str = "") -> list[str]:
    """Dotted leaf keys of a nested JSON object."""
    if not isinstance(data, dict):
        return [prefix[:-1]] if prefix else []
    keys = []
    for key, value in data.items():
        keys += json_keys(value, f"{prefix}{key}.") if isinstance(value, dict) else [prefix + key]
    return keys


class _OptionParser(argparse.ArgumentParser):
    """argparse whose errors are one-line :class:`ConfigError` instead of an exit."""

    def error(self, message: str):
        raise ConfigError(message)


def _split(argv: list[str], default: str) -> tuple[str, str | None, list[str]]:
    """(preset name, config file, remaining flags) of ``argv``: ``--preset`` and ``--config``
    are read by argparse (``--preset NAME`` and ``--preset=NAME`` alike, no abbreviations),
    every other token is left, in order, for tyro."""
    parser = _OptionParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--preset", default=default)
    parser.add_argument("--config", default=None)
    known, rest = parser.parse_known_args(argv)
    return known.preset, known.config, rest


def _preset(command: str, name: str) -> Any:
    import copy

    presets = command_presets(command)
    if name in presets:
        return copy.deepcopy(presets[name])
    owner = [c for c in COMMANDS if c != command and name in command_presets(c)]
    if owner:
        raise ConfigError(f"preset {name!r} is a preset of {owner[0]}, not {command}")
    close = difflib.get_close_matches(name, sorted(presets), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise ConfigError(
        f"config: no preset {name!r} of {command}{hint}; --help lists its {len(presets)} presets"
    )


def _with_file(command: str, base: Any, path: str) -> Any:
    from rcgrpo.train.config import from_dict, upgrade_config

    try:
        with open(path) as fh:
            data = upgrade_config(json.load(fh))
    except (OSError, ValueError) as err:
        raise ConfigError(f"--config {path}: {err}") from None
    check_keys(command, json_keys(data), f"--config {path}: ")
    try:
        return from_dict(type(base), data, base=base)
    except ValueError as err:
        raise ConfigError(f"--config {path}: {err}") from None


def _tyro_error(text: str) -> str:
    """The one informative line of a tyro error box."""
    lines = [ln.strip(" │╭╮╰╯─-") for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    return lines[1] if len(lines) > 1 else (lines[0] if lines else "invalid flags")


def _flags(cls: type, base: Any, rest: list[str], prog: str) -> Any:
    """``base`` updated by the flags ``rest`` (tyro); a bad value is one-line ConfigError."""
    import tyro

    if "-h" in rest or "--help" in rest:
        return tyro.cli(cls, args=rest, default=base, prog=prog)  # prints help, exits 0
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            cfg = tyro.cli(cls, args=rest, default=base, prog=prog)
    except SystemExit as stop:
        if stop.code in (0, None):
            raise
        raise ConfigError(_tyro_error(captured.getvalue())) from None
    sys.stderr.write(captured.getvalue())
    return cfg


def parse_cli(command: str, argv: list[str]) -> Any:
    """The validated config of ``python -m rcgrpo <command> <argv>`` (module docstring)."""
    from rcgrpo.train.validate import validate_config

    if command not in COMMANDS:
        raise ValueError(f"command must be one of {sorted(COMMANDS)}, got {command!r}")
    cls, prog = config_class(command), f"python -m rcgrpo {command}"
    name, config_file, rest = _split(argv, COMMANDS[command].default)
    if "-h" in rest or "--help" in rest:
        print(
            f"--preset NAME   one of {sorted(command_presets(command))} (default {name})\n"
            "--config FILE   JSON overrides (strict keys)\n"
        )
    else:
        check_keys(command, flag_keys(rest, config_keys(cls)), "flag ")
    cfg = _preset(command, name)
    if config_file:
        cfg = _with_file(command, cfg, config_file)
    cfg = _flags(cls, cfg, rest, prog)
    if hasattr(cfg, "preset"):
        cfg.preset = name
    try:
        cfg.run.name = cfg.run.name.format(preset=name, seed=cfg.run.seed)
    except (KeyError, IndexError, ValueError):
        raise ConfigError(
            f"config: run.name may hold only {{preset}} and {{seed}}, got {cfg.run.name!r}"
        ) from None
    return validate_config(cfg)


def run_command(command: str, body: Callable[[], int | None]) -> int:
    """``body()``'s exit code; a :class:`ConfigError` or
    :class:`~rcgrpo.train.errors.NonFiniteError` prints ``rcgrpo <command>: <message>`` (one
    line) and returns its code (2 or 3)."""
    try:
        return int(body() or 0)
    except tuple(EXIT_CODES) as err:
        print(f"rcgrpo {command}: {err}", file=sys.stderr)
        return next(code for cls, code in EXIT_CODES.items() if isinstance(err, cls))
