# The differential fuzzer (issue 5): `make parity` (derandomized, part of `make test`), `make fuzz` (the long
# random run), and actionlint over the GitHub workflows (part of `make lint`).
.PHONY: parity fuzz lint-workflows
TEST_TARGETS += parity
LINT_TARGETS += lint-workflows
FUZZ_MINUTES ?=
FUZZ_EXAMPLES ?=

# Both vocabularies: this checkout's, then Sage 1.3's build (tests/test_vocabulary_sage_1_3.py builds the same
# copy; the fuzzer's reference and layers are the copy's: PYTHONPATH and SAGE_FLAGS_PROJECT name it).
# Then one short run with a fresh seed, so that every CI run also tries inputs no run tried before; it prints its
# seed, and on a divergence the command that replays it exactly (python -m parity.fuzz --seed N --examples M).
SAGE_1_3 := build/sage-1.3
EXPLORE_EXAMPLES ?= 1500
parity: setup old-bash  ## differential fuzzer: fixed seeds (both vocabularies), then a fresh seed (printed)
	$(WITH_BASHES) $(BIN)/pytest -s parity/test_parity.py
	$(PY) tools/build_vocabulary.py spec/sage-1.3.toml $(SAGE_1_3) --native debug
	$(WITH_BASHES) SAGE_FLAGS_PROJECT=$(abspath $(SAGE_1_3)) PYTHONPATH=$(abspath $(SAGE_1_3))/python \
	  $(BIN)/pytest -s parity/test_parity.py
	$(WITH_BASHES) $(PY) -m parity.fuzz --examples $(EXPLORE_EXAMPLES) --progress 60

# Neither budget given: one minute. Both: whichever is reached first.
fuzz: setup old-bash  ## long differential run: FUZZ_MINUTES=N and/or FUZZ_EXAMPLES=N; failures in parity/failures/
	$(WITH_BASHES) $(PY) -m parity.fuzz $(if $(FUZZ_MINUTES),--minutes $(FUZZ_MINUTES)) $(if $(FUZZ_EXAMPLES),--examples $(FUZZ_EXAMPLES))

# The venv's shellcheck on PATH: actionlint then checks every `run:` script with it.
lint-workflows: $(VENV)/.tools
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/actionlint .github/workflows/*.yml
