# sage-flags: the project's workflow. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
ifeq ($(OS),Windows_NT)
# Windows (CI runs make under Git Bash): a venv keeps its programs in Scripts/, and python3 is called python.
BIN := $(VENV)/Scripts
SYSTEM_PYTHON ?= python
else
BIN := $(VENV)/bin
SYSTEM_PYTHON ?= python3
endif
PY := $(BIN)/python
ARGS ?= --quality-locked --autonomous Ship dark mode
export ARGS
PYTHON_SOURCES := $(shell find python -name '*.py' -o -name 'py.typed')
RUST_SOURCES := $(shell find Cargo.toml Cargo.lock crates -name '*.rs' -o -name 'Cargo.*' 2>/dev/null)

.PHONY: help run setup install generate vocabulary check-generated format lint lint-python test test-full test-stages \
  test-python test-python-full test-layers clean

# Debian packages: `make test` installs none (.ci/install-system-packages does, for CI); bench-tools installs hyperfine.
APT_GET = $(if $(filter 0,$(shell id -u)),,sudo) apt-get

# Each layer adds its own targets in mk/<layer>.mk: LINT_TARGETS += ..., TEST_TARGETS += ...
LINT_TARGETS := lint-python
TEST_TARGETS :=
include $(sort $(wildcard mk/*.mk))

help:  ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

$(VENV)/.tools: requirements-dev.txt
	$(SYSTEM_PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

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

# Every layer built for another vocabulary, in a copy of the project (docs/ADDING_A_FLAG.md), e.g. Sage 1.3's:
#   make vocabulary VOCAB=spec/sage-1.3.18.toml OUT=build/sage-1.3.18
VOCAB ?= spec/sage-1.3.18.toml
OUT ?= build/$(basename $(notdir $(VOCAB)))
NATIVE ?= release
vocabulary: $(VENV)/.tools  ## build every layer for VOCAB (default spec/sage-1.3.18.toml) into OUT (build/<name>)
	$(PY) tools/build_vocabulary.py $(VOCAB) $(OUT) --native $(NATIVE)

check-generated: $(VENV)/.tools
	$(PY) tools/generate.py --check

format: $(VENV)/.tools  ## format the Python code
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

lint: $(LINT_TARGETS)  ## every linter, as CI runs them

lint-python: $(VENV)/.tools
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The wheels tests/test_wheels.py and the Python matrix (tests/test_matrix.py) install are those of `make dist`
# (mk/dist.mk, in TEST_TARGETS), built once before pytest starts. worksteal: an idle worker takes over queued tests
# from a busy one. -rfE: every failure and error named in the summary.
# $(WITH_BASHES): every bash of mk/bash.mk, expanded when the recipe runs (= not :=): in a clean clone the old bashes
# exist only once `make old-bash` has built them.
# --tier (parity/tiers.py, docs/IMPLEMENTATION.md D29): `make test` runs the default tier, `make test-full` the rest.
PYTEST = $(WITH_BASHES) SAGE_FLAGS_WHEEL_DIR=$(abspath $(DIST)) $(BIN)/pytest -n 2 --dist worksteal -rfE --durations=25

test-python: setup wheels old-bash  ## unit tests; every vector through every implementation, every other entry's cover
	$(PYTEST) --tier=default --ignore=parity/test_fuzz.py

test-python-full: setup wheels old-bash  ## the rest: the cross product per entry, the matrix, builds inside tests
	$(PYTEST) --tier=full --ignore=parity/test_fuzz.py

# macOS and Windows in CI (no apt-get, strace, setpriv there): every vector through every layer present (bash:
# Git Bash on Windows), the default's part of the Python matrix (the interpreters SAGE_FLAGS_PYTHONS names: 3.8
# and 3.13), and the Windows checks.
LAYER_TESTS := parity/test_vectors.py tests/test_matrix.py tests/test_windows.py \
  tests/test_manifest.py::test_persist_vector tests/test_manifest.py::test_resume_vector \
  tests/test_announce.py::test_announce_vector

test-layers: setup wheels  ## what CI runs on macOS and Windows: every vector through every layer, the matrix
	$(PYTEST) --tier=default $(LAYER_TESTS)

# The stages of `make test` and of `make test-full` (its complement), in order, each run and timed by its own make;
# each stage's wall and CPU seconds (user plus system of its whole process tree, from bash's `times`) are printed at
# the end with the totals and the load average, and a failing stage is named with its time (issues 35, 41).
# `make test-stages` lists them.
TEST_STAGES = check-generated lint $(TEST_TARGETS) test-python
TEST_FULL_STAGES = dist wheelhouse old-bash test-python-full parity-full
# $(1): the target's name, $(2): its stages.
define run_stages
	@cpu_file=$$(mktemp); trap 'rm -f "$$cpu_file"' EXIT; \
	cpu() { times >"$$cpu_file"; cpu_now=$$(awk 'END { split($$1, u, /[ms]/); split($$2, s, /[ms]/); \
	  printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$$cpu_file"); }; \
	start=$$SECONDS; lines=""; \
	for stage in $(2); do \
	  at=$$SECONDS; cpu; cpu_at=$$cpu_now; \
	  $(MAKE) --no-print-directory $$stage || { echo "make $(1): stage $$stage failed after $$((SECONDS - at)) s"; exit 1; }; \
	  cpu; lines="$$lines$$(printf 'make $(1): %-18s %5d s %6d CPU s' $$stage $$((SECONDS - at)) $$((cpu_now - cpu_at)))"$$'\n'; \
	done; \
	printf '%s' "$$lines"; cpu; \
	echo "make $(1): total $$((SECONDS - start)) s, $$cpu_now CPU s (user+system, the whole make tree); load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
endef

test:  ## the default tier: lint, every vector through every implementation, every entry's cover (minutes)
	$(call run_stages,test,$(TEST_STAGES))

test-full:  ## the complement of make test: the rest of the cross product, the matrix, builds, the fuzzer's CI budget
	$(call run_stages,test-full,$(TEST_FULL_STAGES))

test-stages:
	@echo $(TEST_STAGES)

clean:  ## remove the venv and build output
	rm -rf $(VENV) target build dist python/*.egg-info python/sage_flags/*.so
