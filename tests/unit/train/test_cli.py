"""The one command line of sft / rctp / train: keys that do not apply, one-line errors,
the same exit codes, and Stage-1 validation by the shared validator."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from rcgrpo.train import validate as v
from rcgrpo.train.cli import (
    COMMANDS,
    command_keys,
    command_presets,
    config_class,
    config_keys,
    flag_keys,
    parse_cli,
    run_command,
)
from rcgrpo.train.config import TrainConfig, to_dict
from rcgrpo.train.errors import ConfigError, NonFiniteError
from rcgrpo.train.stage1.config import (
    FailureConfig,
    GoalConfig,
    RCTPConfig,
    SFTConfig,
    preset,
    with_overrides,
)
from rcgrpo.train.validate import validate_config

KEYS = {c: command_keys(c) for c in COMMANDS}
FOREIGN = sorted(
    (command, key)
    for command in COMMANDS
    for key in set().union(*KEYS.values()) - KEYS[command]
    if key != "preset"  # --preset is the preset option of every command
)


def test_each_stage_holds_only_its_own_fields():
    # the keys that were accepted and ignored before the split
    assert {"model.path", "model.tokenizer"}.isdisjoint(KEYS["train"])
    rl_only = {"optim.inner_epochs", "optim.minibatches", "optim.micro_batch", "tasks.mode"}
    assert rl_only <= KEYS["train"] and rl_only.isdisjoint(KEYS["sft"] | KEYS["rctp"])
    assert "model.tokenizer" not in KEYS["sft"] and "model.path" in KEYS["sft"]
    failures = {k for k in KEYS["rctp"] if k.startswith("failures.")}
    assert failures == {f"failures.{f.name}" for f in fields(FailureConfig)}
    goals = {k for k in KEYS["rctp"] if k.startswith("goals.")}
    assert goals == {f"goals.{f.name}" for f in fields(GoalConfig)}
    assert (failures | goals).isdisjoint(KEYS["sft"] | KEYS["train"])
    assert KEYS["sft"] - {"sft.random_goals"} == KEYS["rctp"] - failures - goals
    assert len(FOREIGN) > 100  # every one is checked below


@pytest.mark.parametrize(("command", "key"), FOREIGN)
def test_a_key_of_another_command_is_a_one_line_error_naming_it(command, key):
    users = [c for c in COMMANDS if c != command and key in KEYS[c]]
    flag = "--" + key.replace("_", "-")
    with pytest.raises(ConfigError) as err:
        parse_cli(command, [flag, "1"])
    want = f"flag {key} does not apply to {command} (it is read by {', '.join(users)} only)"
    assert str(err.value) == want


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        ("train", ["--model.path", "X"], "model.path does not apply to train"),
        ("sft", ["--optim.inner-epochs", "2"], "optim.inner_epochs does not apply to sft"),
        ("sft", ["--optim.minibatches", "2"], "optim.minibatches does not apply to sft"),
        ("rctp", ["--optim.micro_batch", "4"], "optim.micro_batch does not apply to rctp"),
        ("sft", ["--failures.policy=x"], "failures.policy does not apply to sft"),
        ("sft", ["--tasks.mode", "combined"], "tasks.mode does not apply to sft"),
        ("sft", ["--init", "x"], "init does not apply to sft"),
        ("train", ["--sft.amp", "bf16"], "sft.amp does not apply to train"),
        ("train", ["--optim.lrr", "1"], "unknown option --optim.lrr (did you mean --optim.lr?)"),
        ("sft", ["--model.tokenizer", "x"], "unknown option --model.tokenizer"),
        ("train", ["--optim.lr", "abc"], "Error parsing --optim.lr: could not convert"),
        ("train", ["--run.resume", "yes"], "Unrecognized options: yes"),
        ("train", ["--preset"], "argument --preset: expected one argument"),
        ("train", ["--preset", "--run.steps", "1"], "argument --preset: expected one argument"),
        ("train", ["--config"], "argument --config: expected one argument"),
        (
            "train",
            ["--algo.kl-bta", "1"],
            "--algo.kl-bta (did you mean --algo.kl-beta?); see --help",
        ),
        ("rctp", ["--sft.random-goals", "0.5"], "sft.random_goals does not apply to rctp"),
        ("rctp", ["--sft.random_goals=0.5"], "sft.random_goals does not apply to rctp"),
        ("sft", ["--preset", "cpu-grpo"], "preset 'cpu-grpo' is a preset of train, not sft"),
        ("rctp", ["--preset", "nope"], "config: no preset 'nope' of rctp; --help lists its"),
        (
            "sft",
            ["--preset=sft-synth-cpv"],
            "preset 'sft-synth-cpv' of sft (did you mean sft-synth-cpu?)",
        ),
        ("train", ["--run.steps", "0"], "config: run.steps must be >= 1, got 0"),
        ("sft", ["--run.steps", "-1"], "config: run.steps must be >= 0 (0 = sft.epochs)"),
        ("train", ["--run.name", "{x}"], "run.name may hold only {preset} and {seed}"),
    ],
)
def test_bad_command_lines_are_one_line_config_errors(command, argv, message):
    with pytest.raises(ConfigError) as err:
        parse_cli(command, argv)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_misspelled_preset_is_one_line_with_the_closest_name_not_the_list():
    # issue 60: it listed the 37 presets of train on one line, with no suggestion
    with pytest.raises(ConfigError) as err:
        parse_cli("train", ["--preset", "cpu-grpp"])
    n = len(command_presets("train"))
    assert str(err.value) == (
        f"config: no preset 'cpu-grpp' of train (did you mean cpu-grpo?); --help lists its "
        f"{n} presets"
    )


def test_negated_bool_flags_and_equals_values_name_their_key():
    known = KEYS["train"]
    assert flag_keys(["--run.no-progress", "--algo.kl-beta=0.1", "x", "--init", "-1"], known) == [
        "run.progress",
        "algo.kl_beta",
        "init",
    ]
    cfg = parse_cli("train", ["--run.no-progress", "--algo.kl-beta=0.05"])
    assert cfg.run.progress is False and cfg.algo.kl_beta == 0.05


@pytest.mark.parametrize(
    ("command", "preset"),
    [("train", "cpu-grpo"), ("sft", "sft-synth-regime"), ("rctp", "rctp-bfcl-tiny")],
)
def test_preset_and_config_with_equals_equal_their_spaced_forms(command, preset, tmp_path):
    # issue 49: --preset=NAME was ignored (the default preset trained) and --config=FILE was
    # "flag unknown key config"
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"optim": {"lr": 0.0123}}))
    spaced = parse_cli(command, ["--preset", preset, "--config", str(path), "--run.steps", "3"])
    joined = parse_cli(command, [f"--preset={preset}", f"--config={path}", "--run.steps=3"])
    assert to_dict(joined) == to_dict(spaced)
    assert joined.optim.lr == 0.0123 and joined.run.steps == 3
    assert joined.run.name == spaced.run.name != parse_cli(command, []).run.name
    if command == "train":
        assert joined.preset == "cpu-grpo"


def test_a_flag_the_stage_never_reads_is_refused_also_from_a_file(tmp_path):
    # sft.random_goals is a field of RCTPConfig's sft section, but only SFT reads it
    assert "sft.random_goals" in config_keys(RCTPConfig)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"sft": {"random_goals": 0.5}}))
    with pytest.raises(ConfigError, match=r"^config: sft\.random_goals must be 0 for rctp"):
        parse_cli("rctp", ["--config", str(path)])
    assert parse_cli("sft", ["--config", str(path)]).sft.random_goals == 0.5
    cfg = preset("rctp-synth-cpu")
    cfg.sft.random_goals = 0.5
    with pytest.raises(ConfigError, match=r"sft\.random_goals must be 0 for rctp"):
        validate_config(cfg)


def test_config_file_keys_are_checked_for_the_command(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"model": {"path": "x"}, "algo": {"kl_beta": 0.2}}))
    with pytest.raises(ConfigError, match=r"c\.json: model\.path does not apply to train"):
        parse_cli("train", ["--config", str(path)])
    path.write_text(json.dumps({"failures": {"temperature": 0.5}}))
    with pytest.raises(ConfigError, match=r"failures\.temperature does not apply to sft"):
        parse_cli("sft", ["--config", str(path)])
    assert parse_cli("rctp", ["--config", str(path)]).failures.temperature == 0.5
    path.write_text("{not json")
    with pytest.raises(ConfigError, match=r"^--config .*c\.json: Expecting property name"):
        parse_cli("sft", ["--config", str(path)])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_preset_round_trips_through_its_command_as_a_config_file(command, tmp_path):
    # the resolved config a run writes is a valid --config of its command: same config back
    for name, cfg in command_presets(command).items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(to_dict(cfg)))
        again = parse_cli(command, ["--preset", name, "--config", str(path)])
        assert to_dict(again) == to_dict(validate_config(cfg)) | {"run": to_dict(again)["run"]}
        assert type(again) is type(cfg) is config_class(command)


def test_run_command_maps_the_two_errors_to_exit_codes(capsys):
    def raises(err):
        def body():
            raise err

        return body

    assert run_command("sft", lambda: None) == 0 and run_command("sft", lambda: 5) == 5
    assert run_command("sft", raises(ConfigError("config: sft.amp must be ..."))) == 2
    assert capsys.readouterr().err == "rcgrpo sft: config: sft.amp must be ...\n"
    assert run_command("train", raises(NonFiniteError("stopping at step 3"))) == 3
    assert capsys.readouterr().err == "rcgrpo train: stopping at step 3\n"
    with pytest.raises(KeyError):  # anything else is a bug: its traceback is kept
        run_command("train", raises(KeyError("x")))


@pytest.mark.parametrize(
    ("cls", "section", "key", "value", "match"),
    [
        (SFTConfig, "sft", "amp", "fp16", r"^config: sft\.amp must be one of \['auto', 'bf16'"),
        (SFTConfig, "sft", "schedule", "step", r"sft\.schedule must be one of \['constant'"),
        (SFTConfig, "sft", "modes", ("both",), r"sft\.modes must be a non-empty subset of"),
        (SFTConfig, "sft", "eval_modes", (), r"sft\.eval_modes must be a non-empty subset"),
        (SFTConfig, "sft", "batch_size", 0, r"sft\.batch_size must be >= 1, got 0"),
        (SFTConfig, "sft", "epochs", "2", r"sft\.epochs must be of type float, got '2'"),
        (SFTConfig, "sft", "epochs", 0.0, r"sft\.epochs must be > 0 \(or run\.steps > 0\)"),
        (SFTConfig, "sft", "synth_preset", "huge", r"sft\.synth_preset must be one of"),
        (SFTConfig, "model", "dtype", "float8", r"model\.dtype must be one of"),
        (SFTConfig, "tasks", "prompt_style", "long", r"tasks\.prompt_style must be one of"),
        (SFTConfig, "run", "resume", 1, r"run\.resume must be of type bool"),
        (RCTPConfig, "failures", "top_p", 0.0, r"failures\.top_p must be in \(0, 1\]"),
        (RCTPConfig, "failures", "max_rounds", 0, r"failures\.max_rounds must be >= 1"),
    ],
)
def test_stage1_invalid_values_give_one_line_naming_the_key(cls, section, key, value, match):
    cfg = preset("rctp-synth-cpu" if cls is RCTPConfig else "sft-synth-cpu")
    setattr(getattr(cfg, section), key, value)
    with pytest.raises(ConfigError, match=match) as err:
        validate_config(cfg)
    assert "\n" not in str(err.value)


def test_stage_field_must_match_the_config_class():
    with pytest.raises(ConfigError, match=r"^config: stage must be 'rctp' for RCTPConfig"):
        validate_config(with_overrides(preset("rctp-synth-cpu"), stage="sft"))


def test_every_validation_rule_names_a_field_of_the_config_it_checks():
    # a typo in a rule table would otherwise make it dead (or crash at start-up)
    configs = {"rl": TrainConfig(), "stage1": RCTPConfig()}
    for stage, cfg in configs.items():
        for key in v._registries(stage):
            v._get(cfg, key)
    for rules, cfg in [
        (v._SHARED, TrainConfig()),
        (v._SHARED, SFTConfig()),
        (v._RL, TrainConfig()),
        (v._STAGE1, SFTConfig()),
        (v._RCTP, RCTPConfig()),
    ]:
        for key, ok, _ in rules:
            assert isinstance(ok(v._get(cfg, key)), bool), key


def test_a_stage1_non_finite_stop_exits_3_with_one_line(tmp_path, monkeypatch, capsys):
    # every update non-finite (skipped): run.max_nonfinite = 2 stops at the 2nd update
    from rcgrpo.train.stage1 import sft

    def nonfinite_step(*args, **kwargs):
        nan = float("nan")
        stats = {"ce_sum": nan, "n": 1, "correct": 0, "prompt_loss": 0.0, "grad_norm": nan}
        return stats | {"finite": False, "tokens": 1}

    monkeypatch.setattr(sft, "train_step", nonfinite_step)
    argv = [
        *("--model.path", "micro", "--tasks.num-train", "10", "--tasks.num-eval", "2"),
        *("--sft.batch-size", "4", "--sft.vocab-size", "300", "--sft.threads", "1"),
        *("--sft.amp", "fp32", "--run.steps", "4", "--run.max-nonfinite", "2"),
        *("--run.no-progress", "--run.no-tensorboard", "--run.root", str(tmp_path)),
    ]
    assert sft.main(argv) == 3
    out, err = capsys.readouterr()
    assert err == (
        "rcgrpo sft: stopping at step 2: 2 consecutive steps with a non-finite loss or "
        "gradient (run.max_nonfinite = 2; updates were skipped)\n"
    )
    assert "rcgrpo sft: precision fp32 (fp32: set explicitly)" in out
    assert not (tmp_path / "sft-synth" / "final").exists()


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["rctp", "--model.path", "micro", "--failures.policy", "runs/nope"],
            "rcgrpo rctp: failures.policy: no model folder at 'runs/nope' (a local path, not "
            "looked up)",
        ),
        (
            ["sft", "--model.path", "results/nope/final"],
            "rcgrpo sft: model.path: no model folder at 'results/nope/final' (a local path, not "
            "looked up)",
        ),
        (
            ["train", "--init", "runs/nope"],
            "rcgrpo train: config: init has no checkpoint folder at 'runs/nope' (Stage 1 makes "
            "it: python -m rcgrpo sft … or python -m rcgrpo rctp … (each writes "
            "<run.root>/<run.name>/final); or pass --init PATH)",
        ),
    ],
)
def test_a_missing_local_model_path_is_one_line_and_creates_nothing(
    argv, line, tmp_path, monkeypatch, capsys
):
    # issue 49: runs/nope was taken for a Hub id (~50 s of network retries, a 93-line
    # traceback) and rctp left a half-made run folder
    import transformers

    from rcgrpo.__main__ import main

    def no_lookup(*args, **kwargs):
        raise AssertionError("a missing local path must not reach from_pretrained")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", no_lookup)
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--run.root", "out"]) == 2
    assert capsys.readouterr().err == line + "\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("init", "commands"),
    [
        # the README's own-task command before its Stage 1: the folder names the stage and root
        (
            "runs/my/rctp/final",
            "python -m rcgrpo sft … --run.root runs/my, then python -m rcgrpo rctp … "
            "--run.root runs/my, as docs/own-task.md shows",
        ),
        (
            "runs/my/sft/final",
            "python -m rcgrpo sft … --run.root runs/my, as docs/own-task.md shows",
        ),
        # quick-rcgrpo's own init: quick-rctp writes it, from what quick-sft writes
        (
            "runs/quick/rctp/final",
            "python -m rcgrpo sft --preset quick-sft, then python -m rcgrpo rctp --preset quick-rctp",
        ),
    ],
)
def test_a_missing_init_names_the_stage_1_commands_that_make_it(
    init, commands, tmp_path, monkeypatch, capsys
):
    from rcgrpo.__main__ import main

    monkeypatch.chdir(tmp_path)
    assert main(["train", "--preset", "quick-rcgrpo", "--init", init, "--run.root", "out"]) == 2
    assert capsys.readouterr().err == (
        f"rcgrpo train: config: init has no checkpoint folder at {init!r} (Stage 1 makes it: "
        f"{commands}; or pass --init PATH)\n"
    )
    assert list(tmp_path.iterdir()) == []
