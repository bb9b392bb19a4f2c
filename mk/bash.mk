# The bash layer (issue 3): sage/core/flag_parser/parse.sh and batch.sh.
# lint-shell: shellcheck (warning level) on every *.sh plus tools/lint_bash32.py (no construct newer than bash 3.2).
# bash-test-tools: what tests/test_bash.py and the bash vectors need on the machine: strace (the no-fork test) and
# the en_US.UTF-8 / en_US.ISO-8859-1 locales (C20 vectors; bash itself warns on stderr about a missing locale
# before any script runs, so the locale has to exist).
.PHONY: lint-shell bash-test-tools
LINT_TARGETS += lint-shell
TEST_TARGETS += bash-test-tools

SHELL_SOURCES = $(shell find . -name '*.sh' -not -path './.git/*' -not -path './.venv/*' -not -path './target/*' -not -path './build/*' | sort)

lint-shell: $(VENV)/.tools  ## shellcheck every *.sh, and the bash-3.2 lint
	$(BIN)/shellcheck -S warning -x $(SHELL_SOURCES)
	$(PY) tools/lint_bash32.py $(SHELL_SOURCES)

bash-test-tools:
	@command -v strace >/dev/null || ($(APT_GET) update -qq && $(APT_GET) install -y -qq strace)
	@command -v localedef >/dev/null && test -d /usr/share/i18n/charmaps \
	  || ($(APT_GET) update -qq && $(APT_GET) install -y -qq locales)
	@for spec in en_US.UTF-8:UTF-8:en_US.utf8 en_US.ISO-8859-1:ISO-8859-1:en_US.iso88591; do \
	  name=$${spec%%:*}; rest=$${spec#*:}; charset=$${rest%%:*}; listed=$${rest#*:}; \
	  locale -a 2>/dev/null | grep -qx "$$listed" || localedef -i en_US -f "$$charset" "$$name" || exit 1; \
	done
