# Workflow integration: the launcher (POSIX sh), announce.sh, the flag-parser skill (tests in
# tests/test_{announce,launcher,skill,skill_templates,skill_document,explain}.py).
.PHONY: lint-integration lint-skill

# announce.sh is a *.sh: lint-shell (mk/bash.mk) checks it.
lint-integration: $(VENV)/.tools  ## shellcheck the launcher (POSIX sh)
	$(BIN)/shellcheck -S warning -s sh sage/bin/sage-flags


# The Agent Skills reference validator (skills-ref): frontmatter fields, name = the directory's name. The skill is
# package data only: tests/skill_files.py renders the default vocabulary's into build/skill/ and prints where.
lint-skill: $(VENV)/.installed  ## validate the flag-parser skill (agentskills validate)
	$(BIN)/agentskills validate "$$($(PY) tests/skill_files.py)"

LINT_TARGETS += lint-integration lint-skill
# tests/test_announce.py checks with strace that announce.sh never forks (skipped without strace: parity/optional.py).
