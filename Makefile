# voebench: `make render-level1` sets everything up and renders a small Level 1 set; `make test` runs the tests.
# Blender's Python module (bpy 5.0.1) exists for Python 3.11 only, so the virtual environment uses python3.11.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
N      ?=#               trials per test (default: 8 for render-level1, the suite's default otherwise)
OUT    ?= renders
ARGS   ?=#               extra flags for voebench, e.g. ARGS="--resolution 640x480 --workers 4"

# torch and torchvision are pinned to a matching pair (PyPI's torchvision only imports beside its own torch).
TORCH  ?= torch==2.14.1 torchvision==0.29.1

.PHONY: setup setup-all render-level1 render-level2 render-voe train-baseline test test-heavy test-all test-eval-only lint lint-ruff \
        lint-imports lint-types bench clean-renders help

help:
	@echo "make render-level1   set up .venv and render 8 videos per GRASP Level 1 test (N=...) into $(OUT)/grasp-l1"
	@echo "make render-level2   render GRASP Level 2 (128 pairs per test, or N=...) into $(OUT)/grasp-l2, audit it, draw previews"
	@echo "make render-voe      render the AVoE 10% subset into $(OUT)/avoe"
	@echo "make train-baseline  train the OFPR-Net baseline on $(OUT)/avoe"
	@echo "make test            run the test suite (installs everything it needs)"
	@echo "make lint            ruff, the layer contracts (import-linter) and mypy"
	@echo "make test-eval-only  the evaluate tests in a separate environment without bpy ($(EVAL_PYTHON))"
	@echo "make bench           run the render benchmarks in bench/"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Generator only (bpy + numpy + h5py + ffmpeg): enough to render.
$(VENV)/.gen: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[gen]"
	@touch $@

# Everything: generator, evaluation (torch, transformers), Ray, tests.
$(VENV)/.all: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e ".[gen,eval,ray,humans,test]"
	@touch $@ $(VENV)/.gen

setup: $(VENV)/.gen
setup-all: $(VENV)/.all

render-level1: $(VENV)/.gen
	$(BIN)/voebench render grasp-l1 --out $(OUT)/grasp-l1 --videos-per-test $(or $(N),8) $(ARGS)
	$(BIN)/voebench verify $(OUT)/grasp-l1

render-level2: $(VENV)/.gen
	$(BIN)/voebench render grasp-l2 --out $(OUT)/grasp-l2 $(if $(N),--videos-per-test $(N)) $(ARGS)
	$(BIN)/voebench audit $(OUT)/grasp-l2
	$(BIN)/voebench preview $(OUT)/grasp-l2

render-voe: $(VENV)/.gen
	$(BIN)/voebench render avoe --out $(OUT)/avoe $(if $(N),--trials $(N),--fraction 0.1) $(ARGS)
	$(BIN)/voebench audit $(OUT)/avoe

train-baseline: $(VENV)/.all
	$(BIN)/voebench train-baseline $(OUT)/avoe --model ofpr --category all --seeds 1-3 --out runs/ofpr $(ARGS)

test: $(VENV)/.all
	$(BIN)/python -m pytest -q

# the heavier checks (every graded test's sweep, most browser sessions, the Ray backend): CI runs them after `make test`
test-heavy: $(VENV)/.all
	$(BIN)/python -m pytest -q -m heavy

test-all: $(VENV)/.all
	$(BIN)/python -m pytest -q -m ""

# -- static checks ----------------------------------------------------------------------------------------------
# mypy's packages: all of them (the generator whole, with its audit and Blender side, and the scenes since issue 27).
MYPY_PACKAGES ?= voebench.evaluate voebench.contract voebench.generator voebench.scenes
MYPY_MODULES  ?=

# mypy reads the installed packages' types (numpy's differ between 1.x and 2.x), so lint checks the environment the
# tests run in: everything first, then the linters.
$(VENV)/.lint: pyproject.toml $(VENV)/.all
	$(BIN)/pip install --quiet -e ".[lint]"
	@touch $@

lint-ruff: $(VENV)/.lint
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .

# The import root is an ordinary package under src/ (pyproject.toml), so the tools read the plain checkout.
lint-imports: $(VENV)/.lint
	$(BIN)/lint-imports --no-cache

lint-types: $(VENV)/.lint
	$(BIN)/python -m mypy $(addprefix -p ,$(MYPY_PACKAGES)) $(addprefix -m ,$(MYPY_MODULES))

# every check runs, and lint fails if any did
lint: $(VENV)/.lint
	@rc=0; for t in lint-ruff lint-imports lint-types; do $(MAKE) --no-print-directory $$t || rc=1; done; exit $$rc

# -- evaluation without Blender -----------------------------------------------------------------------------------
# A second environment with only the `eval` and `test` extras (no bpy), running the tests of voebench.evaluate:
# the promise that scoring models needs no Blender. GPU machines often run Python 3.12 (EVAL_PYTHON=python3.12);
# the default is 3.11 because the pinned torch and torchvision wheels lie on this project's machines for 3.11
# only, and for 3.12 pip would download a CUDA build of several GB on every fresh CI machine.
EVAL_PYTHON ?= python3.11
EVAL_VENV   ?= .venv-eval
EVAL_TESTS  ?= tests/evaluate tests/contract/test_baseline_labels.py
# lmms-eval itself, so the export's end-to-end tests (tests/evaluate/test_export_settings.py) run here and do not skip;
# 0.7.3's import fails with filelock 4.x. One pip call, so the resolver keeps torch, transformers and PyAV consistent.
LMMS_EVAL   ?= "lmms-eval==0.7.3" "filelock<4"

$(EVAL_VENV)/.eval: pyproject.toml
	$(EVAL_PYTHON) -m venv $(EVAL_VENV)
	$(EVAL_VENV)/bin/pip install --quiet --upgrade pip
	$(EVAL_VENV)/bin/pip install --quiet $(TORCH)
	$(EVAL_VENV)/bin/pip install --quiet -e ".[eval,humans,test,hf]" $(LMMS_EVAL)
	@touch $@

test-eval-only: $(EVAL_VENV)/.eval
	@! $(EVAL_VENV)/bin/python -c "import bpy" 2>/dev/null || { echo "$(EVAL_VENV) has bpy"; exit 1; }
	$(EVAL_VENV)/bin/python -m pytest -q -m "not slow and not gpu" $(EVAL_TESTS)  # heavy ones too: all of evaluate

bench: $(VENV)/.all
	$(BIN)/python bench/bench_render.py

clean-renders:
	rm -rf $(OUT)/grasp-l1 $(OUT)/grasp-l2 $(OUT)/avoe
