# shellcheck shell=bash
# parse.sh: the bash layer of the sage-flags contract (docs/SPEC.md, C1-C21).
#   bash sage/core/flag_parser/parse.sh ARGUMENTS... [--config-path PATH]
#   bash sage/core/flag_parser/parse.sh [--config-path PATH] --stdin < ARGUMENTS   (I1-I6)
# prints one JSON line (C16), exits 0, 1 (E1-E4) or 2 (C3). Sourced (by
# batch.sh and the other bash entries) it only defines the API below.
# bash 3.2 safe, no fork or external command, linear (C21), C20-proof; see
# tests/test_bash.py. bash spends microseconds on every byte and command of a
# script it reads, so this file is the common path only (short ASCII input, no
# JSON escape, no error); parse_large.sh has the rest and is sourced on first need.
#
# Function API (stable; names prefixed sage_flags_ / SAGE_FLAGS_):
#   sage_flags_split_argv ARGV...  C1-C3: sets SAGE_FLAGS_ARGUMENTS (operands joined
#       by a space), SAGE_FLAGS_OPERAND_COUNT, SAGE_FLAGS_CONFIG_PATH (empty when none),
#       SAGE_FLAGS_USAGE_ERROR (empty, or the message), SAGE_FLAGS_FROM_STDIN (1 when the
#       item --stdin came before any --, else empty; not an operand). Returns 0, or 2 on a usage error.
#   sage_flags_arguments ARGV...   C1-C3 and I1-I5 (parse, announce, resume): as split_argv,
#       then with --stdin SAGE_FLAGS_ARGUMENTS is standard input's bytes. Returns 0, or 2.
#   sage_flags_load_defaults PATH  C11-C14: sets SAGE_FLAGS_DEFAULTS, true/false per
#       SAGE_FLAGS_MODE_KEYS. Never prints, never blocks, returns 0.
#   sage_flags_parse ARGUMENTS     C5-C10, C15, C18 against SAGE_FLAGS_DEFAULTS (load
#       them first, with an empty PATH for none). Sets SAGE_FLAGS_VALUES (true/false)
#       and SAGE_FLAGS_SOURCES (flag, config, or empty for null) per mode,
#       SAGE_FLAGS_NUMBERS and SAGE_FLAGS_NOTES (empty for null) per mode that takes
#       a value (V4-V6, at the mode's index), SAGE_FLAGS_GOAL, SAGE_FLAGS_ERROR
#       (empty when none). Returns 0, or 1 on error.
#   sage_flags_render_json         C16-C17: the last parse as JSON in SAGE_FLAGS_JSON.
#   sage_flags_json_string STRING  C17: a quoted JSON string in SAGE_FLAGS_JSON_STRING.
#   sage_flags_is_utf8 STRING      C10: status 0 iff STRING is valid UTF-8.
#   sage_flags_main ARGV...        the parse entry: all of the above, output, status.
# Vocabulary (generated from spec/flags.toml): SAGE_FLAGS_MODE_KEYS (JSON keys),
# SAGE_FLAGS_MODE_NAMES (dashed flag names), SAGE_FLAGS_SUPPORTED (the E1 list),
# and for the modes that take a value, at their mode's index: SAGE_FLAGS_VALUE_FIELDS,
# SAGE_FLAGS_NOTE_FIELDS, SAGE_FLAGS_VALUE_NAMES, _DEFAULTS, _MINIMUMS, _CAPS.
# Sourcing sets LC_ALL=C, set -u -f, extglob, posix, nocasematch off; functions
# change IFS only as a local. IFS: each public function (here and in the other
# scripts) sets the default IFS as a local first, whatever the caller's: bash
# 3.2 reads a byte of IFS in a [[ == ]] or case pattern as a literal (IFS=-
# turns the range [a-z] into three bytes).

# shellcheck disable=SC2034 # the SAGE_FLAGS_ globals are the API

# C20: bytes, not characters; none of the caller's shell options matter.
LC_ALL=C
unset GLOBIGNORE BASH_COMPAT
set +o posix +e +x +v -u -f
shopt -u nocasematch nocaseglob extglob
if [[ :${BASHOPTS-}: == *:patsub_replacement:* ]]; then # bash 5.2: & in ${s//p/r}
    shopt -u patsub_replacement
fi

# BEGIN GENERATED: bash-vocabulary
# generated from spec/flags.toml by tools/generate.py (make generate); do not edit
SAGE_FLAGS_MODE_KEYS=(quality_locked autonomous)
SAGE_FLAGS_MODE_NAMES=(quality-locked autonomous)
SAGE_FLAGS_SUPPORTED='--quality-locked, --autonomous'
SAGE_FLAGS_SUGGEST_LIMIT=22 # docs/SPEC.md S7
# Modes that take a value (docs/SPEC.md V1-V8): one element each, at the mode's index.
SAGE_FLAGS_VALUE_FIELDS=()
SAGE_FLAGS_NOTE_FIELDS=()
SAGE_FLAGS_VALUE_NAMES=()
SAGE_FLAGS_VALUE_DEFAULTS=()
SAGE_FLAGS_VALUE_MINIMUMS=()
SAGE_FLAGS_VALUE_CAPS=()
SAGE_FLAGS_E2_VALUE_HINT=''
# END GENERATED: bash-vocabulary

SAGE_FLAGS_WS=$' \t\n\v\f\r' # C5; space first: "${a[*]}" joins with a space
SAGE_FLAGS_CHUNK=4096
# The longest string one ${s//p/r} may work on: bash < 5 spends O(length) per
# match (and per expansion of a long string), so long text goes through it in
# pieces there, each cut from a chunk (never from the whole text).
SAGE_FLAGS__PIECE=$((BASH_VERSINFO[0] < 5 ? 64 : SAGE_FLAGS_CHUNK))
SAGE_FLAGS_E4='Arguments are not valid UTF-8.'
SAGE_FLAGS_STDIN_LIMIT=262144 # docs/SPEC.md I4
# Longest ARGUMENTS or config (bytes) for this file's path, whose pattern
# operations cost O(length) per byte on a long token or WS run (bash 4.4:
# ~1 s at 4 KiB). Never read from the environment (C20); test-only: tests that
# source this file set -1 (all input through parse_large.sh: same bytes, the
# other path).
SAGE_FLAGS__FAST_LIMIT=1024
# Absolute: the sourcing script may cd, and `. name` would search PATH.
sage_flags__locate() {
    local IFS=$' \t\n' # see "IFS" above: case patterns too
    case $1 in
        /*) SAGE_FLAGS__LARGE=${1%/*}/parse_large.sh ;;
        */*) SAGE_FLAGS__LARGE=$PWD/${1%/*}/parse_large.sh ;;
        *) SAGE_FLAGS__LARGE=$PWD/parse_large.sh ;;
    esac
}
sage_flags__locate "${BASH_SOURCE[0]}"
SAGE_FLAGS_ARGUMENTS=
SAGE_FLAGS_OPERAND_COUNT=0
SAGE_FLAGS_CONFIG_PATH=
SAGE_FLAGS_USAGE_ERROR=
SAGE_FLAGS_DEFAULTS=()
SAGE_FLAGS_VALUES=()
SAGE_FLAGS_SOURCES=()
SAGE_FLAGS_NUMBERS=()
SAGE_FLAGS_NOTES=()
SAGE_FLAGS__GIVEN=() # V4: the digits of the first --name=N, at the mode's index
SAGE_FLAGS_GOAL=
SAGE_FLAGS_ERROR=
SAGE_FLAGS_JSON=
SAGE_FLAGS_JSON_STRING=

# Runs a function of parse_large.sh, sourced first (it redefines this one).
sage_flags__large() {
    # shellcheck source=sage/core/flag_parser/parse_large.sh
    . "$SAGE_FLAGS__LARGE" && "$@"
}

sage_flags_split_argv() {
    local IFS=' '
    local -a operands
    operands=()
    SAGE_FLAGS_CONFIG_PATH=
    SAGE_FLAGS_USAGE_ERROR=
    SAGE_FLAGS_FROM_STDIN=
    while (($# > 0)); do
        case $1 in
            --)
                shift
                operands+=("$@")
                break
                ;;
            --stdin) SAGE_FLAGS_FROM_STDIN=1 ;;
            --config-path)
                if (($# == 1)); then
                    SAGE_FLAGS_USAGE_ERROR='--config-path needs a value'
                    SAGE_FLAGS_ARGUMENTS=
                    SAGE_FLAGS_OPERAND_COUNT=0
                    return 2
                fi
                SAGE_FLAGS_CONFIG_PATH=$2
                shift
                ;;
            --config-path=*) SAGE_FLAGS_CONFIG_PATH=${1#--config-path=} ;;
            *) operands+=("$1") ;;
        esac
        shift
    done
    SAGE_FLAGS_OPERAND_COUNT=${#operands[@]}
    SAGE_FLAGS_ARGUMENTS=${operands[*]+"${operands[*]}"}
    return 0
}

sage_flags_arguments() {
    local IFS=$' \t\n' # see "IFS" above
    local status
    sage_flags_split_argv ${1+"$@"} || return 2
    if [[ -z $SAGE_FLAGS_FROM_STDIN ]]; then
        return 0
    fi
    if ((SAGE_FLAGS_OPERAND_COUNT > 0)); then
        SAGE_FLAGS_USAGE_ERROR='--stdin takes ARGUMENTS from standard input only: no operand beside it'
        return 2
    fi
    if [[ -t 0 ]]; then # I5: never wait for someone to type
        SAGE_FLAGS_USAGE_ERROR='--stdin: standard input is a terminal'
        return 2
    fi
    # I2-I4: up to a NUL, the end, or one byte past the limit. Status 0 with fewer
    # bytes: the NUL ended it; nonzero: the end (or no stdin at all: no bytes).
    SAGE_FLAGS_ARGUMENTS=
    { IFS= read -r -d '' -n $((SAGE_FLAGS_STDIN_LIMIT + 1)) SAGE_FLAGS_ARGUMENTS; } 2>/dev/null
    status=$?
    if ((${#SAGE_FLAGS_ARGUMENTS} > SAGE_FLAGS_STDIN_LIMIT)); then
        SAGE_FLAGS_USAGE_ERROR="--stdin: ARGUMENTS on standard input exceed $SAGE_FLAGS_STDIN_LIMIT bytes"
        SAGE_FLAGS_ARGUMENTS=
        return 2
    fi
    if ((status == 0)); then
        SAGE_FLAGS_ARGUMENTS=$'\xff' # I3: a NUL is E4, exactly as invalid UTF-8
    fi
    return 0
}

sage_flags_load_defaults() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local text='' i
    SAGE_FLAGS_DEFAULTS=()
    for i in ${SAGE_FLAGS_MODE_KEYS[@]+"${!SAGE_FLAGS_MODE_KEYS[@]}"}; do
        SAGE_FLAGS_DEFAULTS[i]=false
    done
    # C12: test -f follows symlinks and rejects FIFOs and devices (never
    # blocks). read -d '' succeeds only at a NUL: then no defaults.
    if [[ -z ${1-} || ! -f $1 ]] || { IFS= read -r -d '' text; } 2>/dev/null <"$1"; then
        return 0
    fi
    if ((${#text} > SAGE_FLAGS__FAST_LIMIT)); then
        sage_flags__large sage_flags__match_defaults "$text"
        return 0
    fi
    # C13-C14: without the BOM, each line is between two LFs, maybe ending in CR.
    text=$'\n'${text#$'\xef\xbb\xbf'}$'\n'
    for i in ${SAGE_FLAGS_MODE_KEYS[@]+"${!SAGE_FLAGS_MODE_KEYS[@]}"}; do
        if [[ $text == *$'\n'"${SAGE_FLAGS_MODE_KEYS[i]}: true"$'\n'* ||
            $text == *$'\n'"${SAGE_FLAGS_MODE_KEYS[i]}: true"$'\r\n'* ]]; then
            SAGE_FLAGS_DEFAULTS[i]=true
        fi
    done
    return 0
}

sage_flags_is_utf8() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    if [[ $1 != *[$'\x80'-$'\xff']* ]]; then
        return 0
    fi
    sage_flags__large sage_flags__utf8 "$1"
}

sage_flags_json_string() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    if [[ $1 != *[\"\\$'\x01'-$'\x1f']* ]]; then
        SAGE_FLAGS_JSON_STRING=\"$1\"
        return 0
    fi
    sage_flags__large sage_flags__json "$1"
}

# Token by token (C7; C8: the first error wins), fine on a short text.
sage_flags_parse() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local text=${1-} tok value i
    if ((${#text} > SAGE_FLAGS__FAST_LIMIT)); then
        sage_flags__large sage_flags__parse_large "$text"
        return
    fi
    SAGE_FLAGS_ERROR=
    SAGE_FLAGS_VALUES=() # unset: no flag for the mode yet
    SAGE_FLAGS__GIVEN=()
    if [[ $text == *[$'\x80'-$'\xff']* ]] && ! sage_flags__large sage_flags__utf8 "$text"; then
        sage_flags__large sage_flags__fail "$SAGE_FLAGS_E4"
        return 1
    fi
    if [[ $text == ["$SAGE_FLAGS_WS"]* || $text == *["$SAGE_FLAGS_WS"] ]]; then # C6
        text=${text#"${text%%[!"$SAGE_FLAGS_WS"]*}"}
        text=${text%"${text##*[!"$SAGE_FLAGS_WS"]}"}
    fi
    while [[ $text == --* ]]; do
        tok=${text%%["$SAGE_FLAGS_WS"]*}
        text=${text#"$tok"}
        text=${text#"${text%%[!"$SAGE_FLAGS_WS"]*}"}
        if [[ $tok == -- ]]; then
            break
        fi
        for i in ${SAGE_FLAGS_MODE_KEYS[@]+"${!SAGE_FLAGS_MODE_KEYS[@]}"}; do
            case $tok in
                "--${SAGE_FLAGS_MODE_NAMES[i]}") value=true ;;
                "--no-${SAGE_FLAGS_MODE_NAMES[i]}") value=false ;;
                "--${SAGE_FLAGS_MODE_NAMES[i]}="*)
                    if [[ -z ${SAGE_FLAGS_VALUE_FIELDS[i]-} ]]; then
                        continue # a mode without a value: E2
                    fi
                    sage_flags__take_value "$i" "${tok#*=}" || return 1
                    value=true
                    ;;
                *) continue ;;
            esac
            if [[ ${SAGE_FLAGS_VALUES[i]:-$value} != "$value" ]]; then
                sage_flags__large sage_flags__conflict "$i" # E3
                return 1
            fi
            SAGE_FLAGS_VALUES[i]=$value
            continue 2
        done
        sage_flags__large sage_flags__not_a_flag "$tok"
        return 1
    done
    SAGE_FLAGS_GOAL=$text
    sage_flags__resolve
}

# V2: a --name=VALUE token of mode $1 (one that takes a value). VALUE ($2) must
# be ASCII digits worth at least the mode's minimum (compared as digit strings);
# its digits without leading zeros are kept when the mode has none yet (V4).
# Status 1, with E5 set, otherwise.
sage_flags__take_value() {
    local digits=${2#"${2%%[!0]*}"}
    if [[ -z $2 || $2 == *[!0-9]* ]] || sage_flags__below "$digits" "${SAGE_FLAGS_VALUE_MINIMUMS[$1]}"; then
        sage_flags__large sage_flags__value_error "$1" "$2"
        return 1
    fi
    if [[ -z ${SAGE_FLAGS__GIVEN[$1]-} ]]; then
        SAGE_FLAGS__GIVEN[$1]=$digits
    fi
    return 0
}

# Status 0 iff the number $1 is less than $2 (digit strings without leading zeros).
sage_flags__below() {
    ((${#1} < ${#2})) || { ((${#1} == ${#2})) && [[ $1 < "$2" ]]; }
}

# C15, from SAGE_FLAGS_VALUES: true, false, or empty or unset (no flag); then
# V4-V5 for the modes that take a value, from SAGE_FLAGS__GIVEN.
sage_flags__resolve() {
    local i digits cap
    SAGE_FLAGS_SOURCES=()
    for i in ${SAGE_FLAGS_MODE_KEYS[@]+"${!SAGE_FLAGS_MODE_KEYS[@]}"}; do
        if [[ -n ${SAGE_FLAGS_VALUES[i]-} ]]; then
            SAGE_FLAGS_SOURCES[i]=flag
        elif [[ ${SAGE_FLAGS_DEFAULTS[i]-false} == true ]]; then
            SAGE_FLAGS_VALUES[i]=true
            SAGE_FLAGS_SOURCES[i]=config
        else
            SAGE_FLAGS_VALUES[i]=false
            SAGE_FLAGS_SOURCES[i]=
        fi
    done
    SAGE_FLAGS_NUMBERS=()
    SAGE_FLAGS_NOTES=()
    for i in ${SAGE_FLAGS_VALUE_FIELDS[@]+"${!SAGE_FLAGS_VALUE_FIELDS[@]}"}; do
        digits=${SAGE_FLAGS__GIVEN[i]-}
        cap=${SAGE_FLAGS_VALUE_CAPS[i]}
        SAGE_FLAGS_NOTES[i]=
        if [[ ${SAGE_FLAGS_VALUES[i]} != true ]]; then
            SAGE_FLAGS_NUMBERS[i]=0
        elif [[ -z $digits ]]; then
            SAGE_FLAGS_NUMBERS[i]=${SAGE_FLAGS_VALUE_DEFAULTS[i]}
        elif sage_flags__below "$cap" "$digits"; then # V5
            SAGE_FLAGS_NUMBERS[i]=$cap
            SAGE_FLAGS_NOTES[i]="--${SAGE_FLAGS_MODE_NAMES[i]}=$digits exceeds the hard cap; clamped to $cap."
        else
            SAGE_FLAGS_NUMBERS[i]=$digits
        fi
    done
    return 0
}

sage_flags_render_json() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local i json='{' sources='' q='"'
    for i in ${SAGE_FLAGS_MODE_KEYS[@]+"${!SAGE_FLAGS_MODE_KEYS[@]}"}; do
        json+="\"${SAGE_FLAGS_MODE_KEYS[i]}\": ${SAGE_FLAGS_VALUES[i]}, "
        sources+=", \"${SAGE_FLAGS_MODE_KEYS[i]}_source\": ${SAGE_FLAGS_SOURCES[i]:+$q}${SAGE_FLAGS_SOURCES[i]:-null}${SAGE_FLAGS_SOURCES[i]:+$q}"
    done
    for i in ${SAGE_FLAGS_VALUE_FIELDS[@]+"${!SAGE_FLAGS_VALUE_FIELDS[@]}"}; do # V7; a note needs no escape
        sources+=", \"${SAGE_FLAGS_VALUE_FIELDS[i]}\": ${SAGE_FLAGS_NUMBERS[i]}, \"${SAGE_FLAGS_NOTE_FIELDS[i]}\": ${SAGE_FLAGS_NOTES[i]:+$q}${SAGE_FLAGS_NOTES[i]:-null}${SAGE_FLAGS_NOTES[i]:+$q}"
    done
    sage_flags_json_string "$SAGE_FLAGS_GOAL"
    json+="\"goal\": $SAGE_FLAGS_JSON_STRING, \"error\": "
    if [[ -n $SAGE_FLAGS_ERROR ]]; then
        sage_flags_json_string "$SAGE_FLAGS_ERROR"
        json+=$SAGE_FLAGS_JSON_STRING
    else
        json+=null
    fi
    SAGE_FLAGS_JSON=$json$sources'}'
    return 0
}

sage_flags_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    if ! sage_flags_arguments ${1+"$@"}; then
        printf '%s\n' "parse.sh: $SAGE_FLAGS_USAGE_ERROR (usage: parse.sh ARGUMENTS... [--config-path PATH], or parse.sh [--config-path PATH] --stdin < ARGUMENTS)" >&2
        return 2
    fi
    sage_flags_load_defaults "$SAGE_FLAGS_CONFIG_PATH"
    local status=0
    sage_flags_parse "$SAGE_FLAGS_ARGUMENTS" || status=1
    sage_flags_render_json
    printf '%s\n' "$SAGE_FLAGS_JSON"
    return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    sage_flags_main ${1+"$@"}
    exit
fi
