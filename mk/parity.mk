# The differential fuzzer (issue 35): hypothesis tests, one per command family (parity/test_fuzz.py).
#   make parity        the "parity" profile: derandomized, PARITY_EXAMPLES x each family's weight examples per family
#                      and vocabulary (in `make test`; the line it prints names the budget)
#   make parity-full   the fuzzer at CI's budget (in `make test-full`): PARITY_FULL_EXAMPLES x the weight, seeded
#                      (--hypothesis-seed): the same examples every run, none of make parity's derandomized ones
#   make fuzz          the "fuzz" profile: random, FUZZ_EXAMPLES per family, hypothesis's database in .hypothesis/
#   make fuzz-inproc   atheris drives the in-process test (parity/test_fuzz.py::test_in_process), INPROC_RUNS
# One run covers every vocabulary of the one build (SPEC section 20): each example draws its vocabulary, passed as
# an argument to the in-process reference and core and named by SAGE_FLAGS_VOCABULARY to every layer's process.
.PHONY: parity parity-full fuzz fuzz-inproc fuzz-coverage vectors check-vectors lint-workflows
TEST_TARGETS += parity
LINT_TARGETS += lint-workflows

FUZZ_TESTS := parity/test_fuzz.py
fuzz_run = $(WITH_BASHES) $(1) $(BIN)/pytest -q --durations=12 $(FUZZ_TESTS) $(FUZZ_PYTEST_ARGS)
PARITY_EXAMPLES ?= 4
PARITY_FULL_EXAMPLES ?= 12
fuzz_budget = $(PY) -c 'from parity.test_fuzz import budget; print("$(1): " + budget($(2)))'
parity: setup old-bash  ## differential fuzzer, derandomized ("parity" profile), PARITY_EXAMPLES, every vocabulary
	@$(call fuzz_budget,parity,$(PARITY_EXAMPLES))
	$(call fuzz_run,PARITY_EXAMPLES=$(PARITY_EXAMPLES))

# The families only: the fuzzer's other tests (its checks of itself) are make parity's.
FUZZ_FAMILIES := test_batch_streams or test_parse or test_announce or test_hook or test_persist_and_resume or test_in_process
parity-full: setup old-bash  ## the fuzzer at CI's budget (PARITY_FULL_EXAMPLES), seeded, every vocabulary
	@$(call fuzz_budget,parity-full,$(PARITY_FULL_EXAMPLES))
	$(call fuzz_run,SAGE_FLAGS_FUZZ_PROFILE=parity-full PARITY_EXAMPLES=$(PARITY_FULL_EXAMPLES)) \
	  --hypothesis-seed=41 -k "$(FUZZ_FAMILIES)"

# FUZZ_EXAMPLES per family and vocabulary (default 2000; the vocabulary is drawn per example, so a family runs
# FUZZ_EXAMPLES times the number of vocabularies); FUZZ_PYTEST_ARGS=-k persist picks families.
# Failures: the minimal example as a vector in parity/failures/, and in .hypothesis/ (replayed first next time).
FUZZ_EXAMPLES ?= 2000
fuzz: setup old-bash  ## long differential run ("fuzz" profile): FUZZ_EXAMPLES per family and vocabulary
	$(call fuzz_run,SAGE_FLAGS_FUZZ_PROFILE=fuzz FUZZ_EXAMPLES=$(FUZZ_EXAMPLES))

# atheris (requirements-fuzz.txt: never installed by make test) runs test_in_process's fuzz_one_input, coverage-
# guided by the reference, INPROC_RUNS examples (each draws its vocabulary: 200000 for each of three), growing one
# corpus in $(CORPUS)/ (the nightly job keeps it between nights). Where atheris has no wheel (macOS, Windows) it
# says so and skips.
INPROC_RUNS ?= 600000
CORPUS ?= build/fuzz-corpus
$(VENV)/.fuzz-tools: requirements-fuzz.txt $(VENV)/.tools
	$(PY) -m pip install --quiet -r requirements-fuzz.txt
	touch $@

fuzz-inproc: setup $(VENV)/.fuzz-tools  ## atheris on the in-process test: INPROC_RUNS, every vocabulary
	@if ! $(PY) -c 'import atheris' 2>/dev/null; then echo "fuzz-inproc: skipped: atheris does not install here"; exit 0; fi; \
	mkdir -p $(CORPUS) && SAGE_FLAGS_FUZZ_PROFILE=fuzz $(PY) -m parity.test_fuzz -runs=$(INPROC_RUNS) $(CORPUS)

# The line and branch coverage of the pure reference that replaying the corpus reaches.
fuzz-coverage: setup $(VENV)/.fuzz-tools  ## coverage of sage_flags/reference.py by the in-process corpus
	$(BIN)/coverage run --branch --data-file=build/.coverage --include='*/sage_flags/reference.py' \
	  -m parity.test_fuzz --replay $(CORPUS) && $(BIN)/coverage report --data-file=build/.coverage --show-missing

vectors: setup  ## rewrite the default vocabulary's vector results from the pure reference (tools/write_vectors.py)
	$(PY) tools/write_vectors.py

# `make check-generated` (the first stage of `make test`) also holds parity/vectors/ to what `make vectors` writes:
# the default vocabulary's results are the reference's, every vector file is in its canonical form.
check-generated: check-vectors
check-vectors: setup
	$(PY) tools/write_vectors.py --check

# The venv's shellcheck on PATH: actionlint then checks every `run:` script with it.
lint-workflows: $(VENV)/.tools
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/actionlint .github/workflows/*.yml
