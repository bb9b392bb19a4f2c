# The differential fuzzer (issue 5): `make parity` (derandomized, part of `make test`), `make fuzz` (the long
# random run), and actionlint over the GitHub workflows (part of `make lint`).
.PHONY: parity fuzz vectors lint-workflows
TEST_TARGETS += parity
LINT_TARGETS += lint-workflows
FUZZ_MINUTES ?=
FUZZ_EXAMPLES ?=

# Both vocabularies: this checkout's, then Sage 1.3's build (tests/test_vocabulary_sage_1_3.py builds the same
# copy; the fuzzer's reference and layers are the copy's: PYTHONPATH and SAGE_FLAGS_PROJECT name it).
# Then one short run seeded by the commit (the first 32 bits of its hash), so that every commit tries inputs no
# other commit tried, and a run of the same commit (CI's clean clone, a developer's replay) tries the same ones:
# CI's answer depends on the commit alone. Outside a git checkout, a fresh seed. It prints its seed, and on a
# divergence the command that replays it exactly (python -m parity.fuzz --seed N --examples M).
SAGE_1_3 := build/sage-1.3.18
EXPLORE_EXAMPLES ?= 1500
EXPLORE_SEED ?= $(shell head=$$(git rev-parse -q --verify HEAD 2>/dev/null) && echo $$((16#$${head:0:8})))
parity: setup old-bash  ## differential fuzzer: fixed seeds (both vocabularies), then the commit's own seed
	$(WITH_BASHES) $(BIN)/pytest -s parity/test_parity.py
	$(PY) tools/build_vocabulary.py spec/sage-1.3.18.toml $(SAGE_1_3) --native debug
	$(WITH_BASHES) SAGE_FLAGS_PROJECT=$(abspath $(SAGE_1_3)) PYTHONPATH=$(abspath $(SAGE_1_3))/python \
	  $(BIN)/pytest -s parity/test_parity.py
	$(WITH_BASHES) $(PY) -m parity.fuzz --examples $(EXPLORE_EXAMPLES) $(if $(EXPLORE_SEED),--seed $(EXPLORE_SEED)) --progress 60

vectors: setup  ## write parity/vectors/ from the case table parity/cases.jsonl (tools/write_vectors.py)
	$(PY) tools/write_vectors.py

# Neither budget given: one minute. Both: whichever is reached first. Then the in-process target (fuzz-inprocess).
fuzz: setup old-bash  ## long differential run: FUZZ_MINUTES=N and/or FUZZ_EXAMPLES=N (FUZZ_KINDS=persist,resume); failures in parity/failures/
	$(WITH_BASHES) $(PY) -m parity.fuzz $(if $(FUZZ_MINUTES),--minutes $(FUZZ_MINUTES)) $(if $(FUZZ_EXAMPLES),--examples $(FUZZ_EXAMPLES)) $(if $(FUZZ_KINDS),--kinds $(FUZZ_KINDS))
	$(MAKE) --no-print-directory fuzz-inprocess

# The in-process differential target (parity/inprocess.py, issue 26): the native core against the pure reference
# in one process, coverage-guided by atheris (requirements-fuzz.txt: never installed by make test), INPROCESS_CASES
# cases per vocabulary (this checkout's, then Sage 1.3's copy), each growing its corpus in $(CORPUS)/<vocabulary>/
# (the nightly job keeps it between nights). Where atheris has no wheel (macOS, Windows) it says so and skips.
INPROCESS_CASES ?= 200000
CORPUS ?= build/fuzz-corpus
SAGE_1_3_ENV = SAGE_FLAGS_PROJECT=$(abspath $(SAGE_1_3)) PYTHONPATH=$(abspath $(SAGE_1_3))/python
.PHONY: fuzz-inprocess fuzz-coverage
$(VENV)/.fuzz-tools: requirements-fuzz.txt $(VENV)/.tools
	$(PY) -m pip install --quiet -r requirements-fuzz.txt
	touch $@

fuzz-inprocess: setup $(VENV)/.fuzz-tools  ## in-process differential fuzzing (atheris): INPROCESS_CASES per vocabulary
	@if ! $(PY) -c 'import atheris' 2>/dev/null; then echo "fuzz-inprocess: skipped: atheris does not install here"; exit 0; fi; \
	set -e; \
	$(PY) -m parity.inprocess --cases $(INPROCESS_CASES) --corpus $(CORPUS)/flags; \
	$(PY) tools/build_vocabulary.py spec/sage-1.3.18.toml $(SAGE_1_3) --native debug; \
	$(SAGE_1_3_ENV) $(PY) -m parity.inprocess --cases $(INPROCESS_CASES) --corpus $(CORPUS)/sage-1.3

# The line and branch coverage of the pure reference that replaying each vocabulary's corpus reaches.
fuzz-coverage: setup $(VENV)/.fuzz-tools  ## coverage of sage_flags/reference.py by the in-process corpora
	$(BIN)/coverage run --branch --data-file=build/.coverage-flags --include='*/sage_flags/reference.py' \
	  -m parity.inprocess --replay $(CORPUS)/flags
	$(BIN)/coverage report --data-file=build/.coverage-flags --show-missing
	$(SAGE_1_3_ENV) $(BIN)/coverage run --branch --data-file=build/.coverage-sage-1.3.18 \
	  --include='*/sage_flags/reference.py' -m parity.inprocess --replay $(CORPUS)/sage-1.3
	$(BIN)/coverage report --data-file=build/.coverage-sage-1.3.18 --show-missing

# The venv's shellcheck on PATH: actionlint then checks every `run:` script with it.
lint-workflows: $(VENV)/.tools
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/actionlint .github/workflows/*.yml
