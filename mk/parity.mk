# The differential fuzzer (issue 35): hypothesis tests, one per command family (parity/test_fuzz.py).
#   make parity        the "parity" profile: derandomized, PARITY_EXAMPLES x each family's weight examples per family
#                      and vocabulary (in `make test`; the line it prints names the budget)
#   make parity-full   the fuzzer at CI's budget (in `make test-full`): PARITY_FULL_EXAMPLES x the weight, seeded
#                      (--hypothesis-seed): the same examples every run, none of make parity's derandomized ones
#   make fuzz          the "fuzz" profile: random, FUZZ_EXAMPLES per family, hypothesis's database in .hypothesis/
#   make fuzz-inproc   atheris drives the in-process test (parity/test_fuzz.py::test_in_process), INPROC_RUNS each
# Each runs once per vocabulary of the one build (SPEC section 20): SAGE_FLAGS_VOCABULARY names it to the
# in-process reference and core (chosen at import) and to every layer's process (inherited).
.PHONY: parity parity-full fuzz fuzz-inproc fuzz-coverage vectors lint-workflows
TEST_TARGETS += parity
LINT_TARGETS += lint-workflows
FUZZ_VOCABULARIES := sage-1.1 sage-1.3 sage-1.3.18
in_each_vocabulary = set -e; for v in $(FUZZ_VOCABULARIES); do echo "== vocabulary $$v"; SAGE_FLAGS_VOCABULARY=$$v $(1); done

FUZZ_TESTS := parity/test_fuzz.py
fuzz_run = $(WITH_BASHES) $(1) $(BIN)/pytest -q --durations=12 $(FUZZ_TESTS) $(FUZZ_PYTEST_ARGS)
PARITY_EXAMPLES ?= 4
PARITY_FULL_EXAMPLES ?= 12
fuzz_budget = $(PY) -c 'from parity.test_fuzz import budget; print("$(1): " + budget($(2)))'
parity: setup old-bash  ## differential fuzzer, derandomized ("parity" profile), PARITY_EXAMPLES, every vocabulary
	@$(call fuzz_budget,parity,$(PARITY_EXAMPLES))
	$(call in_each_vocabulary,$(call fuzz_run,PARITY_EXAMPLES=$(PARITY_EXAMPLES)))

# The families only: the fuzzer's other tests (its checks of itself) are make parity's.
FUZZ_FAMILIES := test_batch_streams or test_parse or test_announce or test_hook or test_persist_and_resume or test_in_process
parity-full: setup old-bash  ## the fuzzer at CI's budget (PARITY_FULL_EXAMPLES), seeded, every vocabulary
	@$(call fuzz_budget,parity-full,$(PARITY_FULL_EXAMPLES))
	$(call in_each_vocabulary,$(call fuzz_run,SAGE_FLAGS_FUZZ_PROFILE=parity-full PARITY_EXAMPLES=$(PARITY_FULL_EXAMPLES)) \
	  --hypothesis-seed=41 -k "$(FUZZ_FAMILIES)")

# FUZZ_EXAMPLES per family per vocabulary (default 2000); FUZZ_PYTEST_ARGS=-k persist picks families.
# Failures: the minimal example as a vector in parity/failures/, and in .hypothesis/ (replayed first next time).
FUZZ_EXAMPLES ?= 2000
fuzz: setup old-bash  ## long differential run ("fuzz" profile): FUZZ_EXAMPLES per family and vocabulary
	$(call in_each_vocabulary,$(call fuzz_run,SAGE_FLAGS_FUZZ_PROFILE=fuzz FUZZ_EXAMPLES=$(FUZZ_EXAMPLES)))

# atheris (requirements-fuzz.txt: never installed by make test) runs test_in_process's fuzz_one_input, coverage-
# guided by the reference, INPROC_RUNS examples per vocabulary, each growing its corpus in $(CORPUS)/<vocabulary>/
# (the nightly job keeps it between nights). Where atheris has no wheel (macOS, Windows) it says so and skips.
INPROC_RUNS ?= 200000
CORPUS ?= build/fuzz-corpus
$(VENV)/.fuzz-tools: requirements-fuzz.txt $(VENV)/.tools
	$(PY) -m pip install --quiet -r requirements-fuzz.txt
	touch $@

fuzz-inproc: setup $(VENV)/.fuzz-tools  ## atheris on the in-process test: INPROC_RUNS per vocabulary
	@if ! $(PY) -c 'import atheris' 2>/dev/null; then echo "fuzz-inproc: skipped: atheris does not install here"; exit 0; fi; \
	$(call in_each_vocabulary,mkdir -p $(CORPUS)/$$v && SAGE_FLAGS_FUZZ_PROFILE=fuzz $(PY) -m parity.test_fuzz -runs=$(INPROC_RUNS) $(CORPUS)/$$v)

# The line and branch coverage of the pure reference that replaying each vocabulary's corpus reaches.
fuzz-coverage: setup $(VENV)/.fuzz-tools  ## coverage of sage_flags/reference.py by the in-process corpora
	$(call in_each_vocabulary,$(BIN)/coverage run --branch --data-file=build/.coverage-$$v \
	  --include='*/sage_flags/reference.py' -m parity.test_fuzz --replay $(CORPUS)/$$v && \
	  $(BIN)/coverage report --data-file=build/.coverage-$$v --show-missing)

vectors: setup  ## write parity/vectors/ from the case table parity/cases.jsonl (tools/write_vectors.py)
	$(PY) tools/write_vectors.py

# The venv's shellcheck on PATH: actionlint then checks every `run:` script with it.
lint-workflows: $(VENV)/.tools
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/actionlint .github/workflows/*.yml
