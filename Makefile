# gpu-node-pools: the targets the README uses.
#   make plan STACK=dev   set up ./venv (first run) and run the offline plan for a stack
#   make test             set up ./venv and run the whole test suite
PYTHON ?= python3
VENV   ?= venv
STACK  ?= dev
BIN    := $(VENV)/bin

.PHONY: setup plan test lint render bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

plan: setup
	$(BIN)/gpupool plan --stack $(STACK)

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check .

render: setup
	$(BIN)/gpupool render --stack $(STACK) --out out/$(STACK)

bench: setup
	$(BIN)/python bench/run.py $(ARGS)

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
