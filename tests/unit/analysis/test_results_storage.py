"""results/ stops growing: at most :data:`analysis.runs.storage.BUDGET_MIB` of committed files,
and model weights only where a later run, a diagnostic, a campaign design or a reader of
:data:`READERS` starts from them (:mod:`analysis.runs.storage`); the helpers on hand-made
trees."""

from __future__ import annotations

import json
import subprocess

import pytest

from analysis import REPO_ROOT
from analysis.campaign import registry
from analysis.campaign.mechanics import Checkpoint
from analysis.runs import storage as st

READERS = {
    "tests/smoke/test_transfer_cli.py": ("results/collapse/rctp-collapse-s3/final",),
    "benchmarks/bench_rl_step.py": ("results/campaign/rctp-s0/final",),
    "benchmarks/bench_jobs_threads.py": ("results/campaign/rctp-s0/final",),
}
"""The figures, notebooks, instruments and tests that load a committed checkpoint themselves
(no recorded command names it): file -> the checkpoint folders it loads. The figures and the
notebooks read run logs and reports only, none a checkpoint."""


def design_names(folders) -> dict[str, set[str]]:
    """Checkpoint folder -> the campaigns whose design starts from it: a run spec's
    ``Checkpoint(...)``, a sub-folder it keeps (``RunSpec.keep``) or a checkpoint path in its
    argv, over every campaign that trains (:func:`analysis.campaign.registry.campaigns`)."""
    named: dict[str, set[str]] = {}
    for campaign_id, entry in registry.campaigns().items():
        camp = entry.build()
        for run, spec in camp.runs.items():
            subs = [f"{st.RESULTS}/{spec.home}/{run}/{sub}" for sub in camp.checkpoints(run)]
            paths = [a for a in spec.argv if not isinstance(a, Checkpoint)]
            subs += [st.resolve(v, folders, spec.home) for v in st.flag_values(paths)]
            for folder in filter(None, subs):
                named.setdefault(folder, set()).add(campaign_id)
    return named


def test_results_stay_within_the_budget():
    sizes = st.index_sizes()
    total = sum(sizes.values()) / st.MIB
    weights = sum(n for p, n in sizes.items() if st.WEIGHTS.fullmatch(p.rsplit("/", 1)[-1]))
    assert total <= st.BUDGET_MIB, (
        f"results/ holds {total:.1f} MiB in git's index, over the budget of {st.BUDGET_MIB} "
        f"MiB ({weights / st.MIB:.1f} MiB of it model weights): docs/reproduce.md says how "
        "to make room"
    )


def test_every_committed_checkpoint_is_one_something_starts_from():
    sizes = st.index_sizes()
    folders = st.checkpoint_folders(sizes)
    named = set(st.recorded_names(list(sizes))) | set(design_names(folders))
    named |= {f for read in READERS.values() for f in read}
    unnamed = [f for f in folders if f not in named]
    assert unnamed == [], (
        f"{len(unnamed)} committed checkpoint(s) no run, diagnostic, campaign design or reader "
        f"starts from: {', '.join(unnamed)} (git rm -r them; make restore brings one back)"
    )


def test_the_readers_load_the_checkpoints_the_table_names():
    folders = st.checkpoint_folders(st.index_sizes())
    for reader, read in READERS.items():
        text = (REPO_ROOT / reader).read_text()
        for folder in read:
            assert folder in text and folder in folders, (reader, folder)


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_index_sizes_count_what_the_index_holds(tmp_path):
    files = {"results/a/x.json": b"12345", "results/b/final/model.safetensors": b"abc"}
    for path, data in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "results")
    (tmp_path / "results/untracked.bin").write_bytes(b"x" * 100)  # not added: not counted
    (tmp_path / "results/a/x.json").write_bytes(b"1")  # changed but not staged: 5 bytes
    (tmp_path / "other.txt").write_bytes(b"outside")
    assert st.index_sizes(tmp_path) == {
        "results/a/x.json": 5,
        "results/b/final/model.safetensors": 3,
    }
    _git(tmp_path, "rm", "-q", "-f", "--cached", "results/a/x.json")  # staged removal: gone
    assert st.index_sizes(tmp_path) == {"results/b/final/model.safetensors": 3}


def test_checkpoint_folders_are_those_holding_weights_or_an_adapter():
    paths = [
        "results/r/a/final/model.safetensors",
        "results/r/a/final/tokenizer.json",
        "results/r/b/final/adapter_model.safetensors",
        "results/r/c/final/model-00001-of-00002.safetensors",
        "results/r/d/mix/trajectories.jsonl.gz",
        "results/r/e/final/goal_rows.safetensors",
    ]
    assert st.checkpoint_folders(paths) == [
        "results/r/a/final",
        "results/r/b/final",
        "results/r/c/final",
    ]


def test_flag_values_read_both_spellings_and_nothing_else():
    argv = ["train", "--init", "a/final", "--model.path=b/final", "--run.seed", "3", "--init"]
    assert list(st.flag_values(argv)) == ["a/final", "b/final"]


@pytest.mark.parametrize(
    ("name", "home", "folder"),
    [
        ("runs/regime/sft-s1/final", None, "results/regime/sft-s1/final"),
        ("/abs/results/regime/sft-s1/final/", None, "results/regime/sft-s1/final"),
        ("results/campaign/sft-s1/final", None, "results/campaign/sft-s1/final"),
        ("sft-s1/final", "campaign", "results/campaign/sft-s1/final"),
        ("rctp-s2/final", "campaign", "results/regime/rctp-s2/final"),  # its one home
        ("sft-s1/final", None, None),  # in two homes: which one is not said
        ("runs/stage1/sft-s1/final", None, None),
        ("tiny", None, None),
    ],
)
def test_a_name_resolves_to_the_folder_it_points_to(name, home, folder):
    folders = ["results/campaign/sft-s1/final", "results/regime/sft-s1/final"]
    assert st.resolve(name, [*folders, "results/regime/rctp-s2/final"], home) == folder


def test_recorded_names_read_configs_specs_and_reports(tmp_path):
    records = {
        "results/h/sft-s0/final/model.safetensors": None,
        "results/h/sft-s0/weak/model.safetensors": None,
        "results/h/rctp-s0/final/model.safetensors": None,
        "results/h/orphan-s0/final/model.safetensors": None,
        "results/h/sft-s0/summary.json": {"final_model": "runs/h/orphan-s0/final"},
        "results/h/rctp-s0/config.json": {
            "model": {"path": "/x/runs/h/sft-s0/final"},
            "failures": {"policy": "runs/h/orphan-s0/final/../x"},
        },
        "results/h/rl-s0/campaign.json": {
            "argv": ["train", "--init", "rctp-s0/final"],
            "needs": {"rctp-s0": {"argv": ["rctp", "--failures.policy", "sft-s0/weak"]}},
        },
        "results/diagnostics/d.json": {"checkpoint": "runs/h/rctp-s0/final"},
        "results/diagnostics/e.json": {
            "grad_noise": {"argv": ["--init", "results/h/sft-s0/final"]}
        },
    }
    for path, doc in records.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(json.dumps(doc) if doc is not None else "")
    assert st.recorded_names(list(records), tmp_path) == {
        "results/h/sft-s0/final": {"results/h/rctp-s0/config.json", "results/diagnostics/e.json"},
        "results/h/sft-s0/weak": {"results/h/rl-s0/campaign.json"},
        "results/h/rctp-s0/final": {"results/h/rl-s0/campaign.json", "results/diagnostics/d.json"},
    }  # orphan-s0: a summary is no start, and "final/../x" is another folder
