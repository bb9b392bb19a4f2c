# shellcheck shell=bash
# parse.sh: the bash layer of the sage-flags contract (docs/SPEC.md, rules C1-C21).
#
#   bash sage/core/flag_parser/parse.sh ARGUMENTS... [--config-path PATH]
#
# prints one JSON line (C16) and exits 0 (clean), 1 (E1-E4) or 2 (usage error, C3).
# batch.sh (C22) and the other bash entries source this file for its functions;
# main only runs when the file is executed, not when it is sourced.
#
# Rules this file keeps (each is tested in tests/test_bash.py):
# - bash 3.2 (macOS) compatible: tools/lint_bash32.py rejects newer constructs.
# - no external command and no fork on the parse path: no $(...), pipes or
#   subshells; only builtins (strace test).
# - cost linear in the input (C21): the large ARGUMENTS string is expanded a
#   bounded number of times (every expansion of a bash variable copies it), and
#   never substituted pattern-by-pattern as a whole (bash's ${s//p/r} costs
#   O(length) per match); long strings are handled in 4 KiB chunks.
# - same bytes whatever the caller's locale or IFS (C20): LC_ALL=C makes every
#   length, pattern and substitution work on bytes; whitespace is only the six
#   C5 bytes.
#
# Function API (stable; names prefixed sage_flags_ / SAGE_FLAGS_):
#   sage_flags_split_argv ARGV...     C1-C3. Sets SAGE_FLAGS_ARGUMENTS (operands
#                                     joined by one space), SAGE_FLAGS_OPERAND_COUNT,
#                                     SAGE_FLAGS_CONFIG_PATH (empty when none) and
#                                     SAGE_FLAGS_USAGE_ERROR (empty, or the one-line
#                                     message). Returns 0, or 2 on a usage error.
#   sage_flags_load_defaults PATH     C11-C14. Sets SAGE_FLAGS_DEFAULTS, an array
#                                     parallel to SAGE_FLAGS_MODE_KEYS of true/false.
#                                     Never prints, never blocks, always returns 0.
#   sage_flags_parse ARGUMENTS        C5-C10, C15, C18 against SAGE_FLAGS_DEFAULTS
#                                     (call sage_flags_load_defaults first, with an
#                                     empty PATH for none). Sets SAGE_FLAGS_VALUES
#                                     (true/false) and SAGE_FLAGS_SOURCES (flag,
#                                     config or empty for null), both parallel to
#                                     SAGE_FLAGS_MODE_KEYS, SAGE_FLAGS_GOAL and
#                                     SAGE_FLAGS_ERROR (empty when none). Returns 0,
#                                     or 1 when SAGE_FLAGS_ERROR is set.
#   sage_flags_render_json            C16-C17: the result of the last parse as one
#                                     JSON object in SAGE_FLAGS_JSON (no newline).
#   sage_flags_json_string STRING     C17: STRING as a quoted JSON string in
#                                     SAGE_FLAGS_JSON_STRING.
#   sage_flags_is_utf8 STRING         C10: status 0 iff STRING is valid UTF-8.
#   sage_flags_main ARGV...           the parse entry: everything above, output, status.
# Vocabulary (generated from spec/flags.toml): SAGE_FLAGS_MODE_KEYS (JSON keys),
# SAGE_FLAGS_MODE_NAMES (dashed flag names), SAGE_FLAGS_SUPPORTED (the E1 list).
#
# Sourcing this file sets, for the sourcing shell: LC_ALL=C, set -u, set -f
# (no globbing), extglob off, posix mode off, nocasematch off. Functions
# change IFS only as a local.

# The SAGE_FLAGS_ globals are this file's API: the sourcing scripts read them.
# shellcheck disable=SC2034

# C20: bytes, not characters; none of the caller's shell options matter.
LC_ALL=C
unset GLOBIGNORE BASH_COMPAT
set +o posix
set +e +x +v -u -f
shopt -u nocasematch nocaseglob extglob
shopt -u patsub_replacement 2>/dev/null || :

# BEGIN GENERATED: bash-vocabulary
# generated from spec/flags.toml by tools/generate.py (make generate); do not edit
SAGE_FLAGS_MODE_KEYS=(quality_locked autonomous)
SAGE_FLAGS_MODE_NAMES=(quality-locked autonomous)
SAGE_FLAGS_SUPPORTED='--quality-locked, --autonomous'
# END GENERATED: bash-vocabulary

# C5: the six whitespace bytes; space first, so "${array[*]}" joins with a space.
SAGE_FLAGS_WS=$' \t\n\v\f\r'
SAGE_FLAGS_CHUNK=4096
# Words coded at first by sage_flags_parse (then 4 times as many, and so on).
SAGE_FLAGS_WINDOW=512
SAGE_FLAGS_E4='Arguments are not valid UTF-8.'
# One-letter codes of mode i's flags in sage_flags_parse (0, 1 and # are taken).
SAGE_FLAGS_CODES=abcdefghijklmnopqrstuvwxyz
SAGE_FLAGS_NEGATIVE_CODES=ABCDEFGHIJKLMNOPQRSTUVWXYZ
# The longest flag, --no-NAME: enough bytes of a token to tell E2 from E1.
SAGE_FLAGS__MAX_FLAG=0
for SAGE_FLAGS__NAME in ${SAGE_FLAGS_MODE_NAMES[@]+"${SAGE_FLAGS_MODE_NAMES[@]}"}; do
    if ((${#SAGE_FLAGS__NAME} + 5 > SAGE_FLAGS__MAX_FLAG)); then
        SAGE_FLAGS__MAX_FLAG=$((${#SAGE_FLAGS__NAME} + 5))
    fi
done
unset SAGE_FLAGS__NAME
SAGE_FLAGS__INDEX=0

SAGE_FLAGS_ARGUMENTS=
SAGE_FLAGS_OPERAND_COUNT=0
SAGE_FLAGS_CONFIG_PATH=
SAGE_FLAGS_USAGE_ERROR=
SAGE_FLAGS_DEFAULTS=()
SAGE_FLAGS_VALUES=()
SAGE_FLAGS_SOURCES=()
SAGE_FLAGS_GOAL=
SAGE_FLAGS_ERROR=
SAGE_FLAGS_JSON=
SAGE_FLAGS_JSON_STRING=

# C1-C3: operands and config path from the argv.
sage_flags_split_argv() {
    local item operands_done=0 IFS=' '
    local -a operands
    operands=()
    SAGE_FLAGS_CONFIG_PATH=
    SAGE_FLAGS_USAGE_ERROR=
    while (($# > 0)); do
        item=$1
        shift
        if ((operands_done)); then
            operands[${#operands[@]}]=$item
            continue
        fi
        case $item in
            --) operands_done=1 ;;
            --config-path)
                if (($# == 0)); then
                    SAGE_FLAGS_USAGE_ERROR='--config-path needs a value'
                    SAGE_FLAGS_ARGUMENTS=
                    SAGE_FLAGS_OPERAND_COUNT=0
                    return 2
                fi
                SAGE_FLAGS_CONFIG_PATH=$1
                shift
                ;;
            --config-path=*) SAGE_FLAGS_CONFIG_PATH=${item#--config-path=} ;;
            *) operands[${#operands[@]}]=$item ;;
        esac
    done
    SAGE_FLAGS_OPERAND_COUNT=${#operands[@]}
    SAGE_FLAGS_ARGUMENTS=${operands[*]+"${operands[*]}"}
    return 0
}

# C11-C14, with builtins only.
sage_flags_load_defaults() {
    local path=${1-} text='' i line
    SAGE_FLAGS_DEFAULTS=()
    for ((i = 0; i < ${#SAGE_FLAGS_MODE_KEYS[@]}; i++)); do
        SAGE_FLAGS_DEFAULTS[i]=false
    done
    # C12: regular files only (test -f follows symlinks), so a FIFO or a
    # device is never opened and nothing can block.
    if [[ -z $path || ! -f $path ]]; then
        return 0
    fi
    # read -d '' stops at the first NUL with status 0: a NUL anywhere means no
    # defaults. Without a NUL it reads the whole file and fails at end of file.
    # stderr first, so that a file that cannot be opened prints nothing.
    if { IFS= read -r -d '' text; } 2>/dev/null <"$path"; then
        return 0
    fi
    # C13-C14: one regular expression per mode over the whole text (a
    # [[ == *...* ]] scan costs ~10 times as much per byte): the line at the
    # start (after an optional BOM) or after a LF, one optional CR, then LF or
    # the end of the file.
    for ((i = 0; i < ${#SAGE_FLAGS_MODE_KEYS[@]}; i++)); do
        line=$'(^(\xef\xbb\xbf)?|\n)'"${SAGE_FLAGS_MODE_KEYS[i]}: true"$'\r?(\n|$)'
        if [[ $text =~ $line ]]; then
            SAGE_FLAGS_DEFAULTS[i]=true
        fi
    done
    return 0
}

# C10 (RFC 3629) without a loop over bytes: each 4 KiB chunk has every valid
# multi-byte sequence replaced by one ASCII byte, class by class; a byte >= 0x80
# left over means invalid. A chunk ends before the last character that might
# continue into the next chunk, so no valid sequence is ever cut.
sage_flags_is_utf8() {
    if [[ $1 != *[$'\x80'-$'\xff']* ]]; then
        return 0
    fi
    sage_flags__utf8_chunks "$1"
}

# sage_flags_is_utf8 for a text with a byte >= 0x80 (a function of its own:
# bash copies a function body at every call).
sage_flags__utf8_chunks() {
    local s=$1 chunk c n off=0 size last i
    n=${#s}
    while ((off < n)); do
        chunk=${s:off:SAGE_FLAGS_CHUNK}
        size=${#chunk}
        if ((off + size < n)) && [[ ${chunk:size-1:1} == [$'\x80'-$'\xff'] ]]; then
            # Cut before the last byte that is not a continuation byte; four
            # continuation bytes in a row are invalid wherever they are.
            last=-1
            for ((i = size - 1; i >= size - 4; i--)); do
                if [[ ${chunk:i:1} != [$'\x80'-$'\xbf'] ]]; then
                    last=$i
                    break
                fi
            done
            if ((last < 0)); then
                return 1
            fi
            chunk=${chunk:0:last}
            size=$last
        fi
        off=$((off + size))
        if [[ $chunk != *[$'\x80'-$'\xff']* ]]; then
            continue
        fi
        c=${chunk//[$'\xc2'-$'\xdf'][$'\x80'-$'\xbf']/.}
        c=${c//[$'\xe1'-$'\xec'$'\xee'$'\xef'][$'\x80'-$'\xbf'][$'\x80'-$'\xbf']/.}
        if [[ $c == *[$'\xe0'$'\xed'-$'\xf4']* ]]; then
            c=${c//$'\xe0'[$'\xa0'-$'\xbf'][$'\x80'-$'\xbf']/.}
            c=${c//$'\xed'[$'\x80'-$'\x9f'][$'\x80'-$'\xbf']/.}
            c=${c//$'\xf0'[$'\x90'-$'\xbf'][$'\x80'-$'\xbf'][$'\x80'-$'\xbf']/.}
            c=${c//[$'\xf1'-$'\xf3'][$'\x80'-$'\xbf'][$'\x80'-$'\xbf'][$'\x80'-$'\xbf']/.}
            c=${c//$'\xf4'[$'\x80'-$'\x8f'][$'\x80'-$'\xbf'][$'\x80'-$'\xbf']/.}
        fi
        if [[ $c == *[$'\x80'-$'\xff']* ]]; then
            return 1
        fi
    done
    return 0
}

# C17: json.dumps(ensure_ascii=False) string escapes, chunk by chunk.
sage_flags_json_string() {
    if [[ $1 != *[\"\\$'\x01'-$'\x1f']* ]]; then
        SAGE_FLAGS_JSON_STRING=\"$1\"
        return 0
    fi
    sage_flags__json_escape "$1"
}

# sage_flags_json_string for a text that needs escapes.
sage_flags__json_escape() {
    local s=$1 out='' c n off=0
    n=${#s}
    while ((off < n)); do
        c=${s:off:SAGE_FLAGS_CHUNK}
        off=$((off + SAGE_FLAGS_CHUNK))
        if [[ $c == *[\"\\$'\x01'-$'\x1f']* ]]; then
            c=${c//\\/\\\\}
            c=${c//\"/\\\"}
            if [[ $c == *[$'\x01'-$'\x1f']* ]]; then
                c=${c//$'\t'/\\t}
                c=${c//$'\n'/\\n}
                c=${c//$'\r'/\\r}
                c=${c//$'\b'/\\b}
                c=${c//$'\f'/\\f}
            fi
            if [[ $c == *[$'\x01'-$'\x1f']* ]]; then
                c=${c//$'\x01'/\\u0001}
                c=${c//$'\x02'/\\u0002}
                c=${c//$'\x03'/\\u0003}
                c=${c//$'\x04'/\\u0004}
                c=${c//$'\x05'/\\u0005}
                c=${c//$'\x06'/\\u0006}
                c=${c//$'\x07'/\\u0007}
                c=${c//$'\x0b'/\\u000b}
                c=${c//$'\x0e'/\\u000e}
                c=${c//$'\x0f'/\\u000f}
                c=${c//$'\x10'/\\u0010}
                c=${c//$'\x11'/\\u0011}
                c=${c//$'\x12'/\\u0012}
                c=${c//$'\x13'/\\u0013}
                c=${c//$'\x14'/\\u0014}
                c=${c//$'\x15'/\\u0015}
                c=${c//$'\x16'/\\u0016}
                c=${c//$'\x17'/\\u0017}
                c=${c//$'\x18'/\\u0018}
                c=${c//$'\x19'/\\u0019}
                c=${c//$'\x1a'/\\u001a}
                c=${c//$'\x1b'/\\u001b}
                c=${c//$'\x1c'/\\u001c}
                c=${c//$'\x1d'/\\u001d}
                c=${c//$'\x1e'/\\u001e}
                c=${c//$'\x1f'/\\u001f}
            fi
        fi
        out+=$c
    done
    SAGE_FLAGS_JSON_STRING=\"$out\"
    return 0
}

# C18: an error resets every mode.
sage_flags__fail() {
    local i
    for ((i = 0; i < ${#SAGE_FLAGS_MODE_KEYS[@]}; i++)); do
        SAGE_FLAGS_VALUES[i]=false
        SAGE_FLAGS_SOURCES[i]=
    done
    SAGE_FLAGS_GOAL=
    SAGE_FLAGS_ERROR=$1
    return 1
}

# Length of the WS run at the start (or, with "end", at the end) of $1, read
# in chunks: ${s%%pattern} on a long string costs O(length) per byte skipped.
sage_flags__ws_run() {
    local s=$1 n off c run
    n=${#s}
    SAGE_FLAGS__INDEX=0
    while ((SAGE_FLAGS__INDEX < n)); do
        if [[ ${2-} == end ]]; then
            off=$((n - SAGE_FLAGS__INDEX - SAGE_FLAGS_CHUNK))
            if ((off < 0)); then
                c=${s:0:n - SAGE_FLAGS__INDEX}
            else
                c=${s:off:SAGE_FLAGS_CHUNK}
            fi
            run=${c%[!"$SAGE_FLAGS_WS"]*}
            if [[ $run != "$c" ]]; then
                SAGE_FLAGS__INDEX=$((SAGE_FLAGS__INDEX + ${#c} - ${#run} - 1))
                return 0
            fi
        else
            c=${s:SAGE_FLAGS__INDEX:SAGE_FLAGS_CHUNK}
            run=${c%%[!"$SAGE_FLAGS_WS"]*}
            if [[ $run != "$c" ]]; then
                SAGE_FLAGS__INDEX=$((SAGE_FLAGS__INDEX + ${#run}))
                return 0
            fi
        fi
        SAGE_FLAGS__INDEX=$((SAGE_FLAGS__INDEX + ${#c}))
    done
    return 0
}

# Index of the first byte $1 in $2 (-1 if none), by one split at $1: linear,
# where ${s%%"$1"*} costs O(length) per byte before the match.
sage_flags__index_of() {
    local IFS=$1 s=$2
    local -a parts
    if [[ $s != *"$1"* ]]; then
        SAGE_FLAGS__INDEX=-1
        return 1
    fi
    # shellcheck disable=SC2206 # splitting is the point; globbing is off (set -f)
    parts=($s)
    SAGE_FLAGS__INDEX=${#parts[0]}
    return 0
}

# C7-C9, with no loop over tokens. The trimmed text is split once into words
# (word splitting on the six WS bytes, globbing off). Whole-array substitutions
# give each word one code byte: # is prepended to every word, then a word that
# is exactly a flag becomes its mode's letter (SAGE_FLAGS_CODES, upper case for
# --no-) and `--` becomes 1; any other word still starts with #. Joined, the
# codes are searched with a few linear splits: where the first non-flag word
# is, where each mode's flags first appear (C8: the first error wins), where
# `--` is. Input: a trimmed text that starts with --; output: SAGE_FLAGS_VALUES
# (true, false or empty per mode) and SAGE_FLAGS_GOAL, or a failure. A function
# of its own: bash copies a function body at every call, and most texts have
# no flag.
sage_flags__flags_and_goal() {
    local text=$1 goal tok codes_text region u k nw=0 j n lo size
    local first_on first_off conflict conflict_mode stop offset tail dashes consumed
    local IFS=$SAGE_FLAGS_WS sentinel='#' pattern
    local -a words codes parts
    n=${#SAGE_FLAGS_MODE_KEYS[@]}
    k=0
    if [[ $text == --* ]]; then
        # C7. \v \f \r are non-whitespace IFS bytes: a WS run holding two of
        # them yields empty words, dropped by an unquoted re-expansion.
        # shellcheck disable=SC2206 # splitting is the point; globbing is off (set -f)
        words=($text)
        if [[ $text == *[$'\v\f\r']* ]]; then
            # shellcheck disable=SC2206 # as above: drops the empty words
            words=(${words[@]+${words[@]}})
        fi
        nw=${#words[@]}
        # The flag region is usually short and the other words need no look:
        # windows of words are coded until one holds a non-flag word or `--`;
        # each window is 4 times the last, so the work stays linear.
        codes_text=
        lo=0
        size=$SAGE_FLAGS_WINDOW
        while ((lo < nw)); do
            if ((lo == 0 && size >= nw)); then
                codes=(${words[@]+"${words[@]/#/$sentinel}"})
            else
                codes=(${words[@]+"${words[@]:lo:size}"})
                codes=(${codes[@]+"${codes[@]/#/$sentinel}"})
            fi
            for ((j = 0; j < n; j++)); do
                pattern="$sentinel--${SAGE_FLAGS_MODE_NAMES[j]}"
                codes=(${codes[@]+"${codes[@]/%$pattern/${SAGE_FLAGS_CODES:j:1}}"})
                pattern="$sentinel--no-${SAGE_FLAGS_MODE_NAMES[j]}"
                codes=(${codes[@]+"${codes[@]/%$pattern/${SAGE_FLAGS_NEGATIVE_CODES:j:1}}"})
            done
            pattern="$sentinel--"
            codes=(${codes[@]+"${codes[@]/%$pattern/1}"})
            IFS=
            codes_text+=${codes[*]+"${codes[*]}"}
            IFS=$SAGE_FLAGS_WS
            if [[ ${codes[*]+"${codes[*]}"} == *["$sentinel"1]* ]]; then
                break
            fi
            lo=$((lo + size))
            size=$((size * 4))
        done
        # u: the index of the first word that is neither a flag nor `--`;
        # stop: where the flags end (u, or the `--`).
        sage_flags__index_of "$sentinel" "$codes_text" || SAGE_FLAGS__INDEX=$nw
        u=$SAGE_FLAGS__INDEX
        region=${codes_text:0:u}
        stop=$u
        if sage_flags__index_of 1 "$region"; then
            stop=$SAGE_FLAGS__INDEX
            region=${region:0:stop}
        fi
        # C7/C8: the opposite flag of a mode is E3 where it is met; the
        # earliest such conflict among the modes comes first.
        conflict=$nw
        conflict_mode=-1
        for ((j = 0; j < n; j++)); do
            sage_flags__index_of "${SAGE_FLAGS_CODES:j:1}" "$region"
            first_on=$SAGE_FLAGS__INDEX
            sage_flags__index_of "${SAGE_FLAGS_NEGATIVE_CODES:j:1}" "$region"
            first_off=$SAGE_FLAGS__INDEX
            if ((first_on >= 0 && first_off >= 0)); then
                if ((first_off > first_on)); then
                    first_on=$first_off
                fi
                if ((first_on < conflict)); then
                    conflict=$first_on
                    conflict_mode=$j
                fi
            elif ((first_on >= 0)); then
                SAGE_FLAGS_VALUES[j]=true
            elif ((first_off >= 0)); then
                SAGE_FLAGS_VALUES[j]=false
            fi
        done
        if ((conflict_mode >= 0)); then
            j=$conflict_mode
            sage_flags__fail "Conflicting flags for ${SAGE_FLAGS_MODE_KEYS[j]}: both --${SAGE_FLAGS_MODE_NAMES[j]} and --no-${SAGE_FLAGS_MODE_NAMES[j]} passed."
            return 1
        fi
        if ((stop == u && u < nw)) && [[ ${words[u]} == --* ]]; then
            tok=${words[u]}
            # E2 needs the part before the first =; flags are short, so the
            # first bytes of a long token are enough.
            pattern=${tok:0:SAGE_FLAGS__MAX_FLAG + 1}
            pattern=${pattern%%=*}
            if [[ $tok == "$pattern="* ]]; then
                for ((j = 0; j < n; j++)); do
                    if [[ $pattern == "--${SAGE_FLAGS_MODE_NAMES[j]}" || $pattern == "--no-${SAGE_FLAGS_MODE_NAMES[j]}" ]]; then
                        sage_flags__fail "Flag '$pattern' takes no value (got '$tok')."
                        return 1
                    fi
                done
            fi
            sage_flags__fail "Unknown flag '$tok'. Supported flags: $SAGE_FLAGS_SUPPORTED."
            return 1
        fi
        k=$u
        if ((stop < u)); then
            k=$((stop + 1))
        fi
    fi

    # C9: the goal is the text after the k-th word and the WS run after it.
    if ((k == 0)); then
        goal=$text
    elif ((k == nw)); then
        goal=
    else
        IFS=' '
        consumed="${words[*]+"${words[*]:0:k}"} "
        if [[ $text == "$consumed"* ]]; then
            # Every gap so far was one space: the common case.
            goal=${text:${#consumed}}
        else
            # Find the last dash of the k-th word: the words hold every dash
            # before it, and the text split at dashes gives its offset.
            IFS=-
            consumed=${consumed% }
            # shellcheck disable=SC2206 # as above
            parts=($consumed)
            dashes=${#parts[@]}
            if [[ $consumed != *- ]]; then
                dashes=$((dashes - 1))
            fi
            # shellcheck disable=SC2206 # as above
            parts=($text)
            consumed=${parts[*]+"${parts[*]:0:dashes}"}
            tok=${words[k - 1]}
            tail=${tok##*-}
            offset=$((${#consumed} + 1 + ${#tail}))
            goal=${text:offset}
        fi
        if [[ $goal == ["$SAGE_FLAGS_WS"]* ]]; then
            sage_flags__ws_run "$goal"
            goal=${goal:SAGE_FLAGS__INDEX}
        fi
    fi

    SAGE_FLAGS_GOAL=$goal
    return 0
}

# C5-C10, C15.
sage_flags_parse() {
    local arguments=${1-} text j n
    SAGE_FLAGS_ERROR=
    SAGE_FLAGS_GOAL=
    SAGE_FLAGS_VALUES=()
    SAGE_FLAGS_SOURCES=()
    if ! sage_flags_is_utf8 "$arguments"; then
        sage_flags__fail "$SAGE_FLAGS_E4"
        return 1
    fi
    n=${#SAGE_FLAGS_MODE_KEYS[@]}
    for ((j = 0; j < n; j++)); do
        SAGE_FLAGS_VALUES[j]=
    done

    # C6
    text=$arguments
    if [[ $text == ["$SAGE_FLAGS_WS"]* ]]; then
        sage_flags__ws_run "$text"
        text=${text:SAGE_FLAGS__INDEX}
    fi
    if [[ $text == *["$SAGE_FLAGS_WS"] ]]; then
        sage_flags__ws_run "$text" end
        text=${text:0:${#text} - SAGE_FLAGS__INDEX}
    fi

    SAGE_FLAGS_GOAL=$text
    if [[ $text == --* ]]; then
        sage_flags__flags_and_goal "$text" || return 1
    fi

    # C15
    for ((j = 0; j < n; j++)); do
        if [[ -n ${SAGE_FLAGS_VALUES[j]} ]]; then
            SAGE_FLAGS_SOURCES[j]=flag
        elif [[ ${SAGE_FLAGS_DEFAULTS[j]-false} == true ]]; then
            SAGE_FLAGS_VALUES[j]=true
            SAGE_FLAGS_SOURCES[j]=config
        else
            SAGE_FLAGS_VALUES[j]=false
            SAGE_FLAGS_SOURCES[j]=
        fi
    done
    return 0
}

# C16: keys in contract order, ", " between members, ": " after keys.
sage_flags_render_json() {
    local j json='{' source
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        json+="\"${SAGE_FLAGS_MODE_KEYS[j]}\": ${SAGE_FLAGS_VALUES[j]}, "
    done
    sage_flags_json_string "$SAGE_FLAGS_GOAL"
    json+="\"goal\": $SAGE_FLAGS_JSON_STRING, \"error\": "
    if [[ -n $SAGE_FLAGS_ERROR ]]; then
        sage_flags_json_string "$SAGE_FLAGS_ERROR"
        json+=$SAGE_FLAGS_JSON_STRING
    else
        json+=null
    fi
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        source=${SAGE_FLAGS_SOURCES[j]}
        if [[ -n $source ]]; then
            json+=", \"${SAGE_FLAGS_MODE_KEYS[j]}_source\": \"$source\""
        else
            json+=", \"${SAGE_FLAGS_MODE_KEYS[j]}_source\": null"
        fi
    done
    SAGE_FLAGS_JSON=$json'}'
    return 0
}

sage_flags_main() {
    if ! sage_flags_split_argv ${1+"$@"}; then
        printf '%s\n' "parse.sh: $SAGE_FLAGS_USAGE_ERROR (usage: parse.sh ARGUMENTS... [--config-path PATH])" >&2
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
