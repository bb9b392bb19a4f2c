# make bench: every layer's speed and scaling side by side (issues 6, 19) -> docs/PERFORMANCE.md, docs/performance.json
# and docs/scaling.png. Not part of `make test`: timing targets are measured and published here, never asserted in tests.
# BASELINE=REF (a commit, branch or tag): REF is built by its own `make setup` in a temporary git worktree and the kept
# rows (issue 42) are timed beside it, interleaved; the command fails (status 1, one line per row) when a kept row is
# more than 10% worse than the baseline's, e.g. `make bench-quick BASELINE=main`.
.PHONY: bench bench-quick bench-tools
BASELINE ?=
BENCH_BASELINE = $(if $(BASELINE),--baseline '$(BASELINE)')

bench-tools: $(VENV)/.bench-tools
	@command -v hyperfine >/dev/null || ($(APT_GET) update -qq && $(APT_GET) install -y -qq hyperfine)

$(VENV)/.bench-tools: requirements-bench.txt $(VENV)/.tools
	$(PY) -m pip install --quiet -r requirements-bench.txt
	touch $@

bench: setup bench-tools old-bash  ## time every layer (cold start, in-process, scaling, batch) into docs/PERFORMANCE.md; BASELINE=REF beside REF
	$(WITH_BASHES) $(PY) tools/bench.py $(BENCH_BASELINE)

bench-quick: setup bench-tools old-bash  ## the bench with 3 runs per command, written to build/bench/ (tries the harness out); BASELINE=REF too
	$(WITH_BASHES) $(PY) tools/bench.py --quick --out-dir build/bench $(BENCH_BASELINE)
