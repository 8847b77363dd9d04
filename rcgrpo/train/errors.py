"""The stops a training command turns into an exit code (:func:`rcgrpo.train.cli.run_command`).

Both stages raise the same classes, so ``python -m rcgrpo sft | rctp | train`` exit alike:
one line on stderr, no traceback.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A config value the trainer cannot run with (the message names the key): exit 2."""


class NonFiniteError(RuntimeError):
    """Too many consecutive steps with a non-finite loss or gradient: exit 3."""


class RunFinished(Exception):  # noqa: N818 - a stop, not a failure
    """``--run.resume`` of a run that already finished: nothing to do, no file touched: exit 0."""


EXIT_CODES: dict[type[Exception], int] = {ConfigError: 2, NonFiniteError: 3, RunFinished: 0}
"""Error class -> process exit code."""
