"""One command line for the training stages: ``python -m rcgrpo sft | rctp | train | trl``.

Every command loads its config the same way::

    --preset NAME     a named config of the command (default: its CPU preset); the method's
                      own, then those of installed plugins (:mod:`rcgrpo.train.plugins`)
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
import dataclasses
import difflib
import importlib
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
    """``module:NAME`` of the method's own preset dict (filtered to presets of the config
    class); plugins add theirs (:func:`command_presets`)."""
    default: str
    """Preset used when no ``--preset`` is given."""


UNREAD: dict[str, frozenset[str]] = {"rctp": frozenset({"sft.random_goals"})}
"""Keys a command's config class holds but the command never reads (inherited from a shared
section): refused like a key of another command."""

COMMANDS: dict[str, Command] = {
    "sft": Command(
        "rcgrpo.train.stage1.config:SFTConfig",
        "rcgrpo.train.stage1.config:PRESETS",
        "quick-sft",
    ),
    "rctp": Command(
        "rcgrpo.train.stage1.config:RCTPConfig",
        "rcgrpo.train.stage1.config:PRESETS",
        "quick-rctp",
    ),
    "train": Command(
        "rcgrpo.train.config:TrainConfig", "rcgrpo.train.presets:PRESETS", "quick-rcgrpo"
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


def own_presets(command: str) -> dict[str, Any]:
    """The method's own presets of ``command`` (name -> config; the Stage-1 dict holds both
    stages, so each command keeps those of its config class)."""
    cls = config_class(command)
    return {n: c for n, c in _load(COMMANDS[command].presets).items() if type(c) is cls}


def command_presets(command: str) -> dict[str, Any]:
    """Presets of ``command``: its own, then the plugins' of its config class
    (:mod:`rcgrpo.train.plugins`; loads them)."""
    from rcgrpo.train.plugins import plugin_presets

    cls = config_class(command)
    own = {name for c in COMMANDS for name in own_presets(c)}  # names are unique across commands
    plugins = {n: c for n, c in plugin_presets(cls, own).items() if type(c) is cls}
    return own_presets(command) | plugins


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


def check_keys(command: str, keys: Iterable[str], where: str) -> None:
    """Every dotted key given in ``where`` (the message prefix: ``"flag "`` or
    ``"--config FILE: "``) is read by ``command`` (:data:`UNREAD` keys are refused as flags).
    A key of another command names the commands that read it; an unknown flag is
    :func:`rcgrpo.cli_options.unknown_option`'s line (every command's words), an unknown
    file key suggests the closest dotted key."""
    from rcgrpo.cli_options import unknown_option

    flags = where == "flag "
    # a config file may hold an unread key (a run's own config.json does); a value that
    # would change it is refused by validate_config
    known = command_keys(command) if flags else config_keys(config_class(command))
    for key in keys:
        if key in known:
            continue
        users = [c for c in COMMANDS if c != command and key in command_keys(c)]
        if users:
            raise ConfigError(
                f"{where}{key} does not apply to {command} (it is read by {', '.join(users)} only)"
            )
        if flags:
            raise ConfigError(unknown_option(flag_spelling(key), map(flag_spelling, known)))
        close = difflib.get_close_matches(key, sorted(command_keys(command)), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{where}unknown key {key}{hint}; see --help")


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

    own = own_presets(command)
    if name in own:  # no plugin is loaded for an own preset
        return copy.deepcopy(own[name])
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


def _flags(cls: type, base: Any, rest: list[str], prog: str) -> Any:
    """``base`` updated by the flags ``rest`` (tyro); a bad value is one-line ConfigError."""
    from rcgrpo.cli_options import tyro_parse

    return tyro_parse(cls, rest, prog, default=base)


def _help(command: str, name: str, cfg: Any) -> str:
    """``--help`` of ``command`` from preset ``name`` (:mod:`rcgrpo.train.cli_help`)."""
    from rcgrpo.train.cli_help import command_help

    presets = command_presets(command)
    return command_help(command, name, cfg, presets, UNREAD.get(command, frozenset()))


def parse_cli(command: str, argv: list[str]) -> Any:
    """The validated config of ``python -m rcgrpo <command> <argv>`` (module docstring)."""
    from rcgrpo.train.validate import validate_config

    if command not in COMMANDS:
        raise ValueError(f"command must be one of {sorted(COMMANDS)}, got {command!r}")
    cls, prog = config_class(command), f"python -m rcgrpo {command}"
    name, config_file, rest = _split(argv, COMMANDS[command].default)
    helping = "-h" in rest or "--help" in rest
    if not helping:
        check_keys(command, flag_keys(rest, config_keys(cls)), "flag ")
    cfg = _preset(command, name)
    if config_file:
        cfg = _with_file(command, cfg, config_file)
    if helping:  # the options with the values of the preset (and file) given
        print(_help(command, name, cfg), end="")
        raise SystemExit(0)
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


def given_keys(command: str, argv: list[str]) -> set[str]:
    """Dotted keys ``argv`` sets itself (its flags and the keys of its ``--config`` file), as
    opposed to those its preset fills: e.g. a resume extends a run only to a ``run.steps``
    given (:mod:`rcgrpo.train.rl.resume`). Call after :func:`parse_cli` has checked ``argv``."""
    from rcgrpo.train.config import upgrade_config

    _, config_file, rest = _split(argv, COMMANDS[command].default)
    keys = set(flag_keys(rest, config_keys(config_class(command))))
    if config_file:
        with open(config_file) as fh:
            keys |= set(json_keys(upgrade_config(json.load(fh))))
    return keys


def run_command(command: str, body: Callable[[], int | None]) -> int:
    """``body()``'s exit code; a :class:`ConfigError` or
    :class:`~rcgrpo.train.errors.NonFiniteError` prints ``rcgrpo <command>: <message>`` (one
    line) and returns its code (2 or 3)."""
    try:
        return int(body() or 0)
    except tuple(EXIT_CODES) as err:
        print(f"rcgrpo {command}: {err}", file=sys.stderr)
        return next(code for cls, code in EXIT_CODES.items() if isinstance(err, cls))
