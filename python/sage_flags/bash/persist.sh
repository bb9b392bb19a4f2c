# shellcheck shell=bash
# persist.sh: `sage-flags persist MANIFEST` where there is no python3 (docs/SPEC.md P12).
#
#   bash python/sage_flags/bash/parse.sh "$ARGUMENTS" | bash python/sage_flags/bash/persist.sh MANIFEST
#
# Recording the modes in a cycle manifest's YAML front matter has one
# implementation, Python's (python/sage_flags/manifest.py: it knows where
# `flags:` is as YAML would, or refuses). This script records nothing: it reads
# one line from stdin and, when that line has a contract line's shape, echoes it
# on stdout (P2) and exits 3 (the manifest untouched) with one stderr line
# saying that recording the modes needs python3; the workflow then writes the
# `flags:` block itself, as it did before sage-flags (the skill says how). A line
# that carries an error is echoed with status 1 (nothing to record, as Python);
# anything else on stdin, or an argv other than one MANIFEST, is status 2 with
# nothing on stdout (P1). The manifest is never opened.

# The three fixed lines of every entry (see parse.sh).
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=python/sage_flags/bash/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }
# shellcheck source=python/sage_flags/bash/parse.sh
. "$sage_flags_dir/parse.sh"

sage_flags_persist_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local line='' chunk='' more=0 limit=1048576 usage='(usage: persist.sh MANIFEST < line)'
    if (($# != 1)); then
        printf '%s\n' "persist.sh: persist takes exactly one MANIFEST path $usage" >&2
        return 2
    fi
    # On a terminal `read -d ''` turns line editing off (Ctrl-D would be a byte, not the end): refused, as I5.
    if [[ -t 0 ]]; then
        printf '%s\n' "persist.sh: standard input is a terminal; pipe the contract line in $usage" >&2
        return 2
    fi
    # P1: read in chunks and never past the bound, nor past a NUL or a second line (endless input ends at once).
    while IFS= read -r -d '' -n 65536 chunk 2>/dev/null; do
        line+=$chunk chunk=''
        if ((${#line} % 65536 || ${#line} > limit)) || [[ $line == *$'\n'?* ]]; then
            more=1 # a short chunk stopped at a NUL
            break
        fi
    done
    line+=$chunk
    if ((more)) || [[ $line != '{"'*$'}\n' || $line == *$'\n'?* ]]; then
        printf '%s\n' "persist.sh: stdin is not one contract line (the JSON line parse or resume prints)" >&2
        return 2
    fi
    # A string member holds no unescaped quote, so `"error": "` appears only as the member itself (C16, C17).
    if [[ $line == *'"error": "'* ]]; then
        sage_flags_write "$line" || return
        return 1
    fi
    printf '%s\n' "persist.sh: recording the modes needs python3 (the bash layer has no YAML reader); the manifest is untouched: write its flags: block yourself" >&2
    sage_flags_write "$line" || return
    return 3
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death (not when sourced)
    sage_flags_persist_main ${1+"$@"}
    exit
fi
