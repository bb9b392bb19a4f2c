# persist / resume (issue 8): python/sage_flags/manifest.py, python/sage_flags/bash/{persist,resume}.sh.
# Their vectors, fuzzers, concurrency and kill -9 tests run in `make test` (tests/test_manifest*.py, small counts);
# manifest-stress runs the concurrency and crash tests with the counts quoted in docs (override on the command line).
.PHONY: manifest-stress
STRESS_ROUNDS ?= 25
CRASH_RUNS ?= 300

manifest-stress: setup old-bash  ## concurrency (STRESS_ROUNDS x 20 writers) and kill -9 (CRASH_RUNS) tests of persist, with counts
	$(WITH_BASHES) SAGE_FLAGS_CONCURRENCY_ROUNDS=$(STRESS_ROUNDS) SAGE_FLAGS_CRASH_RUNS=$(CRASH_RUNS) \
	  $(BIN)/pytest -p no:xdist -s tests/test_manifest_crash.py tests/test_manifest.py -k 'kill_9 or concurrent'
