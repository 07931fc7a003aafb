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

.PHONY: setup setup-all render-level1 render-level2 render-voe train-baseline test test-all bench clean-renders help

help:
	@echo "make render-level1   set up .venv and render 8 videos per GRASP Level 1 test (N=...) into $(OUT)/grasp-l1"
	@echo "make render-level2   render GRASP Level 2 (128 pairs per test, or N=...) into $(OUT)/grasp-l2, audit it, draw previews"
	@echo "make render-voe      render the AVoE 10% subset into $(OUT)/avoe"
	@echo "make train-baseline  train the OFPR-Net baseline on $(OUT)/avoe"
	@echo "make test            run the test suite (installs everything it needs)"
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
	$(BIN)/pip install --quiet -e ".[gen,eval,ray,test]"
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

test-all: $(VENV)/.all
	$(BIN)/python -m pytest -q -m ""

bench: $(VENV)/.all
	$(BIN)/python bench/bench_render.py

clean-renders:
	rm -rf $(OUT)/grasp-l1 $(OUT)/grasp-l2 $(OUT)/avoe
