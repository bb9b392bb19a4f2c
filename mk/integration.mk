# Workflow integration: the launcher (POSIX sh), announce.sh, SKILL.md (tests in tests/test_{announce,launcher,skill,explain}.py).
.PHONY: lint-integration which integration-tools

INTEGRATION_SH := sage/bin/sage-flags
INTEGRATION_BASH := sage/core/flag_parser/announce.sh

lint-integration: $(VENV)/.tools  ## shellcheck the launcher (as POSIX sh) and announce.sh
	$(BIN)/shellcheck -S warning -s sh $(INTEGRATION_SH)
	$(BIN)/shellcheck -S warning -x $(INTEGRATION_BASH)

which:  ## the layer sage/bin/sage-flags would use
	@sage/bin/sage-flags --which

LINT_TARGETS += lint-integration

# tests/test_announce.py checks with strace that announce.sh never forks.
integration-tools:
	@command -v strace >/dev/null || (apt-get update -qq && apt-get install -y -qq strace)

TEST_TARGETS += integration-tools
