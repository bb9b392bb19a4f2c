# shellcheck shell=bash
# parse.sh: the bash layer of the sage-flags contract (docs/SPEC.md, C1-C21).
#   bash python/sage_flags/bash/parse.sh ARGUMENTS... [--config-path PATH]
#   bash python/sage_flags/bash/parse.sh [--config-path PATH] --stdin < ARGUMENTS   (I1-I6)
# prints one JSON line (C16), exits 0, 1 (E1-E5) or 2 (C3). Sourced (by
# batch.sh and the other bash entries) it only defines the API below.
# bash 3.2 safe, no fork or external command, linear (C21), C20-proof; see
# tests/test_bash.py. One parse path for every input: the text is split into
# words once, the flags are the words read left to right, and the goal is cut
# from the text by where the flag words' dashes end. bash 4.4 spends O(length)
# per byte of any ${s#p} or ${s%p} on a long string, and every bash before 5
# O(length) per match of ${s//p/r}: long strings only go through word
# splitting, [[ == ]] scans and substrings.
#
# Function API (names prefixed sage_flags_; OUT names the caller's variable to set, never one
# of the function's own locals):
#   sage_flags_split_argv COUNT STDIN ARGV...  C1-C3: sets SAGE_FLAGS_ARGUMENTS (operands
#       joined by a space), SAGE_FLAGS_CONFIG_PATH (empty when none), SAGE_FLAGS_USAGE_ERROR
#       (empty, or the message); COUNT to the number of operands, STDIN to 1 when the item
#       --stdin came before any -- (not an operand), else empty. Returns 0, or 2 on a usage error.
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
#   sage_flags_escaped OUT TEXT    C17's escapes of TEXT (unquoted), linear on every bash.
#   sage_flags_is_utf8 STRING      C10: status 0 iff STRING is valid UTF-8.
#   sage_flags_strip OUT TEXT CLASS [end]  TEXT without the run of CLASS bytes
#       (a bracket expression's inside) at its start, or with "end" at its end.
#   sage_flags__below A B          status 0 iff the number A < B (digit strings, no leading zero).
#   sage_flags_write TEXT          H9: TEXT on stdout, or one stderr line and status 4.
#   sage_flags_main ARGV...        the parse entry: all of the above, output, status.
# Constants: SAGE_FLAGS_WS (C5), SAGE_FLAGS_CHUNK, SAGE_FLAGS_STDIN_LIMIT (I4). Vocabulary (generated from spec/flags.toml):
# SAGE_FLAGS_MODE_KEYS (JSON keys), SAGE_FLAGS_MODE_NAMES (dashed flag names),
# SAGE_FLAGS_SUPPORTED (the E1 list), SAGE_FLAGS_SUGGEST_LIMIT (S7),
# SAGE_FLAGS_E2_VALUE_HINT (V8), and for the modes that take a value, at their
# mode's index: SAGE_FLAGS_VALUE_FIELDS, SAGE_FLAGS_NOTE_FIELDS,
# SAGE_FLAGS_VALUE_NAMES, _DEFAULTS, _MINIMUMS, _CAPS. Nothing else is global:
# helpers read their caller's locals (bash scopes them dynamically) or set OUT.
# IFS: each public function (here and in the other scripts) sets the default
# IFS as a local first, whatever the caller's: bash 3.2 reads a byte of IFS in
# a [[ == ]] or case pattern as a literal (IFS=- turns [a-z] into three bytes).

# shellcheck disable=SC2034 # the SAGE_FLAGS_ globals are the API

# The fixed lines, the same three in every entry (batch.sh, announce.sh, parse.sh): they find
# preamble.sh, so they cannot share it. The directory is "." when the script was run by a bare
# name, so that `.` never searches PATH. POSIX mode (H2) keeps special builtins (`.`, set, trap)
# ahead of functions until the preamble; a sourced file's traps are restored when it returns
# (bash 4.4+), so they are cleared here too.
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=python/sage_flags/bash/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }

# BEGIN GENERATED: bash-vocabulary
# generated from spec/flags.toml by tools/generate.py (make generate); do not edit
# docs/SPEC.md B1-B3: SAGE_FLAGS_VOCABULARY names the vocabulary; unset or empty, the default
case ${SAGE_FLAGS_VOCABULARY-} in
'' | sage-1.1)
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
    ;;
sage-1.3)
    SAGE_FLAGS_MODE_KEYS=(quality_locked autonomous subagents)
    SAGE_FLAGS_MODE_NAMES=(quality-locked autonomous subagents)
    SAGE_FLAGS_SUPPORTED='--quality-locked, --autonomous, --subagents'
    SAGE_FLAGS_SUGGEST_LIMIT=22 # docs/SPEC.md S7
    # Modes that take a value (docs/SPEC.md V1-V8): one element each, at the mode's index.
    SAGE_FLAGS_VALUE_FIELDS=()
    SAGE_FLAGS_NOTE_FIELDS=()
    SAGE_FLAGS_VALUE_NAMES=()
    SAGE_FLAGS_VALUE_DEFAULTS=()
    SAGE_FLAGS_VALUE_MINIMUMS=()
    SAGE_FLAGS_VALUE_CAPS=()
    SAGE_FLAGS_E2_VALUE_HINT=''
    ;;
sage-1.3.18)
    SAGE_FLAGS_MODE_KEYS=(quality_locked autonomous subagents parallel)
    SAGE_FLAGS_MODE_NAMES=(quality-locked autonomous subagents parallel)
    SAGE_FLAGS_SUPPORTED='--quality-locked, --autonomous, --subagents, --parallel[=N]'
    SAGE_FLAGS_SUGGEST_LIMIT=22 # docs/SPEC.md S7
    # Modes that take a value (docs/SPEC.md V1-V8): one element each, at the mode's index.
    SAGE_FLAGS_VALUE_FIELDS=([3]='parallel_lanes')
    SAGE_FLAGS_NOTE_FIELDS=([3]='parallel_note')
    SAGE_FLAGS_VALUE_NAMES=([3]='lane count')
    SAGE_FLAGS_VALUE_DEFAULTS=([3]='2')
    SAGE_FLAGS_VALUE_MINIMUMS=([3]='1')
    SAGE_FLAGS_VALUE_CAPS=([3]='4')
    SAGE_FLAGS_E2_VALUE_HINT=' Only --parallel=N takes a value.'
    ;;
*)
    printf '%s\n' 'sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)' >&2
    exit 2 # a usage error, also when sourced: no layer answers with another vocabulary's rules
    ;;
esac
# END GENERATED: bash-vocabulary

SAGE_FLAGS_WS=$' \t\n\v\f\r' # C5; space first: joining an array with [*] puts a space between its words
SAGE_FLAGS_CHUNK=4096
SAGE_FLAGS_STDIN_LIMIT=262144 # docs/SPEC.md I4

sage_flags_split_argv() {
    local IFS=' ' count_out=$1 stdin_out=$2
    local -a operands
    shift 2
    operands=()
    SAGE_FLAGS_CONFIG_PATH=
    SAGE_FLAGS_USAGE_ERROR=
    SAGE_FLAGS_ARGUMENTS=
    printf -v "$stdin_out" '%s' ''
    printf -v "$count_out" 0
    while (($# > 0)); do
        case $1 in
            --)
                shift
                operands+=("$@")
                break
                ;;
            --stdin) printf -v "$stdin_out" 1 ;;
            --config-path)
                if (($# == 1)); then
                    SAGE_FLAGS_USAGE_ERROR='--config-path needs a value'
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
    printf -v "$count_out" '%s' "${#operands[@]}"
    SAGE_FLAGS_ARGUMENTS=${operands[*]+"${operands[*]}"}
    return 0
}

sage_flags_arguments() {
    local IFS=$' \t\n' # see "IFS" above
    local status count stdin
    sage_flags_split_argv count stdin ${1+"$@"} || return 2
    if [[ -z $stdin ]]; then
        return 0
    fi
    if ((count > 0)); then
        SAGE_FLAGS_USAGE_ERROR='--stdin takes ARGUMENTS from standard input only: no operand beside it'
        return 2
    fi
    if [[ -t 0 ]]; then # I5: never wait for someone to type
        SAGE_FLAGS_USAGE_ERROR='--stdin: standard input is a terminal'
        return 2
    fi
    # I2-I4: up to a NUL, the end, or one byte past the limit. Status 0 with fewer
    # bytes: the NUL ended it; nonzero: the end (or no stdin at all: no bytes).
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
    local text='' i line
    SAGE_FLAGS_DEFAULTS=()
    for i in "${!SAGE_FLAGS_MODE_KEYS[@]}"; do
        SAGE_FLAGS_DEFAULTS[i]=false
    done
    # C12: test -f follows symlinks and rejects FIFOs and devices (never
    # blocks). H1: at most the bound plus one byte is read (read -n: bash 3.2
    # has no -N); read succeeds only at a NUL or at that many bytes, both of
    # which give no defaults.
    if [[ -z ${1-} || ! -f $1 ]] ||
        { IFS= read -r -d '' -n 65537 text; } 2>/dev/null <"$1"; then # H1: over 65,536 bytes (CONFIG_LIMIT)
        return 0
    fi
    # C13-C14: without the BOM, each line is between two LFs, maybe ending in CR
    # (a [[ == ]] scan is linear on every bash; ${s#p} is not on bash 4.4).
    if [[ $text == $'\xef\xbb\xbf'* ]]; then
        text=${text:3}
    fi
    text=$'\n'$text$'\n'
    for i in "${!SAGE_FLAGS_MODE_KEYS[@]}"; do
        line=$'\n'"${SAGE_FLAGS_MODE_KEYS[i]}: true"
        if [[ $text == *"$line"$'\n'* || $text == *"$line"$'\r\n'* ]]; then
            SAGE_FLAGS_DEFAULTS[i]=true
        fi
    done
    return 0
}

# C10 (RFC 3629), without a loop over bytes: the text is valid iff none of
# these byte patterns occurs, each found by one linear scan. The ASCII byte on
# both sides makes a sequence cut by either end look like one cut by ASCII.
# Lead and continuation bytes are disjoint classes, so a lead byte's
# continuation run must be exactly as long as the lead byte says.
sage_flags_is_utf8() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local text=.$1. cont=[$'\x80'-$'\xbf'] other=[!$'\x80'-$'\xbf']
    [[ $1 != *[$'\x80'-$'\xff']* ]] ||
        [[ $text != *[$'\xc0\xc1\xf5'-$'\xff']* && # never in UTF-8
            $text != *[!$'\x80'-$'\xff']$cont* &&    # a continuation after ASCII
            $text != *[$'\xc2'-$'\xf4']$other* &&    # too few continuations
            $text != *[$'\xe0'-$'\xf4']$cont$other* &&
            $text != *[$'\xf0'-$'\xf4']$cont$cont$other* &&
            $text != *[$'\xc2'-$'\xdf']$cont$cont* && # too many
            $text != *[$'\xe0'-$'\xef']$cont$cont$cont* &&
            $text != *[$'\xf0'-$'\xf4']$cont$cont$cont$cont* &&
            $text != *$'\xe0'[$'\x80'-$'\x9f']* && # overlong
            $text != *$'\xed'[$'\xa0'-$'\xbf']* && # a surrogate
            $text != *$'\xf0'[$'\x80'-$'\x8f']* && # overlong
            $text != *$'\xf4'[$'\x90'-$'\xbf']* ]] # above U+10FFFF
}

sage_flags_json_string() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    if [[ $1 != *[\"\\$'\x01'-$'\x1f']* ]]; then
        SAGE_FLAGS_JSON_STRING=\"$1\"
        return 0
    fi
    sage_flags_escaped SAGE_FLAGS_JSON_STRING "$1"
    SAGE_FLAGS_JSON_STRING=\"$SAGE_FLAGS_JSON_STRING\"
}

# A chunk that needs escapes goes on in pieces of 64 bytes before bash 5; in a
# piece backslashes first, then the short escapes, then \u00XX for the rest.
sage_flags_escaped() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local s=$2 out='' chunk c n=${#2} off=0 at i code piece=$((BASH_VERSINFO[0] < 5 ? 64 : SAGE_FLAGS_CHUNK))
    local controls=$'\x01\x02\x03\x04\x05\x06\x07\x0b\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f'
    local -a bytes codes
    bytes=() codes=()
    for ((off = 0; off < n; off += SAGE_FLAGS_CHUNK)); do
        chunk=${s:off:SAGE_FLAGS_CHUNK}
        for ((at = 0; at < ${#chunk}; at += piece)); do
            c=${chunk:at:piece}
            if [[ $c == *[\"\\$'\x01'-$'\x1f']* ]]; then
                c=${c//\\/\\\\}
                c=${c//\"/\\\"}
                c=${c//$'\t'/\\t}
                c=${c//$'\n'/\\n}
                c=${c//$'\r'/\\r}
                c=${c//$'\b'/\\b}
                c=${c//$'\f'/\\f}
            fi
            if [[ $c == *[$'\x01'-$'\x1f']* ]]; then
                for ((i = ${#bytes[@]}; i < ${#controls}; i++)); do # once per call
                    bytes[i]=${controls:i:1}
                    printf -v code '\\u%04x' "'${bytes[i]}"
                    codes[i]=$code
                done
                for i in "${!bytes[@]}"; do
                    c=${c//"${bytes[i]}"/${codes[i]}}
                done
            fi
            out+=$c
        done
    done
    printf -v "$1" '%s' "$out"
}

# Binary search for the run's edge: substrings and [[ == ]] scans only (see the header).
sage_flags_strip() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local s=$2 class=$3 lo=0 hi mid
    if [[ $s != *[!$class]* ]]; then
        s=
    elif [[ ${4-} != end && $s == [$class]* ]]; then
        lo=1 hi=${#s} # s[0:lo] is all CLASS, s[0:hi] is not
        while ((hi - lo > 1)); do
            mid=$(((lo + hi) / 2))
            if [[ ${s:0:mid} == *[!$class]* ]]; then hi=$mid; else lo=$mid; fi
        done
        s=${s:lo}
    elif [[ ${4-} == end && $s == *[$class] ]]; then
        hi=$((${#s} - 1)) # s[lo:] is not all CLASS, s[hi:] is
        while ((hi - lo > 1)); do
            mid=$(((lo + hi) / 2))
            if [[ ${s:mid} == *[!$class]* ]]; then lo=$mid; else hi=$mid; fi
        done
        s=${s:0:hi}
    fi
    printf -v "$1" '%s' "$s"
}

# Token by token (C7; C8: the first error wins).
sage_flags_parse() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local text=${1-} tok flag value digits i k=0 n last=-- form=-- goal tail joined
    local -a words given # given: V4, the digits of the first --name=N, at the mode's index
    SAGE_FLAGS_ERROR=
    SAGE_FLAGS_VALUES=() # unset: no flag for the mode yet
    if [[ $text == *[$'\x80'-$'\xff']* ]] && ! sage_flags_is_utf8 "$text"; then
        sage_flags__fail 'Arguments are not valid UTF-8.'
        return 1
    fi
    # C5, C7: \v \f \r are non-whitespace IFS bytes: a WS run holding two of
    # them yields empty words, which an unquoted re-expansion drops.
    IFS=$SAGE_FLAGS_WS
    # shellcheck disable=SC2206 # splitting is the point; globbing is off (set -f)
    words=($text)
    if [[ $text == *[$'\v\f\r']* ]]; then
        # shellcheck disable=SC2206 # as above
        words=(${words[@]+${words[@]-}}) # -: what check-bash-arrays.py (Sage) reads as guarded
    fi
    IFS=$' \t\n'
    n=${#words[@]}
    while ((k < n)) && [[ ${words[k]} == --* ]]; do
        tok=${words[k]}
        k=$((k + 1))
        if [[ $tok == -- ]]; then
            last=-- form=--
            break
        fi
        for i in "${!SAGE_FLAGS_MODE_NAMES[@]}"; do
            flag=--${SAGE_FLAGS_MODE_NAMES[i]}
            case $tok in
                "$flag") value=true ;;
                "--no-${SAGE_FLAGS_MODE_NAMES[i]}") value=false flag=$tok ;;
                "$flag="*)
                    if [[ -z ${SAGE_FLAGS_VALUE_FIELDS[i]-} ]]; then
                        continue # a mode without a value: E2
                    fi
                    value=${tok:${#flag}+1} # V2: ASCII digits worth at least the minimum
                    sage_flags_strip digits "$value" 0
                    if [[ -z $value || $value == *[!0-9]* ]] ||
                        sage_flags__below "$digits" "${SAGE_FLAGS_VALUE_MINIMUMS[i]}"; then
                        sage_flags__fail "--${SAGE_FLAGS_MODE_NAMES[i]} takes a ${SAGE_FLAGS_VALUE_NAMES[i]} of ${SAGE_FLAGS_VALUE_MINIMUMS[i]} or more (got '$value')."
                        return 1
                    fi
                    given[i]=${given[i]-$digits}
                    value=true
                    ;;
                *) continue ;;
            esac
            if [[ ${SAGE_FLAGS_VALUES[i]:-$value} != "$value" ]]; then
                sage_flags__fail "Conflicting flags for ${SAGE_FLAGS_MODE_KEYS[i]}: both --${SAGE_FLAGS_MODE_NAMES[i]} and --no-${SAGE_FLAGS_MODE_NAMES[i]} passed."
                return 1
            fi
            SAGE_FLAGS_VALUES[i]=$value
            last=$tok form=$flag
            continue 2
        done
        sage_flags__not_a_flag "$tok"
        return 1
    done
    # C9: the goal starts after the k-th word and the WS run after it. Only the
    # flag words hold dashes before it: the text split at dashes, as many parts
    # dropped as they hold, starts with the k-th word's tail (after its last
    # dash). The "." keeps a last empty part.
    goal=$text
    if ((k > 0)); then
        IFS=' '
        joined="${words[*]+"${words[*]:0:k}"}" # bash32: ok array-op (no word is empty)
        IFS=$' \t\n'
    fi
    if ((k == n)); then
        goal=
    elif ((k > 0)) && [[ $text == "$joined "* ]]; then
        goal=${text:${#joined}} # every gap so far was one space: the common case
    elif ((k > 0)); then
        IFS=- # bash32: ok ifs-pattern (no pattern until IFS is restored)
        # shellcheck disable=SC2086 # splitting is the point; globbing is off (set -f)
        set -- $joined.
        i=$(($# - 1))
        # shellcheck disable=SC2086 # as above
        set -- $text.
        shift "$i"
        goal="$*"
        IFS=$' \t\n'
        tail=${form##*-}
        i=$((${#last} - ${#form} + ${#tail}))
        goal=${goal:i:${#goal} - i - 1}
    fi
    if [[ $goal == " "[!"$SAGE_FLAGS_WS"]* ]]; then
        goal=${goal:1} # the common gap
    elif [[ $goal == ["$SAGE_FLAGS_WS"]* ]]; then
        sage_flags_strip goal "$goal" "$SAGE_FLAGS_WS" # C6
    fi
    if [[ $goal == *["$SAGE_FLAGS_WS"] ]]; then
        sage_flags_strip goal "$goal" "$SAGE_FLAGS_WS" end
    fi
    SAGE_FLAGS_GOAL=$goal
    sage_flags__resolve
}

# Status 0 iff the number $1 is less than $2 (digit strings without leading zeros).
sage_flags__below() {
    ((${#1} < ${#2})) || { ((${#1} == ${#2})) && [[ $1 < "$2" ]]; }
}

# C15, from SAGE_FLAGS_VALUES: true, false, or unset (no flag); then V4-V5 for
# the modes that take a value, from sage_flags_parse's `given`.
sage_flags__resolve() {
    local i digits cap
    SAGE_FLAGS_SOURCES=()
    for i in "${!SAGE_FLAGS_MODE_KEYS[@]}"; do
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
        digits=${given[i]-}
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

# C18, V6: an error resets every mode, number and note.
sage_flags__fail() {
    local i
    SAGE_FLAGS_VALUES=()
    for i in "${!SAGE_FLAGS_MODE_KEYS[@]}"; do
        SAGE_FLAGS_VALUES[i]=false
        SAGE_FLAGS_SOURCES[i]=
    done
    SAGE_FLAGS_NUMBERS=()
    SAGE_FLAGS_NOTES=()
    for i in ${SAGE_FLAGS_VALUE_FIELDS[@]+"${!SAGE_FLAGS_VALUE_FIELDS[@]}"}; do
        SAGE_FLAGS_NUMBERS[i]=0
        SAGE_FLAGS_NOTES[i]=
    done
    SAGE_FLAGS_GOAL=
    SAGE_FLAGS_ERROR=$1
    return 1
}

# C7 for a token that is not a flag: E5 (a --name=VALUE whose VALUE is not a
# number the mode takes is caught above), E2 or E1. Prefix matches only: the
# token can be 128 KiB long.
sage_flags__not_a_flag() {
    local tok=$1 flag i suggestion
    for i in "${!SAGE_FLAGS_MODE_NAMES[@]}"; do
        for flag in "--${SAGE_FLAGS_MODE_NAMES[i]}" "--no-${SAGE_FLAGS_MODE_NAMES[i]}"; do
            if [[ $tok == "$flag="* ]]; then
                sage_flags__fail "Flag '$flag' takes no value (got '$tok').$SAGE_FLAGS_E2_VALUE_HINT"
                return 1
            fi
        done
    done
    sage_flags__suggest suggestion "$tok"
    sage_flags__fail "Unknown flag '$tok'. Supported flags: $SAGE_FLAGS_SUPPORTED.${suggestion:+ Did you mean '$suggestion'?}"
}

# OUT TOKEN: E1's suggestion for TOKEN (docs/SPEC.md S1-S7), `--` and the
# nearest flag form, or empty. The part before `=` becomes numbers, one per
# code point (ASCII letters lowered; any non-ASCII code point is 256, as forms
# are ASCII), only when it is short enough to be near a form (S7): the cost is
# bounded whatever TOKEN's length.
sage_flags__suggest() {
    local head part c i j n count=0 form best='' best_distance=0 tied=0 most prefix code distance
    local -a units
    printf -v "$1" '%s' ''
    # Only a head of the token is looked at: `--`, the longest part that can be
    # near (S7, at most 4 bytes a code point), and one byte more to tell a longer part apart.
    head=${2:0:4 * SAGE_FLAGS_SUGGEST_LIMIT + 3}
    part=${head%%=*}
    if [[ $part == "$head" ]] && ((${#2} > ${#head})); then
        return 0
    fi
    part=${part:2}
    n=${#part}
    for ((i = 0; i < n; i++)); do
        c=${part:i:1}
        case $c in
            [$'\x80'-$'\xbf']) continue ;; # a continuation byte: part of the code point before it
            [$'\xc0'-$'\xff']) code=256 ;;
            *) printf -v code '%d' "'$c" ;;
        esac
        if ((code >= 65 && code <= 90)); then
            code=$((code + 32))
        fi
        units[count]=$code
        count=$((count + 1))
    done
    if ((count > SAGE_FLAGS_SUGGEST_LIMIT)); then
        return 0
    fi
    for j in "${!SAGE_FLAGS_MODE_NAMES[@]}"; do
        for prefix in '' no-; do
            form=$prefix${SAGE_FLAGS_MODE_NAMES[j]}
            most=$((${#form} / 3)) # S4
            if ((count - ${#form} > most || ${#form} - count > most)); then
                continue # S7: each length difference costs an edit (checked here: a call costs more)
            fi
            sage_flags__osa_distance distance "$form" "$count" "$most"
            if ((distance > most)); then
                continue
            fi
            if [[ -z $best ]] || ((distance < best_distance)); then
                best=$form
                best_distance=$distance
                tied=0
            elif ((distance == best_distance)); then
                tied=1 # S5: a tie suggests nothing
            fi
        done
    done
    if [[ -n $best ]] && ((!tied)); then
        printf -v "$1" '%s' "--$best"
    fi
    return 0
}

# OUT FORM N MOST, S3: the optimal string alignment distance between the N
# code points in the caller's `units` and FORM (ASCII), or MOST + 1 when it
# exceeds MOST. Hyyro's bit-parallel algorithm (2003, as rapidfuzz's
# osa_hyrroe2003): the table's column deltas as bit masks over FORM, one
# arithmetic expression per code point of the part and 60 of FORM's (a word;
# the add's and shifts' carries pass to the next word), not one per cell.
sage_flags__osa_distance() {
    local form=$2 n=$3 most=$4 m=${#2} i w words unit code top full=$(((1 << 60) - 1))
    local edits=${#2} pm d0 hp hn sum add trc hpc hnc tr
    local -a masks vp vn d0s old
    masks=(0) # set: an unset element reads 0 under set -u, an unset array does not
    printf -v "$1" '%s' "$((most + 1))"
    ((words = (m + 59) / 60, top = (m - 1) % 60)) # FORM's last code point: bit top of the last word
    for ((i = 0; i < m; i++)); do # masks[code * words + w]: where FORM holds the code
        printf -v code '%d' "'${form:i:1}"
        ((masks[code * words + i / 60] |= 1 << (i % 60)))
    done
    for ((w = 0; w < words; w++)); do
        vp[w]=$full vn[w]=0 d0s[w]=0 old[w]=0
    done
    for ((i = 0; i < n; i++)); do
        ((unit = units[i] * words, add = 0, trc = 0, hpc = 1, hnc = 0))
        for ((w = 0; w < words; w++)); do
            ((pm = masks[unit + w], d0 = d0s[w],
                tr = ((~d0 & pm) << 1 | trc) & old[w], trc = (~d0 & pm) >> 59,
                sum = (pm & vp[w]) + vp[w] + add, add = sum >> 60,
                d0 = ((sum & full) ^ vp[w]) | pm | vn[w] | tr,
                hp = (vn[w] | ~(d0 | vp[w])) & full, hn = d0 & vp[w],
                edits += (w == words - 1) * ((hp >> top & 1) - (hn >> top & 1)),
                sum = hpc, hpc = hp >> 59, hp = (hp << 1 | sum) & full,
                sum = hnc, hnc = hn >> 59, hn = (hn << 1 | sum) & full,
                vp[w] = (hn | ~(d0 | hp)) & full, vn[w] = hp & d0, d0s[w] = d0, old[w] = pm))
        done
    done
    if ((edits <= most)); then
        printf -v "$1" '%s' "$edits"
    fi
}

sage_flags_render_json() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local i json='{' sources='' q='"'
    for i in "${!SAGE_FLAGS_MODE_KEYS[@]}"; do
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

# H9: prints $1 as is on stdout. When stdout is closed, full or a broken pipe:
# one line on stderr (the same in every layer) and status 4.
sage_flags_write() {
    if ! printf '%s' "$1" 2>/dev/null; then
        printf '%s\n' 'sage-flags: cannot write the output to stdout (closed, full or a broken pipe)' >&2
        return 4
    fi
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
    sage_flags_write "$SAGE_FLAGS_JSON"$'\n' || return
    return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death (not when sourced)
    sage_flags_main ${1+"$@"}
    exit
fi
