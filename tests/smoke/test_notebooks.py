"""The four notebooks, executed headless (nbclient, the venv's python3 kernel), asserting the
numbers they print: the theory table has 0 violations, the BFCL split is 720 / 80 with 20
test tasks per category, the ground truth scores R = 1, and the per-step statistics
recomputed from a real run's rollout table equal the logged ones (03 also on a 2-step run of
the real ``python -m rcgrpo train`` CLI; 04 also on a stand-in of the real-model study's
results).

Each notebook also runs with its defaults on the repository as committed (in CI: a fresh
clone, so 03 reads the committed light copies in ``results/campaign/`` and their conversation
samples) and must show no stderr, no warning, no ``nan`` and nothing "not logged"
(:func:`analysis.notebook.runner.output_problems`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from rl_smoke_helpers import SMALL_RUN, cli, coin_flip_checkpoint

from analysis.notebook.explore import dashboard, pick_runs
from analysis.notebook.runner import execute_notebook, output_problems
from analysis.theory import STATEMENTS

pytestmark = pytest.mark.slow  # ~35 s on one core (half of it the 2-step training run)
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
EXPLAINED_NAN = ("gives nan (0/0)",)
"""NaNs that are the result shown: notebook 01's note that the naive advantage formula on an
all-zero group with eps_stab = 0 computes 0/0."""


@pytest.fixture(scope="module", autouse=True)
def one_thread_kernels():
    """Kernels inherit the environment: one torch thread each on the shared cores."""
    old = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = "1"
    yield
    if old is None:
        os.environ.pop("OMP_NUM_THREADS", None)
    else:
        os.environ["OMP_NUM_THREADS"] = old


def outputs_text(nb) -> str:
    """Every printed stream and ``text/plain`` result of the notebook, in cell order."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            elif "data" in out and "text/plain" in out["data"]:
                parts.append(out["data"]["text/plain"])
    return "\n".join(parts)


def images(nb) -> int:
    return sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


def test_01_theory():
    # G = 4, p = 1/2 injected after the parameters cell: kappa = (G-1)/G p(1-p) = 3/4 * 1/4
    # = 0.1875; stratified k = round(2) = 2 -> k(G-k)/G^2 = 4/16 = 0.25; P(all G goals
    # equal) = 2 * 0.5^4 = 0.125 for iid goals, 0 for stratified
    nb = execute_notebook(NOTEBOOKS / "01_theory.ipynb", {"CONFIGS": 3, "G": 4, "P": 0.5})
    text = outputs_text(nb)
    assert re.search(rf"{len(STATEMENTS)} statements, \d+ comparisons, total violations: 0", text)
    assert "G = 4, p = 0.5: kappa = 0.1875; stratified k = 2, k(G-k)/G^2 = 0.2500" in text
    assert "P(no goal diversity in a group): iid 0.1250, stratified 0.0000" in text
    assert images(nb) == 6  # five theory figures + the kappa / stratified plot


def test_01_defaults_are_clean():
    # G = 5, p = 1/2 (the paper's): kappa = 4/5 * 1/4 = 0.2; stratified k = 3 high goals ->
    # k(G-k)/G^2 = 3 * 2 / 25 = 0.24; P(all goals equal) = 2 * 0.5^5 = 0.0625 (iid)
    nb = execute_notebook(NOTEBOOKS / "01_theory.ipynb")
    assert output_problems(nb, EXPLAINED_NAN) == []
    text = outputs_text(nb)
    assert re.search(rf"{len(STATEMENTS)} statements, \d+ comparisons, total violations: 0", text)
    assert "G = 5, p = 0.5: kappa = 0.2000; stratified k = 3, k(G-k)/G^2 = 0.2400" in text
    assert "P(no goal diversity in a group): iid 0.0625, stratified 0.0000" in text


def test_02_environment():
    nb = execute_notebook(NOTEBOOKS / "02_environment.ipynb")  # the defaults
    assert output_problems(nb) == []
    text = outputs_text(nb)
    assert "800 tasks: 720 train / 80 test" in text
    for category in ("base", "long_context", "miss_func", "miss_param"):
        assert re.search(rf"{category}\s+180\s+20\b", text), category
    assert re.search(r"total\s+720\s+80\b", text)
    assert "ground truth (multi_turn): reward 1, state 1, action 1, bfcl_valid True" in text
    assert "synth ground truth (combined): reward 1, bfcl_valid True" in text
    # perturbation summary: tasks, mean R, fraction bfcl_valid, fraction disagreeing
    assert re.search(r"ground_truth\s+80\s+1\.0+\s+1\.0+\s+0\.0+\n", text)


def test_03_training_dynamics(tmp_path_factory):
    root = tmp_path_factory.getbasetemp()
    start = coin_flip_checkpoint(root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root)
    runs = tmp_path_factory.mktemp("nb_runs")
    cli(
        "train",
        "--preset",
        "cpu-rcgrpo",
        "--init",
        str(start),
        *SMALL_RUN,
        "--run.steps",
        "2",
        "--run.root",
        str(runs),
        "--run.name",
        "r",
    )
    nb = execute_notebook(NOTEBOOKS / "03_training_dynamics.ipynb", {"RUNS": [runs / "r"]})
    text = outputs_text(nb)
    assert "1 RL run(s) found; loaded 1: r" in text
    # every rollout of both steps is in the table: all 11 statistics x 2 steps agree exactly
    assert "r: max |logged - recomputed| = 0 over 22 values (11 metrics x 2 steps)" in text
    # the logged between/within split equals its recomputation from rollouts.jsonl
    assert "r: between/within split, max |logged - recomputed| = 0 over 2 steps" in text
    # drill-down of the last step: P = 2 groups of G = 4, the widest group's 4 rollouts
    assert re.search(r"r, step 2: 2 groups \(2 kept\); zero-variance groups observed [0-2]/2", text)
    assert re.search(r"step 2, task synth_train_\d+_\d+: the widest advantage spread", text)
    found = re.search(
        r"=== RCTP-FT \+ RC-GRPO \(r\), step 2, round 0, prompt \d, task \S+\n4 rollouts, sum of "
        r"advantages ([-+]\d\.\d+), max \|A - \(between \+ within\)\| = (\S+)",
        text,
    )
    assert found and abs(float(found[1])) < 1e-3 and float(found[2]) < 1e-12
    assert text.count("--- rollout ") == 4 and text.count("goal high") + text.count("goal low") == 4
    assert "[user]" in text and "[assistant]" in text  # the logged conversations
    assert "r: conversations as the trainer logged them" in text
    assert "with 6 Axes" in text and images(nb) == 2  # dashboard + separation-entropy view


@pytest.mark.results
def test_03_defaults_read_the_factorial_as_text():
    """On the committed campaign: the four factorial arms of seed 0, every statistic equal to
    its recomputation, a task that collapsed under SFT + GRPO read beside the same task under
    RC-GRPO, both groups' rollouts with their committed conversations, every dashboard panel
    drawn."""
    nb = execute_notebook(NOTEBOOKS / "03_training_dynamics.ipynb")
    assert output_problems(nb) == []
    text = outputs_text(nb)
    arms = ("cpu-grpo-s0", "cpu-sft-rc-s0", "cpu-rctp-grpo-s0", "cpu-rcgrpo-s0")
    assert re.search(r"seed 0 of the campaign \((results|runs)/campaign", text)
    for name in arms:
        assert re.search(rf"{name}: max \|logged - recomputed\| = \S+ over \d+ values", text)
        assert re.search(rf"{name}: conversations (as the trainer|of steps 1-25 regen)", text)
    errors = re.findall(r"max \|logged - recomputed\| = (\S+)", text)
    assert len(errors) == 7 and max(map(float, errors)) < 1e-12  # 4 runs + 3 with goals' split
    chosen = re.search(
        r"step (\d+), task (\S+) \(the latest of steps 1-\d+ where a task's group collapsed "
        r"under SFT \+ GRPO and not under RCTP-FT \+ RC-GRPO",
        text,
    )
    assert chosen, "no collapsed-vs-not group chosen"
    step, task = chosen.groups()
    for arm_name, name in (("SFT + GRPO", "cpu-grpo-s0"), ("RCTP-FT + RC-GRPO", "cpu-rcgrpo-s0")):
        assert f"=== {arm_name} ({name}), step {step}, round 0, prompt " in text
    assert "one goal or none in this run: every advantage is within-goal, no split" in text
    # 2 groups x G = 5 rollouts, each with its task, the model's replies and tool results
    assert text.count("--- rollout ") == 10
    assert text.count("[user]\n") + text.count("(the same messages as rollout ") == 10
    assert "[tool]\n" in text and "(no conversation" not in text
    assert images(nb) == 2
    runs, _ = pick_runs()
    fig = dashboard(runs)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 6 and all(ax.lines for ax in panels)
    assert not [t.get_text() for ax in panels for t in ax.texts if "not logged" in t.get_text()]


def test_03_without_runs_says_so(tmp_path):
    nb = execute_notebook(NOTEBOOKS / "03_training_dynamics.ipynb", {"SEARCH": [str(tmp_path)]})
    text = outputs_text(nb)
    assert f"No RL run folders found under {tmp_path}. Train one" in text
    assert images(nb) == 0


def _study_copy(root: Path) -> Path:
    """A stand-in for the real-model study's results: the committed light copies of the collapse
    campaign's seed-3 SFT and SFT + GRPO under the study's names (what the notebook reads is
    the folder layout, not the model)."""
    import shutil

    results = NOTEBOOKS.parent / "results" / "collapse"
    for source, name in (
        ("sft-collapse-s3", "sft-base-s31"),
        ("collapse-grpo-s3", "smol-sft-grpo-s3"),
    ):
        shutil.copytree(results / source, root / name, ignore=shutil.ignore_patterns("final"))
    return root


def test_04_real_model_opens_a_study_with_runs(tmp_path):
    """With a committed Stage-1 run and an RL run: the status counts them, the Stage-1 curves
    and the RL dashboard are drawn, the RL run's statistics equal their recomputation, a
    group is read rollout by rollout (its messages where the light copy keeps them), and the
    side-by-side table has every row."""
    from analysis.campaigns.smollm2_collapse.side_by_side import ROWS

    root = _study_copy(tmp_path / "study")
    params = {"ROOT": str(root), "TINY_PREDICTIONS": False}
    nb = execute_notebook(NOTEBOOKS / "04_real_model.ipynb", params)
    assert output_problems(nb) == []
    text = outputs_text(nb)
    assert f"2 of 17 runs of the design committed under {root}" in text
    assert re.search(r"sft-base-s31\s+sft\s+True\s+0\.\d{3}", text)
    assert "80 episodes in the dump, 0 solved (reward 1)" in text  # zero-shot BFCL
    errors = re.findall(r"smol-sft-grpo-s3: max \|logged - recomputed\| = (\S+)", text)
    assert len(errors) == 1 and float(errors[0]) < 1e-12
    assert "=== SFT + GRPO (smol-sft-grpo-s3), step " in text and text.count("--- rollout ") == 5
    assert images(nb) == 2  # the Stage-1 curves and the RL dashboard
    table = nb.cells[-1]["outputs"][0]["data"]["text/plain"]
    assert table.count("not run") >= 1 and len(ROWS) <= len(table.splitlines()) - 1


@pytest.mark.results
def test_04_defaults_read_the_committed_study():
    """On the repository as committed: every run of the design listed, the zero-shot dumps
    read, and the side-by-side table with the tiny model's committed values."""
    nb = execute_notebook(NOTEBOOKS / "04_real_model.ipynb", {"TINY_PREDICTIONS": False})
    assert output_problems(nb) == []
    text = outputs_text(nb)
    assert re.search(r"\d+ of 17 runs of the design committed under results/smollm2-collapse", text)
    assert "synth-test-none.txt: " in text and "bfcl-test-none.txt: 80 episodes" in text
    assert "0.236 (0.229 to 0.242, n = 5)" in text  # the tiny SFT's held-out success
