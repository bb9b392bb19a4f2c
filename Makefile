# sage-flags: the project's workflow. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
ARGS ?= --quality-locked --autonomous Ship dark mode
export ARGS
PYTHON_SOURCES := $(shell find python -name '*.py' -o -name 'py.typed')

.PHONY: help run setup install generate check-generated format lint lint-python test test-python clean

# Debian packages a target needs (strace, hyperfine, locales) are installed by the target itself.
APT_GET = $(if $(filter 0,$(shell id -u)),,sudo) apt-get

# Each layer adds its own targets in mk/<layer>.mk: LINT_TARGETS += ..., TEST_TARGETS += ...
LINT_TARGETS := lint-python
TEST_TARGETS :=
include $(sort $(wildcard mk/*.mk))

help:  ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

$(VENV)/.tools: requirements-dev.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

RUST_SOURCES := $(shell find Cargo.toml Cargo.lock crates -name '*.rs' -o -name 'Cargo.*' 2>/dev/null)

# maturin develop: the package in editable mode, with the native core built (release) into python/sage_flags/.
$(VENV)/.installed: $(VENV)/.tools pyproject.toml $(PYTHON_SOURCES) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --locked --quiet
	touch $@

setup: $(VENV)/.installed  ## create .venv with the dev tools and the package (editable)

install: setup

run: setup  ## parse ARGS (default: the README example) through the installed CLI
	@$(BIN)/sage-flags parse "$$ARGS"

generate: $(VENV)/.tools  ## regenerate every listing of the flag vocabulary from spec/flags.toml
	$(PY) tools/generate.py

check-generated: $(VENV)/.tools
	$(PY) tools/generate.py --check

format: $(VENV)/.tools  ## format the Python code
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

lint: $(LINT_TARGETS)  ## every linter, as CI runs them

lint-python: $(VENV)/.tools
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test-python: setup old-bash  ## unit tests and every vector through every layer's CLI (every bash: mk/bash.mk)
	$(WITH_BASHES) $(BIN)/pytest -n 2 --ignore=parity/test_parity.py

test: check-generated lint $(TEST_TARGETS) test-python  ## everything CI checks

clean:  ## remove the venv and build output
	rm -rf $(VENV) target build dist python/*.egg-info python/sage_flags/*.so
