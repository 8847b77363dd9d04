"""RL presets, start-up validation (one line naming the key) and the CLI parser."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from analysis.campaigns.pool.presets import RCTP_INIT, SFT_INIT
from rcgrpo.train.cli import command_presets, parse_cli
from rcgrpo.train.config import TrainConfig, from_dict, to_dict, upgrade_config
from rcgrpo.train.presets import preset
from rcgrpo.train.rl.loop import main
from rcgrpo.train.validate import ConfigError, validate_config, validate_world


def _flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
    return out


def _diff(a: str, b: str) -> dict:
    x, y = _flat(to_dict(preset(a))), _flat(to_dict(preset(b)))
    return {k: y[k] for k in x if x[k] != y[k] and k != "preset"}


def test_every_preset_is_valid_and_names_itself():
    for name, cfg in command_presets("train").items():  # own and the campaigns'
        assert cfg.preset == name
        assert validate_config(cfg) is cfg


def test_a_nan_setting_is_refused():
    with pytest.raises(ConfigError, match=r"^config: rollout.temperature is NaN"):
        parse_cli("train", ["--preset", "regime-rctp-grpo", "--rollout.temperature", "nan"])


def test_cpu_presets_differ_from_grpo_by_their_documented_change_only():
    rc = {"algo.conditioning": "iid", "algo.eval_condition": "high", "algo.eval_low": True}
    assert _diff("cpu-grpo", "cpu-rcgrpo") == {"init": RCTP_INIT, **rc}
    assert _diff("cpu-grpo", "cpu-sft-rc") == rc
    assert _diff("cpu-rcgrpo", "cpu-rcgrpo-strat") == {"algo.conditioning": "stratified"}
    assert _diff("cpu-grpo", "cpu-rctp-grpo") == {
        "init": RCTP_INIT,
        "algo.conditioning": "high",
        "algo.eval_condition": "high",
    }
    assert _diff("cpu-grpo", "cpu-dapo") == {"algo.group_filter": "dapo"}
    assert _diff("cpu-grpo", "cpu-entropy") == {"algo.entropy_coef": 0.01}
    assert _diff("cpu-grpo", "cpu-hightemp") == {"rollout.temperature": 1.5}
    assert _diff("cpu-grpo", "cpu-drgrpo") == {
        "algo.adv_estimator": "dr-grpo",
        "algo.loss_agg": "seq-mean-token-sum-norm",
    }
    assert preset("cpu-grpo").init == SFT_INIT


def test_paper_preset_carries_the_paper_values():
    cfg = preset("paper-qwen7b")
    assert (cfg.rollout.group_size, cfg.algo.kl_beta, cfg.algo.clip_low, cfg.algo.clip_high) == (
        5,
        0.1,
        0.2,
        0.2,
    )
    assert (cfg.optim.lr, cfg.rollout.prompts_per_step, cfg.run.steps) == (1e-6, 256, 400)
    assert (cfg.algo.conditioning, cfg.algo.p_high, cfg.algo.adv_ddof) == ("iid", 0.5, 0)
    assert preset("paper-qwen7b-grpo").rollout.prompts_per_step == 64


@pytest.mark.parametrize(
    ("section", "key", "value", "match"),
    [
        ("algo", "conditioning", "idd", r"^config: algo\.conditioning must be one of \["),
        ("algo", "loss_agg", "mean", r"algo\.loss_agg must be one of"),
        ("algo", "group_filter", "top-k", r"algo\.group_filter must be one of \['dapo', 'none'\]"),
        ("rollout", "group_size", 1, r"rollout\.group_size must be >= 2"),
        ("rollout", "temperature", 0.0, r"rollout\.temperature must be > 0"),
        ("rollout", "prompts_per_step", "8", r"rollout\.prompts_per_step must be of type int"),
        ("algo", "p_high", 1.5, r"algo\.p_high must be in \[0, 1\]"),
        ("run", "steps", 2.5, r"run\.steps must be of type int"),
        ("run", "resume", 1, r"run\.resume must be of type bool"),
        ("rollout", "seed_block", 3, r"rollout\.seed_block must divide"),
        ("run", "name", "a/b", r"run\.name must be a non-empty folder name"),
        ("tasks", "num_eval_between", -1, r"tasks\.num_eval_between must be >= 0"),
        (
            "tasks",
            "num_eval_between",
            201,
            r"tasks\.num_eval_between must be <= tasks\.num_eval = 200",
        ),
    ],
)
def test_invalid_values_give_one_line_naming_the_key(section, key, value, match):
    cfg = preset("cpu-rcgrpo")
    setattr(getattr(cfg, section), key, value)
    with pytest.raises(ConfigError, match=match) as err:
        validate_config(cfg)
    assert "\n" not in str(err.value)


def test_world_size_rules():
    cfg = preset("cpu-grpo")  # 8 prompts
    validate_world(cfg, 2)
    with pytest.raises(ConfigError, match="divisible by the world size 3"):
        validate_world(cfg, 3)
    cfg.rollout.seed_block = 4
    with pytest.raises(ConfigError, match="per-rank prompts 2"):
        validate_world(cfg, 4)


def test_unknown_key_in_json_names_its_path():
    with pytest.raises(ValueError, match=r"unknown config key 'algo\.klbeta'.*algo\.kl_beta"):
        from_dict(TrainConfig, {"algo": {"klbeta": 0.1}})


def test_parse_cli_layers_preset_config_file_and_flags(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"algo": {"kl_beta": 0.05}, "rollout": {"group_size": 4}}))
    cfg = parse_cli(
        "train",
        [
            "--preset",
            "cpu-grpo",
            "--config",
            str(path),
            "--rollout.group-size",
            "3",
            "--run.seed",
            "2",
            "--init",
            "x/y",
        ],
    )
    assert (cfg.preset, cfg.init, cfg.algo.kl_beta, cfg.rollout.group_size) == (
        "cpu-grpo",
        "x/y",
        0.05,
        3,
    )
    assert cfg.run.name == "cpu-grpo-s2" and cfg.run.seed == 2
    assert dataclasses.asdict(parse_cli("train", []))["preset"] == "quick-rcgrpo"


def test_cli_config_errors_exit_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"algo": {"conditoning": "iid"}}))
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"rcgrpo train: --config {bad}: unknown key algo.conditoning")
    assert "did you mean algo.conditioning?" in err
    assert "\n" not in err
    assert main(["--algo.conditioning", "idd", "--run.root", str(tmp_path)]) == 2
    assert "algo.conditioning must be one of" in capsys.readouterr().err
    assert not (tmp_path / "cpu-rcgrpo-s0").exists()  # nothing is written before validation
    assert (
        main(["--preset", "cpu-grpo", "--init", "runs/none/final", "--run.root", str(tmp_path)])
        == 2
    )
    assert "init has no checkpoint folder at 'runs/none/final'" in capsys.readouterr().err
    assert not (tmp_path / "cpu-grpo-s0").exists()


COMMITTED = Path(__file__).parents[3] / "results" / "campaign"


@pytest.mark.parametrize(
    ("run", "estimator"), [("cpu-grpo-s0", "grpo"), ("cpu-drgrpo-s0", "dr-grpo")]
)
def test_a_committed_config_written_with_adv_scale_loads_under_adv_estimator(run, estimator):
    # the committed runs record algo.adv_scale (group | none), the key before the registry
    stored = json.loads((COMMITTED / run / "config.json").read_text())
    assert "adv_scale" in stored["algo"] and "adv_estimator" not in stored["algo"]
    cfg = parse_cli("train", ["--config", str(COMMITTED / run / "config.json")])
    assert cfg.algo.adv_estimator == estimator


def test_upgrade_config_renames_adv_scale_and_leaves_the_input_alone():
    for scale, estimator in {"group": "grpo", "batch": "grpo-batch", "none": "dr-grpo"}.items():
        old = {"algo": {"adv_scale": scale, "kl_beta": 0.1}, "run": {"seed": 1}}
        new = upgrade_config(old)
        assert new == {"algo": {"adv_estimator": estimator, "kl_beta": 0.1}, "run": {"seed": 1}}
        assert old["algo"]["adv_scale"] == scale
    assert upgrade_config({"algo": {"adv_estimator": "rloo"}}) == {
        "algo": {"adv_estimator": "rloo"}
    }


def test_upgrade_config_labels_an_older_rctp_configs_goals_by_reward():
    old = {"stage": "rctp", "goals": {"spread": 0.6}}
    assert upgrade_config(old) == {"stage": "rctp", "goals": {"spread": 0.6, "labels": "reward"}}
    assert old == {"stage": "rctp", "goals": {"spread": 0.6}}
    shuffled = {"goals": {"spread": 0.0, "labels": "shuffled"}}
    assert upgrade_config(shuffled) == shuffled


@pytest.mark.parametrize(
    "arm, knob, key",
    [
        ("regime-rctp-grpo-temp", "temperature", "rollout.temperature"),
        ("regime-rctp-grpo-entcoef", "entropy_coef", "algo.entropy_coef"),
    ],
)
@pytest.mark.results
def test_a_matched_arm_runs_at_the_committed_calibration_choice(arm, knob, key):
    calib = Path(__file__).resolve().parents[3] / "results" / "regime" / f"calib-{knob}.json"
    choice = json.loads(calib.read_text())
    assert choice["status"] == "matched"
    assert _diff("regime-rctp-grpo", arm) == {key: choice["chosen"]}


def test_upgrade_config_gives_older_stage1_configs_no_matched_sft_and_no_pairs():
    old = {"stage": "rctp", "sft": {"epochs": 4.0}, "failures": {"skip_keep": 0.01}}
    assert upgrade_config(old) == {
        "stage": "rctp",
        "sft": {"epochs": 4.0, "successes_of": ""},
        "failures": {"skip_keep": 0.01, "pairs": 0, "pair_weight": 1.0, "pair_labels": "reward"},
    }
    with_pairs = {"stage": "rctp", "sft": {}, "failures": {"pairs": 50}}
    assert upgrade_config(with_pairs)["failures"] == {
        "pairs": 50,
        "pair_weight": 1.0,
        "pair_labels": "reward",
    }
    inverted = {"stage": "rctp", "failures": {"pairs": 450, "pair_labels": "inverted"}}
    assert upgrade_config(inverted)["failures"]["pair_labels"] == "inverted"
    assert old == {"stage": "rctp", "sft": {"epochs": 4.0}, "failures": {"skip_keep": 0.01}}
    rl = {"stage": "train", "sft": {"x": 1}}  # only Stage-1 configs have sft.successes_of
    assert upgrade_config(rl) == rl
