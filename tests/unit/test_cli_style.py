"""One ``--help`` style and one error style across every ``python -m rcgrpo`` subcommand
(issue 60; :mod:`rcgrpo.cli_options`): help exits 0 with ``usage:`` first and every option's
default, the preset-taking commands list their presets one per line with a description; a
bad command line is one line ``rcgrpo <command>: ...`` on stderr, exit 2."""

from __future__ import annotations

import pytest

from rcgrpo.__main__ import SUBCOMMANDS
from rcgrpo.__main__ import main as rcgrpo_main
from rcgrpo.cli_options import show_default, tyro_error
from rcgrpo.train.cli import COMMANDS, command_presets
from rcgrpo.train.cli_help import preset_descriptions


def _help(command: str, capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        rcgrpo_main([command, *argv, "--help"])
    out = capsys.readouterr().out
    assert stop.value.code in (0, None), out
    return out


def option_entries(text: str) -> list[str]:
    """Each option's entry of an argparse help text (from ``options:`` on; its lines joined,
    whitespace collapsed): an entry starts ``  -``, goes on in lines indented deeper."""
    entries: list[str] = []
    for line in text.split("\noptions:\n", 1)[1].splitlines():
        if line.startswith("  -"):
            entries.append(line)
        elif entries and line.startswith("      ") and line.strip():
            entries[-1] += " " + line
        elif line.strip():
            entries.append("")  # a section header or description ends the entry before it
    return [" ".join(e.split()) for e in entries if e]


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_help_starts_with_usage_and_shows_every_default(command, capsys):
    text = _help(command, capsys)
    assert text.startswith(f"usage: python -m rcgrpo {command}")
    entries = option_entries(text)
    assert entries[0].startswith("-h, --help")
    for entry in entries[1:]:
        assert "(default:" in entry or "(required)" in entry, entry
    assert "╭" not in text and "│" not in text  # no box


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_presets_are_listed_one_per_line_with_their_description(command, capsys):
    presets = list(command_presets(command))
    text = _help(command, capsys, "--preset", presets[-1])
    block = text.split("presets (--preset NAME", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    described = preset_descriptions()
    assert [line.split()[0] for line in block] == presets
    for name, line in zip(presets, block, strict=True):
        assert line.split(None, 1)[1] == described[name]
    # the defaults are those of the preset asked for
    assert f"the defaults below are those of {presets[-1]}" in text
    assert f"--preset NAME a preset above (default: {presets[-1]})" in option_entries(text)


def test_every_preset_of_every_command_has_a_one_line_description():
    described = preset_descriptions()
    for command in COMMANDS:
        for name in command_presets(command):
            assert described.get(name) and "\n" not in described[name], name


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["version", "--bogus"], "rcgrpo version: unknown option --bogus; see --help"),
        (
            ["metrics", "--mardown"],
            "rcgrpo metrics: unknown option --mardown (did you mean --markdown?); see --help",
        ),
        (
            ["docs", "--chek"],
            "rcgrpo docs: unknown option --chek (did you mean --check?); see --help",
        ),
        (["diagnose"], "rcgrpo diagnose: the following arguments are required: path; see --help"),
        (
            ["diagnose", "x", "--pge", "md"],
            "rcgrpo diagnose: unknown option --pge (did you mean --page?); see --help",
        ),
        (
            ["diagnose", "x", "--page", "pdf"],
            "rcgrpo diagnose: argument --page: invalid choice: 'pdf' (choose from 'html', "
            "'md'); see --help",
        ),
        (["eval", "--n", "2"], "rcgrpo eval: unknown option --n; see --help"),
        (["eval", "--limit", "2"], "rcgrpo eval: --model is required; see --help"),
        (
            ["eval", "--model", "m", "--seeed", "2"],
            "rcgrpo eval: unknown option --seeed (did you mean --seed?); see --help",
        ),
        (
            ["eval", "--model", "m", "--limit", "two"],
            "rcgrpo eval: Error parsing --limit: no type matching {None}|INT could be "
            "instantiated from ['two'].",
        ),
        (["sft", "--bogus", "1"], "rcgrpo sft: unknown option --bogus; see --help"),
        (
            ["rctp", "--run.stepz", "1"],
            "rcgrpo rctp: unknown option --run.stepz (did you mean --run.steps?); see --help",
        ),
        (["train", "--bogus", "2"], "rcgrpo train: unknown option --bogus; see --help"),
        (
            ["trl", "--run.steps", "x"],
            "rcgrpo trl: Error parsing --run.steps: invalid literal for int() with base 10: 'x'",
        ),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(argv, line, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rcgrpo_main(argv) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", line + "\n")
    assert list(tmp_path.iterdir()) == []


def test_a_tyro_box_becomes_its_first_paragraph():
    box = (
        "╭─ Value error ──────────────────────────╮\n"
        "│ Error parsing --limit: no type         │\n"
        "│ matching INT from ['x'].               │\n"
        "│                                        │\n"
        "│ Got errors:                            │\n"
        "│ ────────────────────────────────────── │\n"
        "╰────────────────────────────────────────╯\n"
    )
    assert tyro_error(box) == "Error parsing --limit: no type matching INT from ['x']."


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "none"),
        (True, "on"),
        (False, "off"),
        ((1, 2), "1 2"),
        ((), "empty"),
        ("", "''"),
        (0.5, "0.5"),
    ],
)
def test_defaults_are_shown_in_words(value, shown):
    assert show_default(value) == shown
