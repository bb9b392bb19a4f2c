# Workflow integration: the launcher (POSIX sh), announce.sh, the flag-parser skill (tests in
# tests/test_{announce,launcher,skill,skill_templates,skill_document,explain}.py).
.PHONY: lint-integration lint-skill which
SKILL_DIR := sage/core/capabilities/orchestration/flag-parser

# announce.sh is a *.sh: lint-shell (mk/bash.mk) checks it.
lint-integration: $(VENV)/.tools  ## shellcheck the launcher (POSIX sh)
	$(BIN)/shellcheck -S warning -s sh sage/bin/sage-flags

which:  ## the layer sage/bin/sage-flags would use
	@sage/bin/sage-flags --which

# The Agent Skills reference validator (skills-ref): frontmatter fields, name = the directory's name.
lint-skill: $(VENV)/.tools  ## validate the flag-parser skill (agentskills validate)
	$(BIN)/agentskills validate $(SKILL_DIR)

LINT_TARGETS += lint-integration lint-skill
# tests/test_announce.py checks with strace that announce.sh never forks (skipped without strace: parity/optional.py).
