# The differential fuzzer (issue 5): `make parity` (derandomized, part of `make test`), `make fuzz` (the long
# random run), and actionlint over the GitHub workflows (part of `make lint`).
.PHONY: parity fuzz lint-workflows
TEST_TARGETS += parity
LINT_TARGETS += lint-workflows
FUZZ_MINUTES ?=
FUZZ_EXAMPLES ?=

parity: setup old-bash  ## differential fuzzer, fixed seeds: a few thousand examples through every layer (< 3 min)
	$(WITH_BASHES) $(BIN)/pytest -s parity/test_parity.py

# Neither budget given: one minute. Both: whichever is reached first.
fuzz: setup old-bash  ## long differential run: FUZZ_MINUTES=N and/or FUZZ_EXAMPLES=N; failures in parity/failures/
	$(WITH_BASHES) $(PY) -m parity.fuzz $(if $(FUZZ_MINUTES),--minutes $(FUZZ_MINUTES)) $(if $(FUZZ_EXAMPLES),--examples $(FUZZ_EXAMPLES))

# The venv's shellcheck on PATH: actionlint then checks every `run:` script with it.
lint-workflows: $(VENV)/.tools
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/actionlint .github/workflows/*.yml
