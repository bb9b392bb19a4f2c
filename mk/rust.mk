# Rust core and PyO3 binding (issue 4): lint and cargo tests (the native executable: mk/cli.mk; the wheels:
# mk/dist.mk). The native extension itself is built into .venv by the $(VENV)/.installed rule (maturin develop).
.PHONY: lint-rust test-rust
LINT_TARGETS += lint-rust
TEST_TARGETS += test-rust

lint-rust:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

# The binding crate has no Rust tests (tests/test_native.py tests it through Python).
test-rust:  ## cargo tests of the Rust core, every vector in-process included
	cargo test --package sage-flags-core --locked

