# Rust core, PyO3 binding (issue 4) and the native executable (issue 20): lint and cargo tests (the wheels:
# mk/dist.mk). The native extension itself is built into .venv by the $(VENV)/.installed rule (maturin develop);
# the native executable for this machine into target/release/ (the parity layer "exe" and make bench run it).
.PHONY: lint-rust test-rust
NATIVE_EXE := target/release/sage-flags
LINT_TARGETS += lint-rust
TEST_TARGETS += test-rust

lint-rust:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

# The binding crate has no Rust tests (tests/test_native.py tests it through Python).
test-rust:  ## cargo tests of the Rust core, every vector in-process included
	cargo test --package sage-flags-core --locked

# cargo leaves the file's time alone when nothing changed: touch keeps make from asking again.
$(NATIVE_EXE): $(RUST_SOURCES)
	cargo build --quiet --release --locked --package sage-flags-cli
	touch $@

setup: $(NATIVE_EXE)
