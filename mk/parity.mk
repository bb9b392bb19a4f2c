# The differential fuzzer (issue 35): hypothesis tests, one per command family (parity/test_fuzz.py).
#   make parity        the "parity" profile: derandomized, a few dozen examples per family (in `make test`)
#   make fuzz          the "fuzz" profile: random, FUZZ_EXAMPLES per family, hypothesis's database in .hypothesis/
#   make fuzz-inproc   atheris drives the in-process test (parity/test_fuzz.py::test_in_process), INPROC_RUNS each
# Each runs once per vocabulary build: this checkout's, then Sage 1.3's copy (build/sage-1.3; SAGE_FLAGS_PROJECT
# and PYTHONPATH name it). Where every vocabulary lives in one build, parity.strategies.vocabularies() lists them
# and one run draws from all of them.
.PHONY: parity fuzz fuzz-inproc fuzz-coverage vocabulary-builds vectors lint-workflows
TEST_TARGETS += vocabulary-builds parity
LINT_TARGETS += lint-workflows
SAGE_1_3 := build/sage-1.3
SAGE_1_3_ENV = SAGE_FLAGS_PROJECT=$(abspath $(SAGE_1_3)) PYTHONPATH=$(abspath $(SAGE_1_3))/python
# (the Sage 1.3 copy is built once: tools/build_vocabulary.py keeps a copy whose sources did not change)
vocabulary-builds: setup  ## the Sage 1.3 copy the parity run and tests/test_vocabulary_sage_1_3.py use
	$(PY) tools/build_vocabulary.py spec/sage-1.3.toml $(SAGE_1_3) --native debug

FUZZ_TESTS := parity/test_fuzz.py
fuzz_run = $(WITH_BASHES) $(1) $(BIN)/pytest -q --durations=12 $(FUZZ_TESTS) $(FUZZ_PYTEST_ARGS)
parity: setup old-bash vocabulary-builds  ## differential fuzzer, derandomized ("parity" profile), every vocabulary
	$(call fuzz_run,)
	$(call fuzz_run,$(SAGE_1_3_ENV))

# FUZZ_EXAMPLES per family per vocabulary (default 2000); FUZZ_PYTEST_ARGS=-k persist picks families.
# Failures: the minimal example as a vector in parity/failures/, and in .hypothesis/ (replayed first next time).
FUZZ_EXAMPLES ?= 2000
fuzz: setup old-bash vocabulary-builds  ## long differential run ("fuzz" profile): FUZZ_EXAMPLES per family and vocabulary
	$(call fuzz_run,SAGE_FLAGS_FUZZ_PROFILE=fuzz FUZZ_EXAMPLES=$(FUZZ_EXAMPLES))
	$(call fuzz_run,SAGE_FLAGS_FUZZ_PROFILE=fuzz FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(SAGE_1_3_ENV))

# atheris (requirements-fuzz.txt: never installed by make test) runs test_in_process's fuzz_one_input, coverage-
# guided by the reference, INPROC_RUNS examples per vocabulary, each growing its corpus in $(CORPUS)/<vocabulary>/
# (the nightly job keeps it between nights). Where atheris has no wheel (macOS, Windows) it says so and skips.
INPROC_RUNS ?= 200000
CORPUS ?= build/fuzz-corpus
$(VENV)/.fuzz-tools: requirements-fuzz.txt $(VENV)/.tools
	$(PY) -m pip install --quiet -r requirements-fuzz.txt
	touch $@

fuzz-inproc: setup vocabulary-builds $(VENV)/.fuzz-tools  ## atheris on the in-process test: INPROC_RUNS per vocabulary
	@if ! $(PY) -c 'import atheris' 2>/dev/null; then echo "fuzz-inproc: skipped: atheris does not install here"; exit 0; fi; \
	set -e; mkdir -p $(CORPUS)/flags $(CORPUS)/sage-1.3; \
	SAGE_FLAGS_FUZZ_PROFILE=fuzz $(PY) -m parity.test_fuzz -runs=$(INPROC_RUNS) $(CORPUS)/flags; \
	SAGE_FLAGS_FUZZ_PROFILE=fuzz $(SAGE_1_3_ENV) $(PY) -m parity.test_fuzz -runs=$(INPROC_RUNS) $(CORPUS)/sage-1.3

# The line and branch coverage of the pure reference that replaying each vocabulary's corpus reaches.
fuzz-coverage: setup $(VENV)/.fuzz-tools  ## coverage of sage_flags/reference.py by the in-process corpora
	$(BIN)/coverage run --branch --data-file=build/.coverage-flags --include='*/sage_flags/reference.py' \
	  -m parity.test_fuzz --replay $(CORPUS)/flags
	$(BIN)/coverage report --data-file=build/.coverage-flags --show-missing
	$(SAGE_1_3_ENV) $(BIN)/coverage run --branch --data-file=build/.coverage-sage-1.3 \
	  --include='*/sage_flags/reference.py' -m parity.test_fuzz --replay $(CORPUS)/sage-1.3
	$(BIN)/coverage report --data-file=build/.coverage-sage-1.3 --show-missing

vectors: setup  ## write parity/vectors/ from the case table parity/cases.jsonl (tools/write_vectors.py)
	$(PY) tools/write_vectors.py

# The venv's shellcheck on PATH: actionlint then checks every `run:` script with it.
lint-workflows: $(VENV)/.tools
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/actionlint .github/workflows/*.yml
