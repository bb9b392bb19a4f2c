# The native `sage-flags` executable (issue 20, crates/sage-flags-cli), built once for this machine into
# $(NATIVE_EXE): the parity layer "exe", make bench and the native wheel (mk/dist.mk) all run this build.
# On Linux it links glibc statically (crt-static): no dynamic loader or library at start-up, so it starts about
# as fast as /bin/true, and it asks nothing of the user's system but a kernel >= 3.2 (auditwheel checks it
# inside the manylinux2014 wheel). Elsewhere it is the platform's usual build, as `cargo install` makes it.
ARCH := $(shell uname -m)
NATIVE_EXE := target/native/sage-flags
ifeq ($(shell uname -s),Linux)
NATIVE_EXE_TARGET := $(ARCH)-unknown-linux-gnu
NATIVE_EXE_RUSTFLAGS := -C target-feature=+crt-static
else
NATIVE_EXE_TARGET := $(shell rustc -vV | sed -n 's/^host: //p')
NATIVE_EXE_RUSTFLAGS :=
endif

# Its own target directory: other RUSTFLAGS than the rest of target/, so the builds never undo each other.
$(NATIVE_EXE): $(RUST_SOURCES)
	RUSTFLAGS="$(NATIVE_EXE_RUSTFLAGS)" cargo build --quiet --release --locked --package sage-flags-cli \
	  --target $(NATIVE_EXE_TARGET) --target-dir target/native
	cp target/native/$(NATIVE_EXE_TARGET)/release/sage-flags $@

setup: $(NATIVE_EXE)
