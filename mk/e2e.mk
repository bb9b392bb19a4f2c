# make e2e: the Claude Code hook and the skill through the real Claude Code CLI (issues 28, 29), and the Codex hook
# through the real Codex CLI (issue 36), offline.
# tests/e2e/test_claude_code.py builds a Sage project from the bundle (make bundle), runs the CLI that PyPI's
# claude-agent-sdk bundles on /build prompts, and reads what the model and the person got from its transcript.
# tests/e2e/test_codex.py runs the Codex CLI of PyPI's openai-codex-cli-bin against a stand-in for the Responses API.
# Not part of `make test` (the CLIs are ~380 and ~150 MB): .ci/run calls it after `make test`. Each CLI's venv is
# cached under build/ and rebuilt only when its requirements file changes.
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

E2E_CODEX_VENV := build/e2e-codex-venv
E2E_CODEX_PY := $(E2E_CODEX_VENV)/bin/python

# Where no wheel installs (a platform openai-codex-cli-bin has none for), .installed is not made and the Codex tests
# skip, naming this (a failure under CI=true); the next `make e2e` tries again.
$(E2E_CODEX_VENV)/.installed: requirements-e2e-codex.txt
	rm -rf $(E2E_CODEX_VENV)
	$(SYSTEM_PYTHON) -m venv $(E2E_CODEX_VENV)
	if $(E2E_CODEX_PY) -m pip install --quiet --no-deps -r requirements-e2e-codex.txt; then touch $@; \
	  else echo "e2e: the Codex CLI could not be installed here: its tests skip" >&2; fi

# The CLI's path from its package (standard library only), empty where it is not installed.
E2E_CODEX = $$(test -f $(E2E_CODEX_VENV)/.installed && \
  $(E2E_CODEX_PY) -c 'import codex_cli_bin; print(codex_cli_bin.bundled_codex_path())')

# The Sage stage (issue 32): Sage 1.3.21 and 1.1.5 installed by their own installer (../shared/sage/), adopted,
# `sage update`, an upgrade and back, Sage's gates with the bundle, and whole turns through the CLI against a
# local stand-in for the Messages API. Where ../shared/sage/ is missing it skips, naming it (CI=true: fails).
E2E_TESTS ?= tests/e2e/test_claude_code.py tests/e2e/test_codex.py tests/e2e/test_adopt_sage.py \
  tests/e2e/test_sage_claude_code.py tests/e2e/test_adopt_undo_sage.py  # `make e2e E2E_TESTS=...` runs fewer

e2e: $(E2E_VENV)/.installed $(E2E_CODEX_VENV)/.installed $(BUNDLE) $(NATIVE_EXE) $(VENV)/.installed  ## the hooks, the skill and adopt through the real Claude Code and Codex CLIs, offline
	SAGE_FLAGS_E2E_CLAUDE="$(E2E_CLAUDE)" SAGE_FLAGS_E2E_CODEX="$(E2E_CODEX)" \
	  SAGE_FLAGS_E2E_BUNDLE=$(abspath $(BUNDLE)) SAGE_FLAGS_E2E_NATIVE_EXE=$(abspath $(NATIVE_EXE)) \
	  $(BIN)/pytest -n 0 $(E2E_TESTS)
