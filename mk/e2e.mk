# make e2e: the Claude Code hook and the skill through the real Claude Code CLI (issues 28, 29), offline.
# tests/e2e/test_claude_code.py builds a Sage project from the bundle (make bundle), runs the CLI that PyPI's
# claude-agent-sdk bundles on /build prompts, and reads what the model and the person got from its transcript.
# Not part of `make test` (the CLI is ~380 MB): .ci/run calls it after `make test`. The CLI's venv is cached
# under build/ and rebuilt only when requirements-e2e.txt changes.
.PHONY: e2e

E2E_VENV := build/e2e-venv
E2E_PY := $(E2E_VENV)/bin/python

$(E2E_VENV)/.installed: requirements-e2e.txt
	rm -rf $(E2E_VENV)
	$(SYSTEM_PYTHON) -m venv $(E2E_VENV)
	$(E2E_PY) -m pip install --quiet --no-deps -r requirements-e2e.txt
	touch $@

# The CLI's path is found without importing the SDK (its dependencies are not installed).
E2E_CLAUDE = $$($(E2E_PY) -c 'import importlib.util as u, pathlib as p; \
  print(p.Path(u.find_spec("claude_agent_sdk").origin).parent / "_bundled" / "claude")')

# The Sage stage (issue 32): Sage 1.3.21 and 1.1.5 installed by their own installer (../shared/sage/), adopted,
# `sage update`, an upgrade and back, Sage's gates with the bundle, and whole turns through the CLI against a
# local stand-in for the Messages API. Where ../shared/sage/ is missing it skips, naming it (CI=true: fails).
E2E_TESTS := tests/e2e/test_claude_code.py tests/e2e/test_adopt_sage.py tests/e2e/test_sage_claude_code.py

e2e: $(E2E_VENV)/.installed $(BUNDLE) $(NATIVE_EXE) $(VENV)/.installed  ## the hook, the skill and adopt through the real Claude Code CLI, offline
	SAGE_FLAGS_E2E_CLAUDE="$(E2E_CLAUDE)" SAGE_FLAGS_E2E_BUNDLE=$(abspath $(BUNDLE)) \
	  SAGE_FLAGS_E2E_NATIVE_EXE=$(abspath $(NATIVE_EXE)) \
	  $(BIN)/pytest -n 0 $(E2E_TESTS)
