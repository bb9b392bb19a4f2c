# make bench: every layer's speed and scaling side by side (issue 6) -> docs/PERFORMANCE.md, docs/performance.json.
# Not part of `make test`: timing targets are measured and published here, never asserted in tests.
.PHONY: bench bench-quick bench-tools

bench-tools:
	@command -v hyperfine >/dev/null || ($(APT_GET) update -qq && $(APT_GET) install -y -qq hyperfine)

bench: setup bench-tools  ## time every layer present (cold start, in-process, scaling, batch) into docs/PERFORMANCE.md
	$(PY) tools/bench.py

bench-quick: setup bench-tools  ## the bench with 3 runs per cell, written to build/bench/ (tries the harness out)
	$(PY) tools/bench.py --quick --out-dir build/bench
