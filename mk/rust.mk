# Rust core and PyO3 binding (issue 4): lint, cargo tests, and the two wheels.
# The native extension itself is built into .venv by the $(VENV)/.installed rule (maturin develop).
.PHONY: lint-rust test-rust wheels wheel-native wheel-pure
LINT_TARGETS += lint-rust
TEST_TARGETS += test-rust
DIST ?= dist

lint-rust:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

# The binding crate has no Rust tests (tests/test_native.py tests it through Python).
test-rust:  ## cargo tests of the Rust core, every vector in-process included
	cargo test --package sage-flags-core --locked

# -i: the same interpreter as `maturin develop`, so cargo reuses that release build.
wheel-native: $(VENV)/.tools  ## the native wheel (cp38-abi3, this platform) into $(DIST)/
	$(BIN)/maturin build --release --locked --interpreter $(PY) --out $(DIST)

wheel-pure: $(VENV)/.tools  ## the pure-Python wheel (py3-none-any) into $(DIST)/
	$(PY) tools/build_pure_wheel.py --out $(DIST)

wheels: wheel-native wheel-pure  ## both wheels into $(DIST)/
