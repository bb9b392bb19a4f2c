# shellcheck shell=bash
# announce.sh: the bash layer of `sage-flags announce` (docs/SPEC.md, SKILL.md).
#
#   bash python/sage_flags/bash/announce.sh WORKFLOW ARGUMENTS... [--config-path PATH]
#   bash python/sage_flags/bash/announce.sh WORKFLOW [--config-path PATH] --stdin < ARGUMENTS
#
# prints the line the workflow shows its user and exits like parse.sh:
#   Sage → build workflow. Modes: --quality-locked, --autonomous (config)    status 0
#   Note: --<name>=9 exceeds the hard cap; clamped to 4.    (one per note of a mode with a value)
#   Goal: Ship dark mode                                  (only when the goal is not empty)
#   Sage: <error message>                                                     status 1
# and status 2 with one stderr line for a usage error: WORKFLOW not matching
# ^[a-z][a-z0-9-]*$, or --config-path without a value (C3).
# Text from the user is terminal-safe: C0 controls but TAB and LF, DEL and the
# C1 controls (U+0080-U+009F) are written as \u00XX (A4); bidi controls and
# U+2028/U+2029 as \uXXXX, and each LF is followed by six spaces (A5).
#
# Follows parse.sh's rules: bash 3.2, no fork or external command, set -u,
# LC_ALL=C (all of it set by sourcing parse.sh, whose functions do the work).

# The three fixed lines of every entry (see parse.sh).
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=python/sage_flags/bash/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }
# shellcheck source=python/sage_flags/bash/parse.sh
. "$sage_flags_dir/parse.sh"

# The bytes to escape, and their escaped forms, built once with builtins only:
# C0 but TAB (0x09) and LF (0x0a), and DEL; then the C1 controls, which are
# 0xc2 0x80-0x9f in UTF-8 (the text is valid UTF-8: parse checked it, C10) (A4);
# then the bidi controls and U+2028/U+2029 (3 bytes; U+061C 2), and LF, which
# gets six spaces after it (A5).
# Filled into the caller's arrays unsafe and escaped, on the first text that needs them.
sage_flags__build_escapes() {
    local code hex byte
    for ((code = 1; code < 0xa0; code++)); do
        if ((code == 0x09 || code == 0x0a || (code >= 0x20 && code < 0x7f))); then
            continue
        fi
        printf -v hex '%02x' "$code"
        if ((code < 0x80)); then
            printf -v byte '%b' "\\x$hex"
        else
            printf -v byte '%b' "\\xc2\\x$hex"
        fi
        unsafe[${#unsafe[@]}]=$byte
        escaped[${#escaped[@]}]="\\u00$hex"
    done
    for hex in 061c:d89c 200e:e2808e 200f:e2808f 2028:e280a8 2029:e280a9 202a:e280aa 202b:e280ab \
        202c:e280ac 202d:e280ad 202e:e280ae 2066:e281a6 2067:e281a7 2068:e281a8 2069:e281a9; do
        code=${hex#*:}
        printf -v byte '%b' "\\x${code:0:2}\\x${code:2:2}${code:4:2}"
        if ((${#code} == 6)); then
            printf -v byte '%b' "\\x${code:0:2}\\x${code:2:2}\\x${code:4:2}"
        fi
        unsafe[${#unsafe[@]}]=$byte
        escaped[${#escaped[@]}]="\\u${hex%%:*}"
    done
    unsafe[${#unsafe[@]}]=$'\n'
    escaped[${#escaped[@]}]=$'\n      '
}

# Whether $1 holds nothing to escape (A4, A5).
sage_flags__is_safe() {
    [[ $1 != *[$'\x01'-$'\x08'$'\x0a'-$'\x1f'$'\x7f']* && $1 != *$'\xc2'[$'\x80'-$'\x9f']* &&
        $1 != *$'\xe2\x80'[$'\x8e'$'\x8f'$'\xa8'-$'\xae']* && $1 != *$'\xe2\x81'[$'\xa6'-$'\xa9']* &&
        $1 != *$'\xd8\x9c'* ]]
}

# OUT STRING: STRING with every unsafe control escaped.
sage_flags_terminal_safe() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local i safe=''
    local -a unsafe escaped present # present: the unsafe bytes this text holds; each piece looks for these only
    if sage_flags__is_safe "$2"; then
        printf -v "$1" '%s' "$2"
        return 0
    fi
    unsafe=() escaped=() present=()
    sage_flags__build_escapes
    for ((i = 0; i < ${#unsafe[@]}; i++)); do
        if [[ $2 == *"${unsafe[i]}"* ]]; then
            present[${#present[@]}]=$i
        fi
    done
    sage_flags__safe_slices "$2" "$SAGE_FLAGS_CHUNK"
    printf -v "$1" '%s' "$safe"
}

# $1 taken in slices of $2 bytes, appended to the caller's `safe`, never cut inside a C1
# control: linear in the length (C21) on every bash, as parse.sh's JSON
# escaping: a chunk that needs escapes goes on in pieces of 64 bytes before
# bash 5, and a piece through one ${s//p/r} per unsafe byte it holds.
sage_flags__safe_slices() {
    local s=$1 size=$2 c n off=0 len i extra piece=$((BASH_VERSINFO[0] < 5 ? 64 : SAGE_FLAGS_CHUNK))
    n=${#s}
    while ((off < n)); do
        c=${s:off:size}
        len=${#c}
        # Never cut inside a character that may need an escape (2 or 3 bytes; lead bytes
        # 0xc2, 0xd8, 0xe2 are never continuation bytes: the text is valid UTF-8).
        extra=0
        case $c in
            *$'\xe2') extra=2 ;;
            *[$'\xc2'$'\xd8'] | *$'\xe2'[$'\x80'$'\x81']) extra=1 ;;
        esac
        if ((extra > 0 && off + len < n)); then
            c=${s:off:len+extra}
            len=${#c}
        fi
        off=$((off + len))
        if sage_flags__is_safe "$c"; then
            safe+=$c
        elif ((size > piece)); then
            sage_flags__safe_slices "$c" "$piece"
        else
            for i in ${present[@]+"${present[@]}"}; do
                c=${c//"${unsafe[i]}"/${escaped[i]}}
            done
            safe+=$c
        fi
    done
    return 0
}

sage_flags_announce_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local workflow line j sep=' Modes: ' shown arrow=$'\xe2\x86\x92' # U+2192, as UTF-8 bytes (LC_ALL=C)
    if (($# == 0)); then
        printf '%s\n' 'announce.sh: a WORKFLOW name is required (usage: announce.sh WORKFLOW ARGUMENTS... [--config-path PATH])' >&2
        return 2
    fi
    workflow=$1
    shift
    if [[ $workflow != [a-z]* || $workflow == *[!a-z0-9-]* ]]; then
        printf '%s\n' 'announce.sh: the WORKFLOW name must match ^[a-z][a-z0-9-]*$' >&2
        return 2
    fi
    if ! sage_flags_arguments ${1+"$@"}; then
        printf '%s\n' "announce.sh: $SAGE_FLAGS_USAGE_ERROR (usage: announce.sh WORKFLOW ARGUMENTS... [--config-path PATH])" >&2
        return 2
    fi
    sage_flags_load_defaults "$SAGE_FLAGS_CONFIG_PATH"
    if ! sage_flags_parse "$SAGE_FLAGS_ARGUMENTS"; then
        sage_flags_terminal_safe shown "$SAGE_FLAGS_ERROR"
        sage_flags_write "Sage: $shown"$'\n' || return
        return 1
    fi
    line="Sage $arrow $workflow workflow."
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        if [[ ${SAGE_FLAGS_VALUES[j]} == true ]]; then
            line+="$sep--${SAGE_FLAGS_MODE_NAMES[j]}"
            if [[ -n ${SAGE_FLAGS_VALUE_FIELDS[j]-} ]]; then
                line+="=${SAGE_FLAGS_NUMBERS[j]}"
            fi
            if [[ ${SAGE_FLAGS_SOURCES[j]} == config ]]; then
                line+=' (config)'
            fi
            sep=', '
        fi
    done
    line+=$'\n' # the whole text is written at once (H9)
    for j in ${SAGE_FLAGS_VALUE_FIELDS[@]+"${!SAGE_FLAGS_VALUE_FIELDS[@]}"}; do
        if [[ -n ${SAGE_FLAGS_NOTES[j]} ]]; then
            line+="Note: ${SAGE_FLAGS_NOTES[j]}"$'\n' # digits and ASCII only: terminal-safe
        fi
    done
    if [[ -n $SAGE_FLAGS_GOAL ]]; then
        sage_flags_terminal_safe shown "$SAGE_FLAGS_GOAL"
        line+="Goal: $shown"$'\n' # TAB raw; LF raw, then the indent (A5)
    fi
    sage_flags_write "$line"
}

main() {
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death
    sage_flags_announce_main ${1+"$@"}
}

main ${1+"$@"} # the set -u safe "$@" of bash < 4
