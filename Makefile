# gpu-node-pools: the targets the README uses.
#   make plan STACK=dev   set up ./venv (first run) and run the offline plan for a stack
#   make test             set up ./venv and run the whole test suite
#   make policy-pack      regenerate policy/ (the CrossGuard pack) from the package
PYTHON ?= python3
VENV   ?= venv
STACK  ?= dev
BIN    := $(VENV)/bin

.PHONY: setup browser plan test lint lint-imports render bench policy-pack policy-wheel clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml tools/install_helm.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python tools/install_helm.py --venv $(VENV)
	touch $@

# Debian's chromium for the page tests (headless): a system package, so only on request (`.ci/run`
# calls it); without it those tests skip with the reason. Skipped when present, non-fatal without root.
browser:
	@test -x /usr/bin/chromium || (apt-get update && apt-get install -y chromium) \
		|| echo "chromium not installed: the audit page tests will be skipped"

plan: setup
	$(BIN)/gpupool plan --stack $(STACK)

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# The import rules of ARCHITECTURE.md (contracts in pyproject.toml).
lint-imports: setup
	$(BIN)/lint-imports

render: setup
	$(BIN)/gpupool render --stack $(STACK) --out out/$(STACK)

bench: setup
	$(BIN)/python bench/run.py $(ARGS)

# policy/ is generated: rewrite it from the pack files shipped in the package.
policy-pack: setup
	$(BIN)/gpupool policy-pack --out policy

# The wheel that policy/requirements.txt (gpu-node-pool==<version>) resolves to with PIP_FIND_LINKS=$(CURDIR)/dist.
policy-wheel: setup
	$(BIN)/python -m pip wheel --no-deps --quiet -w dist .

clean:
	rm -rf $(VENV) out dist build .pytest_cache .hypothesis .ruff_cache .import_linter_cache components/*.egg-info
