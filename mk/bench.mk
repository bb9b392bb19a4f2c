# make bench: every layer's speed and scaling side by side (issues 6, 19) -> docs/PERFORMANCE.md, docs/performance.json
# and docs/scaling.png. Not part of `make test`: timing targets are measured and published here, never asserted in tests.
.PHONY: bench bench-quick bench-tools

bench-tools: $(VENV)/.bench-tools
	@command -v hyperfine >/dev/null || ($(APT_GET) update -qq && $(APT_GET) install -y -qq hyperfine)

$(VENV)/.bench-tools: requirements-bench.txt $(VENV)/.tools
	$(PY) -m pip install --quiet -r requirements-bench.txt
	touch $@

bench: setup bench-tools old-bash  ## time every layer (cold start, in-process, scaling, batch) into docs/PERFORMANCE.md
	$(WITH_BASHES) $(PY) tools/bench.py

bench-quick: setup bench-tools old-bash  ## the bench with 3 runs per command, written to build/bench/ (tries the harness out)
	$(WITH_BASHES) $(PY) tools/bench.py --quick --out-dir build/bench
