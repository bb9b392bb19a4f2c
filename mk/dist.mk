# Release artifacts (issue 13): `make dist` writes into $(DIST)/
#   the native wheel   maturin + zig: cp38-abi3, manylinux2014 (glibc 2.17+), this machine's architecture; its
#                      `sage-flags` command is the native executable (mk/cli.mk)
#   the pure wheel     hatchling (pure-wheel/pyproject.toml): py3-none-any, python/sage_flags without the core
#   the sdist          maturin sdist: pip builds the native wheel from it where cargo is on PATH
#   the bundle         tools/build_bundle.py: sage/ plus the pure package, runnable with python3 or bash alone; one
#                      for every Sage release (docs/SPEC.md B7), sage-flags-VERSION.tar.gz
# Each is a file target, rebuilt only when its sources change: `make test` builds each once, and
# tests/test_wheels.py, test_sdist.py and test_bundle.py install or unpack them fresh.
# .github/workflows/release.yml builds the same on every platform from a version tag.
.PHONY: dist wheels wheel-native wheel-pure sdist bundle wheelhouse
TEST_TARGETS += dist wheelhouse
DIST ?= dist

VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)
NATIVE_WHEEL := $(DIST)/sage_flags-$(VERSION)-cp38-abi3-manylinux2014_$(ARCH).manylinux_2_17_$(ARCH).whl
PURE_WHEEL := $(DIST)/sage_flags-$(VERSION)-py3-none-any.whl
SDIST := $(DIST)/sage_flags-$(VERSION).tar.gz
BUNDLE := $(DIST)/sage-flags-$(VERSION).tar.gz
SAGE_SOURCES := $(shell find sage -type f -not -path '*/__pycache__/*')
# Package data both wheels carry: every file in a folder of the package (skill/: docs/SPEC.md G8; bash/: B7).
PACKAGE_DATA := $(shell find python/sage_flags -mindepth 2 -type f -not -path '*/__pycache__/*')
PACKAGE_INPUTS := pyproject.toml README.md $(PYTHON_SOURCES) $(PACKAGE_DATA)

dist: $(NATIVE_WHEEL) $(PURE_WHEEL) $(SDIST) $(BUNDLE)  ## every release artifact into $(DIST)/ (wheels, sdist, bundle)
wheels: wheel-native wheel-pure  ## both wheels into $(DIST)/
wheel-native: $(NATIVE_WHEEL)  ## the native wheel (cp38-abi3, manylinux2014, native sage-flags) into $(DIST)/
wheel-pure: $(PURE_WHEEL)  ## the pure-Python wheel (py3-none-any) into $(DIST)/
sdist: $(SDIST)  ## the source distribution into $(DIST)/
bundle: $(BUNDLE)  ## the vendorable sage/ directory (tar.gz), one for every Sage release, into $(DIST)/

# The native wheel: maturin builds the extension into a staging directory, tools/wheel_add_executable.py makes
# the native executable (mk/cli.mk) its `sage-flags` command, and the finished wheel moves into $(DIST)/.
# The venv's bin first on PATH: maturin runs zig as `python3 -m ziglang` (ziglang is pinned in requirements-dev.txt).
NATIVE_STAGING := build/native-wheel
$(NATIVE_WHEEL): $(VENV)/.tools $(PACKAGE_INPUTS) $(RUST_SOURCES) $(NATIVE_EXE) tools/wheel_add_executable.py
	rm -rf $(NATIVE_STAGING)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/maturin build --quiet --release --locked --zig \
	  --compatibility manylinux2014 --interpreter $(PY) --out $(NATIVE_STAGING)
	$(PY) tools/wheel_add_executable.py $(NATIVE_STAGING)/$(notdir $@) $(NATIVE_EXE)
	mkdir -p $(DIST) && mv $(NATIVE_STAGING)/$(notdir $@) $@

# --no-isolation: hatchling comes from the venv (pinned), so the build needs no network.
$(PURE_WHEEL): $(VENV)/.tools $(PACKAGE_INPUTS) pure-wheel/pyproject.toml pure-wheel/hatch_build.py
	$(PY) -m build --no-isolation --wheel --outdir $(DIST) pure-wheel >/dev/null

$(SDIST): $(VENV)/.tools $(PACKAGE_INPUTS) $(RUST_SOURCES)
	$(BIN)/maturin sdist --out $(DIST)

$(BUNDLE): $(PURE_WHEEL) tools/build_bundle.py $(SAGE_SOURCES)
	$(PY) tools/build_bundle.py --pure-wheel $(PURE_WHEEL) --out $(DIST) >/dev/null

# What pip needs to build the sdist offline in tests/test_sdist.py (--no-index, build isolation): the pinned maturin.
WHEELHOUSE := build/wheelhouse
wheelhouse: $(WHEELHOUSE)/.maturin
$(WHEELHOUSE)/.maturin: requirements-dev.txt | $(VENV)/.tools
	$(PY) -m pip download --quiet --only-binary :all: --no-deps --dest $(WHEELHOUSE) \
	  "$$(grep '^maturin==' requirements-dev.txt)"
	touch $@
