# The bash layer (issue 3): python/sage_flags/bash/ (package data): parse.sh, batch.sh and the other entries.
# lint-shell: shellcheck (warning level) on every *.sh plus tools/lint_bash32.py (no construct newer than bash 3.2).
# What the bash tests need from the system (strace, dash, the en_US locales) is not installed here: `make test`
# skips the tests that need a missing one and names it (parity/optional.py); .ci/install-system-packages (root,
# apt) installs them, and .ci/run runs it first.
.PHONY: lint-shell old-bash
LINT_TARGETS += lint-shell
TEST_TARGETS += old-bash

# Real old bashes (issue 11): GNU bash 3.2.48 (macOS's /bin/bash) and 4.4.19, built once from their sources in
# ../shared/bash/ into $(OLD_BASH_CACHE)/<the tarball's sha256>/bash by tools/build_old_bash.sh. Another checkout
# can share a cache: make test OLD_BASH_CACHE=/path/to/cache.
# SAGE_FLAGS_BASHES (colon-separated interpreter paths, read by parity/layers.py) is what the bash tests, `make
# parity` and `make fuzz` run: those old bashes (when ../shared/bash/ is here) and the bash on PATH. Set it
# yourself to choose others (e.g. SAGE_FLAGS_BASHES=/bin/bash on macOS).
OLD_BASH_SOURCES ?= ../shared/bash
OLD_BASH_CACHE ?= build/old-bash
OLD_BASH_TARBALLS = $(foreach v,3.2.48 4.4.19,$(OLD_BASH_SOURCES)/bash-$(v).tar.gz)
OLD_BASH_PRESENT = $(wildcard $(OLD_BASH_SOURCES))
old_bash_binary = $(abspath $(OLD_BASH_CACHE))/$(firstword $(shell sha256sum $(1)))/bash
# Only those built (tools/build_old_bash.sh skips without bison): read when a recipe runs, after old-bash.
OLD_BASHES = $(if $(OLD_BASH_PRESENT),$(foreach t,$(OLD_BASH_TARBALLS),$(shell b=$(call old_bash_binary,$(t)); test -x $$b && echo $$b)))
empty :=
space := $(empty) $(empty)
SAGE_FLAGS_BASHES ?= $(subst $(space),:,$(strip $(OLD_BASHES) $(shell command -v bash)))
# The prefix of every command that runs bash tests: `$(WITH_BASHES) $(BIN)/pytest ...`
WITH_BASHES = SAGE_FLAGS_BASHES='$(SAGE_FLAGS_BASHES)'

SHELL_SOURCES = $(shell find . -name '*.sh' -not -path './.git/*' -not -path './.venv/*' -not -path './target/*' -not -path './build/*' | sort)

lint-shell: $(VENV)/.tools  ## shellcheck every *.sh, and the bash-3.2 lint
	$(BIN)/shellcheck -S warning -x $(SHELL_SOURCES) .ci/run .ci/install-system-packages
	$(PY) tools/lint_bash32.py $(SHELL_SOURCES)

old-bash:  ## build bash 3.2.48 and 4.4.19 from ../shared/bash/ once (cached by sha256 in OLD_BASH_CACHE)
ifeq ($(OLD_BASH_PRESENT),)
	@echo "old-bash: skipped: $(OLD_BASH_SOURCES)/ (the sources of bash 3.2.48 and 4.4.19) is not here, so the bash tests run under the system bash only"
else
	@for tarball in $(OLD_BASH_TARBALLS); do tools/build_old_bash.sh "$$tarball" "$(OLD_BASH_CACHE)" || exit 1; done
	@echo "old-bash: SAGE_FLAGS_BASHES=$(SAGE_FLAGS_BASHES)"
endif
