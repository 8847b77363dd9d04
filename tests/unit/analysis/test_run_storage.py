"""A light copy stores the metrics, the per-rollout table and the held-out evaluations
compressed (``metrics.jsonl.gz``, ``rollouts.jsonl.gz``, ``eval/<name>.json.gz``): the export
writes them,
``analysis.runs.pack`` converts an older copy in place, and every reader (the run, its kind,
its digests, a figure's sidecar) gives for them what it gives for the plain files."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from analysis.campaign import mechanics as cp
from analysis.campaigns.pool import driver as ex
from analysis.figures.save import file_entries, run_entry
from analysis.runs import COMPLETE, load_run
from analysis.runs.folder import (
    LIGHT_DIRS,
    LIGHT_FILES,
    copy_light_dir,
    copy_light_file,
    digests,
    file_digest,
    light_globs,
)
from analysis.runs.pack import main as pack_main
from analysis.runs.pack import pack
from analysis.runs.sources import run_kind
from rcgrpo.train.runlog import METRICS, METRICS_GZ, ROLLOUTS, ROLLOUTS_GZ

GRPO = ex.rl("cpu-grpo", ex.stage1(0)["sft"], 0)
STEPS, G = 20, 8
METRIC_ROWS = [
    {"step": 2, "time": 1.5, "reward/mean": 0.25, "adv/zero_std_frac": None},
    {"step": 1, "time": 1.0, "reward/mean": 0.5, "adv/zero_std_frac": 0.75},
]
"""Two logged steps out of order, one metric missing (NaN): Run.metrics sorts by step."""


def _table() -> str:
    """STEPS steps of G rollouts in the trainer's row layout (json.dumps, one a line)."""
    rows = [
        {"step": s, "round": 0, "prompt": 0, "rollout": k, "task_id": f"multi_turn_base_{s}"}
        | {"reward": float(k % 2), "advantage": (k % 2 - 0.5) * 2, "reward_token": "high"}
        for s in range(1, STEPS + 1)
        for k in range(G)
    ]
    return "".join(json.dumps(r) + "\n" for r in rows)


def _run(folder, finished=True):
    """A finished RL run folder as the trainer leaves it (checkpoints left out of a copy)."""
    (folder / "eval").mkdir(parents=True)
    (folder / "checkpoints" / "step_20").mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"algo": {"name": "grpo"}}))
    (folder / METRICS).write_text("".join(json.dumps(r) + "\n" for r in METRIC_ROWS))
    (folder / ROLLOUTS).write_text(_table())
    for step in (0, 20):  # a held-out evaluation: many repeated keys, as the trainer's
        per_task = [{"task_id": f"t{i}", "reward": float(i % 3 == 0)} for i in range(200)]
        doc = {"step": step, "conditions": {"high": {"per_task": per_task}}}
        (folder / "eval" / f"step_{step}.json").write_text(json.dumps(doc, indent=2))
    (folder / cp.SPEC_FILE).write_text(json.dumps(GRPO.record()))
    if finished:
        (folder / "summary.json").write_text("{}")
    return folder


def test_export_writes_the_table_compressed_and_no_plain_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / "runs" / "campaign")
    monkeypatch.setattr(cp, "RESULTS", tmp_path / "results" / "campaign")
    src = _run(cp.CAMPAIGN / GRPO.name)
    copy = cp.export_run(ex.build_campaign(seeds=(0,)), GRPO.name)
    assert sorted(p.name for p in copy.iterdir()) == sorted(
        [cp.SPEC_FILE, "config.json", "eval", METRICS_GZ, ROLLOUTS_GZ, "summary.json"]
    )
    plain, packed = src / ROLLOUTS, copy / ROLLOUTS_GZ
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    # 160 rows of ~190 bytes: repeated keys compress > 10 times
    assert packed.stat().st_size * 10 < plain.stat().st_size
    pd.testing.assert_frame_equal(load_run(copy).rollouts, load_run(src).rollouts)
    assert len(load_run(copy).rollouts) == STEPS * G and run_kind(copy) == run_kind(src) == "rl"
    # a figure's sidecar names the same digests for the copy as for the training folder
    assert digests(copy) == digests(src) and digests(copy)[ROLLOUTS] is not None
    assert run_entry(copy, tmp_path)["sha256_16"] == run_entry(src, tmp_path)["sha256_16"]
    assert file_digest(packed) == file_digest(plain)
    assert [e["sha256_16"] for e in file_entries(("results/*/*/rollouts.jsonl*",), tmp_path)] == [
        file_digest(plain)
    ]
    assert not (copy / COMPLETE).exists() and not (copy / "checkpoints").exists()
    # the held-out evaluations: compressed, read and hashed (under their plain names) alike
    assert sorted(p.name for p in (copy / "eval").iterdir()) == [
        "step_0.json.gz",
        "step_20.json.gz",
    ]
    for step in (0, 20):
        plain, packed = src / "eval" / f"step_{step}.json", copy / "eval" / f"step_{step}.json.gz"
        assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
        assert packed.stat().st_size * 10 < plain.stat().st_size
    assert load_run(copy).evals == load_run(src).evals and list(load_run(copy).step_evals) == [
        0,
        20,
    ]
    assert digests(copy)["eval/step_20.json"] == file_digest(src / "eval" / "step_20.json")


def test_light_globs_name_the_form_each_run_stores(tmp_path):
    _run(tmp_path / "r" / "a-s0")
    pack(_run(tmp_path / "r" / "a-s1"))
    globs = light_globs("r/a-s*", tmp_path)
    assert "r/a-s*/rollouts.jsonl" in globs and "r/a-s*/rollouts.jsonl.gz" in globs
    assert light_globs("r/a-s1", tmp_path)[2] == "r/a-s1/rollouts.jsonl.gz"


def test_pack_is_lossless_and_keeps_the_digests(tmp_path):
    folder = _run(tmp_path / "r")
    before, evals, digest = load_run(folder).rollouts, load_run(folder).evals, digests(folder)
    text = (folder / ROLLOUTS).read_bytes()
    plain = {p.name: p.read_bytes() for p in (folder / "eval").iterdir()}
    logged = (folder / METRICS).read_bytes()
    files, plain_size, packed_size = pack(folder)
    assert files == 4  # metrics, table, 2 evaluations
    assert plain_size == len(logged) + len(text) + sum(map(len, plain.values())) > packed_size
    assert not (folder / METRICS).exists()
    assert gzip.decompress((folder / METRICS_GZ).read_bytes()) == logged
    assert not (folder / ROLLOUTS).exists() and not list((folder / "eval").glob("*.json"))
    assert gzip.decompress((folder / ROLLOUTS_GZ).read_bytes()) == text
    for name, data in plain.items():
        assert gzip.decompress((folder / "eval" / f"{name}.gz").read_bytes()) == data
    pd.testing.assert_frame_equal(load_run(folder).rollouts, before)
    assert load_run(folder).evals == evals and digests(folder) == digest
    assert pack(folder) is None  # packed already: left as it is


def test_an_evaluation_stored_in_both_forms_is_one_clear_error(tmp_path):
    folder = _run(tmp_path / "r")
    (folder / "eval" / "step_0.json.gz").write_bytes(b"half")  # a pack killed mid-way
    with pytest.raises(ValueError, match="holds both step_0.json and step_0.json.gz"):
        _ = load_run(folder).evals
    assert pack_main([str(folder)]) == 0  # finishing the pack mends it
    assert list(load_run(folder).step_evals) == [0, 20]


def test_pack_cli_refuses_an_unfinished_run_and_finishes_an_interrupted_pack(tmp_path, capsys):
    going = _run(tmp_path / "going", finished=False)
    assert pack_main([str(going)]) == 1 and (going / ROLLOUTS).is_file()
    assert "not a finished run folder" in capsys.readouterr().err
    done = _run(tmp_path / "done")
    (done / ROLLOUTS_GZ).write_bytes(b"half")  # a pack killed before it removed the plain table
    with pytest.raises(ValueError, match="holds both"):
        _ = load_run(done).rollouts
    assert pack_main([str(done)]) == 0 and "4 file(s)" in capsys.readouterr().out
    assert gzip.decompress((done / ROLLOUTS_GZ).read_bytes()).decode() == _table()


def test_a_light_copy_stores_metrics_and_evaluations_compressed_and_reads_them_alike(tmp_path):
    src, copy = _run(tmp_path / "src"), tmp_path / "copy"
    copy.mkdir()
    for name in LIGHT_FILES:
        copy_light_file(src, copy, name)
    for name in LIGHT_DIRS:
        copy_light_dir(src, copy, name)
    assert not (copy / METRICS).exists() and not list((copy / "eval").glob("*.json"))
    assert gzip.decompress((copy / METRICS_GZ).read_bytes()) == (src / METRICS).read_bytes()
    assert (copy / METRICS_GZ).read_bytes()[4:8] == b"\0\0\0\0"  # gzip mtime 0: same bytes
    plain, packed = load_run(src), load_run(copy)
    pd.testing.assert_frame_equal(packed.metrics, plain.metrics)
    assert packed.metrics["step"].tolist() == [1, 2]  # sorted by step
    assert packed.metrics["reward/mean"].tolist() == [0.5, 0.25]
    assert packed.metrics["adv/zero_std_frac"].isna().tolist() == [False, True]
    assert packed.evals == plain.evals and list(packed.step_evals) == [0, 20]
    assert packed.step_evals[20]["conditions"]["high"]["per_task"][3]["reward"] == 1.0
    assert digests(copy) == digests(src) and digests(copy)[METRICS] == file_digest(src / METRICS)
    # copying a light copy again keeps the compressed file as it is (bytes unchanged)
    again = tmp_path / "again"
    again.mkdir()
    copy_light_file(copy, again, METRICS)
    assert (again / METRICS_GZ).read_bytes() == (copy / METRICS_GZ).read_bytes()


def test_metrics_stored_in_both_forms_are_one_clear_error(tmp_path):
    folder = _run(tmp_path / "r")
    (folder / METRICS_GZ).write_bytes(b"half")  # a pack killed before it removed the plain file
    with pytest.raises(ValueError) as err:
        _ = load_run(folder).metrics
    assert str(err.value).count("\n") == 0
    assert f"{folder} holds both metrics.jsonl and metrics.jsonl.gz: keep one" in str(err.value)
    with pytest.raises(ValueError, match="holds both metrics.jsonl and metrics.jsonl.gz"):
        digests(folder)
    assert pack_main([str(folder)]) == 0  # finishing the pack mends it
    assert load_run(folder).metrics["step"].tolist() == [1, 2]


def test_pack_under_a_root_packs_every_run_folder_below_it(tmp_path, capsys):
    for name in ("a/x-s0", "a/x-s1", "b/y-s0"):
        _run(tmp_path / "results" / name)
    before = {f: load_run(tmp_path / "results" / f).metrics for f in ("a/x-s0", "b/y-s0")}
    assert pack_main(["--under", str(tmp_path / "results")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("3 folder(s), 0 refused: packed 12 file(s)")  # 4 per folder
    left = [p.name for p in (tmp_path / "results").rglob("*") if p.suffix in (".json", ".jsonl")]
    assert sorted(set(left)) == [cp.SPEC_FILE, "config.json", "summary.json"]  # stay plain
    for name, metrics in before.items():
        pd.testing.assert_frame_equal(load_run(tmp_path / "results" / name).metrics, metrics)
    assert pack_main(["--under", str(tmp_path / "results")]) == 0
    assert capsys.readouterr().out.count("packed already") == 3


def test_pack_cli_bad_input_is_one_line(tmp_path, capsys):
    assert pack_main(["--under", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"pack: --under {tmp_path / 'nowhere'}: no such folder (FOLDER ... or --under ROOT)\n"
    )
    assert pack_main([]) == 2
    assert capsys.readouterr().err == "pack: no run folder given (FOLDER ... or --under ROOT)\n"


def test_a_run_that_keeps_its_conversations_exports_them_whole(tmp_path, monkeypatch):
    """``RunSpec.conversations``: the light copy holds every logged conversation (gzip, the same
    bytes on every export) and says where they come from; the copy reads them as the
    training folder does. Without it, none are copied."""
    import dataclasses

    from analysis.notebook.drilldown import conversation_note
    from analysis.runs.folder import SAMPLE_CONVERSATIONS, SAMPLE_SOURCE

    monkeypatch.setattr(cp, "CAMPAIGN", tmp_path / "runs" / "campaign")
    monkeypatch.setattr(cp, "RESULTS", tmp_path / "results" / "campaign")
    src = _run(cp.CAMPAIGN / GRPO.name)
    rows = [
        {"step": s, "round": 0, "prompt": 0, "rollout": k, "messages": [{"role": "user"}]}
        for s in (1, 2, 3)
        for k in range(2)
    ]
    (src / "conversations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    camp = ex.build_campaign(seeds=(0,))
    assert not (cp.export_run(camp, GRPO.name) / SAMPLE_CONVERSATIONS).exists()
    camp.runs[GRPO.name] = dataclasses.replace(camp.runs[GRPO.name], conversations=True)
    copy = cp.export_run(camp, GRPO.name)
    packed = (copy / SAMPLE_CONVERSATIONS).read_bytes()
    assert gzip.decompress(packed) == (src / "conversations.jsonl").read_bytes()
    assert cp.export_run(camp, GRPO.name).joinpath(SAMPLE_CONVERSATIONS).read_bytes() == packed
    source = json.loads((copy / SAMPLE_SOURCE).read_text())
    assert source == {"kind": "logged", "file": "conversations.jsonl", "rows": 6, "steps": [1, 3]}
    pd.testing.assert_frame_equal(load_run(copy).conversations, load_run(src).conversations)
    assert "kept whole in the light copy" in conversation_note(load_run(copy))
