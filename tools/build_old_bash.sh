#!/usr/bin/env bash
# Builds GNU bash from a source tarball of ../shared/bash/ into a cache folder keyed by the
# tarball's sha256, once: later calls print the cached binary's path and do nothing else.
#   tools/build_old_bash.sh TARBALL CACHE_DIR   -> prints CACHE_DIR/<sha256>/bash
# Settings from ../shared/bash/README.md (gcc 12 needs the old-C flags; bison regenerates y.tab.*). Without bison
# or cc it builds nothing and says so (tests/test_old_bashes.py then names the bashes missing).
set -euo pipefail

main() {
    local tarball=$1 cache=$2 sha dest work
    sha=$(sha256sum "$tarball")
    sha=${sha%% *}
    dest=$cache/$sha
    if [[ -x $dest/bash ]]; then
        printf '%s\n' "$dest/bash"
        return 0
    fi
    if ! command -v bison >/dev/null || ! command -v cc >/dev/null; then
        # Never installed here (.ci/install-system-packages does, as root).
        printf 'old-bash: %s not built: bison and a C compiler are needed (the build regenerates its parser)\n' "$tarball" >&2
        return 0
    fi
    mkdir -p "$cache"
    work=$(mktemp -d "$cache/.build.XXXXXX")
    tar -xzf "$tarball" -C "$work" --strip-components=1
    rm -f "$work/y.tab.c" "$work/y.tab.h"
    (
        cd "$work"
        CFLAGS='-O2 -std=gnu89 -fcommon -Wno-implicit-function-declaration -Wno-implicit-int -Wno-int-conversion -Wno-incompatible-pointer-types' \
            ./configure --without-bash-malloc --disable-nls >build.log 2>&1
        make -j2 >>build.log 2>&1
    ) || {
        tail -n 30 "$work/build.log" >&2
        return 1
    }
    mkdir -p "$dest.tmp"
    cp "$work/bash" "$dest.tmp/bash"
    rm -rf "$work" "$dest"
    mv "$dest.tmp" "$dest" # a half-built cache entry never looks finished
    printf '%s\n' "$dest/bash"
}

main "$@"
