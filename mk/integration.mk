# Workflow integration: the launcher (POSIX sh), announce.sh, SKILL.md (tests in tests/test_{announce,launcher,skill,explain}.py).
.PHONY: lint-integration which

# announce.sh is a *.sh: lint-shell (mk/bash.mk) checks it.
lint-integration: $(VENV)/.tools  ## shellcheck the launcher (POSIX sh)
	$(BIN)/shellcheck -S warning -s sh sage/bin/sage-flags

which:  ## the layer sage/bin/sage-flags would use
	@sage/bin/sage-flags --which

LINT_TARGETS += lint-integration
# tests/test_announce.py checks with strace that announce.sh never forks (skipped without strace: parity/optional.py).
