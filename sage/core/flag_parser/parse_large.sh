# shellcheck shell=bash
# parse_large.sh: the rest of parse.sh, sourced by parse.sh on first need
# (never run on its own). parse.sh holds the common path only, so that a cold
# start reads a short script (see its header); this file has the rest: UTF-8
# validation of bytes >= 0x80 (C10), JSON escapes (C17), the errors (C18, E1-E4),
# and the machinery for ARGUMENTS or configs longer than SAGE_FLAGS__FAST_LIMIT
# (C21: 128 KiB arguments, thousands of flags, 10 MiB configs).
#
# The large ARGUMENTS string is expanded a bounded number of times (every
# expansion of a bash variable copies it), and never substituted
# pattern-by-pattern as a whole (bash's ${s//p/r} costs O(length) per match);
# long strings are handled in SAGE_FLAGS_CHUNK (4 KiB) chunks.
#
# The vocabulary comes from parse.sh's globals (SAGE_FLAGS_MODE_KEYS,
# SAGE_FLAGS_MODE_NAMES, SAGE_FLAGS_SUPPORTED): no mode is named here.

# shellcheck disable=SC2034 # the SAGE_FLAGS_ globals are parse.sh's API

# Loaded: parse.sh's stub that sourced this file now just runs its command.
sage_flags__large() {
    "$@"
}

# Words coded at first by sage_flags__flags_and_goal (then 4 times as many, and so on).
SAGE_FLAGS_WINDOW=512
# One-letter codes of mode i's flags in sage_flags__flags_and_goal (# and 1 are taken),
# and of the k-th mode that takes a value's valid --name=N words.
SAGE_FLAGS_CODES=abcdefghijklmnopqrstuvwxyz
SAGE_FLAGS_NEGATIVE_CODES=ABCDEFGHIJKLMNOPQRSTUVWXYZ
SAGE_FLAGS_VALUE_CODES=23456789

# C18, V6: an error resets every mode, number and note.
sage_flags__fail() {
    local i
    SAGE_FLAGS_VALUES=()
    SAGE_FLAGS_SOURCES=()
    for ((i = 0; i < ${#SAGE_FLAGS_MODE_KEYS[@]}; i++)); do
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

# E5 for mode $1 and the VALUE ($2) its --name=VALUE token carried (V2).
sage_flags__value_error() {
    sage_flags__fail "--${SAGE_FLAGS_MODE_NAMES[$1]} takes a ${SAGE_FLAGS_VALUE_NAMES[$1]} of ${SAGE_FLAGS_VALUE_MINIMUMS[$1]} or more (got '$2')."
}

# E3 for mode $1.
sage_flags__conflict() {
    sage_flags__fail "Conflicting flags for ${SAGE_FLAGS_MODE_KEYS[$1]}: both --${SAGE_FLAGS_MODE_NAMES[$1]} and --no-${SAGE_FLAGS_MODE_NAMES[$1]} passed."
}

# C7 for a token that is not a flag: E5 (a --name=VALUE whose VALUE is not a
# number the mode takes: the valid ones are flags), E2 or E1. Prefix matches
# only: ${tok%%=*} costs O(length) per byte scanned on bash 4.4, and a token
# can be 128 KiB long.
sage_flags__not_a_flag() {
    local tok=$1 flag i
    for ((i = 0; i < ${#SAGE_FLAGS_MODE_NAMES[@]}; i++)); do
        flag=--${SAGE_FLAGS_MODE_NAMES[i]}
        if [[ $tok == "$flag="* && -n ${SAGE_FLAGS_VALUE_FIELDS[i]-} ]]; then
            sage_flags__value_error "$i" "${tok#"$flag="}"
            return 1
        fi
        for flag in "--${SAGE_FLAGS_MODE_NAMES[i]}" "--no-${SAGE_FLAGS_MODE_NAMES[i]}"; do
            if [[ $tok == "$flag="* ]]; then
                sage_flags__fail "Flag '$flag' takes no value (got '$tok').$SAGE_FLAGS_E2_VALUE_HINT"
                return 1
            fi
        done
    done
    sage_flags__suggest "$tok"
    sage_flags__fail "Unknown flag '$tok'. Supported flags: $SAGE_FLAGS_SUPPORTED.${SAGE_FLAGS__SUGGESTION:+ Did you mean '$SAGE_FLAGS__SUGGESTION'?}"
}

# E1's suggestion for TOKEN (docs/SPEC.md S1-S7) in SAGE_FLAGS__SUGGESTION:
# `--` and the nearest flag form, or empty. The part before `=` becomes numbers,
# one per code point (ASCII letters lowered; any non-ASCII code point is 256, as
# forms are ASCII), only when it is short enough to be near a form (S7): the
# cost is bounded whatever TOKEN's length.
sage_flags__suggest() {
    local head part c i j n count=0 form best='' best_distance=0 tied=0 most prefix code
    SAGE_FLAGS__SUGGESTION=
    # Only a head of the token is looked at (${1%%=*} on 128 KiB is quadratic
    # on bash < 5): `--`, the longest part that can be near (S7, at most 4
    # bytes a code point), and one byte more to tell a longer part apart.
    head=${1:0:4 * SAGE_FLAGS_SUGGEST_LIMIT + 3}
    part=${head%%=*}
    if [[ $part == "$head" ]] && ((${#1} > ${#head})); then
        return 0
    fi
    part=${part#--}
    n=${#part}
    if ((n > 4 * SAGE_FLAGS_SUGGEST_LIMIT)); then # bytes: a code point is at most 4
        return 0
    fi
    SAGE_FLAGS__UNIT_CODES=()
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
        SAGE_FLAGS__UNIT_CODES[count]=$code
        count=$((count + 1))
    done
    if ((count > SAGE_FLAGS_SUGGEST_LIMIT)); then
        return 0
    fi
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_NAMES[@]}; j++)); do
        for prefix in '' no-; do
            form=$prefix${SAGE_FLAGS_MODE_NAMES[j]}
            most=$((${#form} / 3)) # S4
            sage_flags__osa_distance "$form" "$count" "$most"
            if ((SAGE_FLAGS__DISTANCE > most)); then
                continue
            fi
            if [[ -z $best ]] || ((SAGE_FLAGS__DISTANCE < best_distance)); then
                best=$form
                best_distance=$SAGE_FLAGS__DISTANCE
                tied=0
            elif ((SAGE_FLAGS__DISTANCE == best_distance)); then
                tied=1 # S5: a tie suggests nothing
            fi
        done
    done
    if [[ -n $best ]] && ((!tied)); then
        SAGE_FLAGS__SUGGESTION=--$best
    fi
    return 0
}

# S3: the optimal string alignment distance between the COUNT code points in
# SAGE_FLAGS__UNIT_CODES and FORM (ASCII), or MOST + 1 when it exceeds MOST,
# in SAGE_FLAGS__DISTANCE. Three rows of the usual table (before, previous,
# current), each cell clamped to MOST + 1 ("far"); only the band of cells at
# most MOST away from the diagonal is computed (a cell off it is far). Rows
# and the form's codes are stored one place right: bash 3.2 evaluates every
# subscript of an expression, branch taken or not, and a negative one is an error.
sage_flags__osa_distance() {
    local form=$1 n=$2 most=$3 m=${#1} i j lo hi unit last=-1 value other low code far=$(($3 + 1))
    local -a before previous current codes row_of_far
    SAGE_FLAGS__DISTANCE=$far
    if ((n - m > most || m - n > most)); then # S7: each length difference costs an edit
        return 0
    fi
    codes[0]=-1
    for ((j = 0; j <= m + 1; j++)); do
        row_of_far[j]=$far
        previous[j]=$((j - 1 <= most ? j - 1 : far))
    done
    previous[0]=$far
    for ((j = 1; j <= m; j++)); do
        printf -v code '%d' "'${form:j-1:1}"
        codes[j]=$code
    done
    before=(${row_of_far[@]+"${row_of_far[@]}"})
    for ((i = 1; i <= n; i++)); do
        unit=${SAGE_FLAGS__UNIT_CODES[i - 1]}
        current=(${row_of_far[@]+"${row_of_far[@]}"})
        current[1]=$((i <= most ? i : far))
        low=${current[1]}
        lo=$((i - most > 1 ? i - most : 1))
        hi=$((i + most < m ? i + most : m))
        for ((j = lo; j <= hi; j++)); do
            # current[j + 1]: the distance of the part's first i code points and the form's first j.
            ((value = previous[j + 1] + 1,
                other = current[j] + 1, value = other < value ? other : value,
                other = previous[j] + (unit != codes[j]), value = other < value ? other : value,
                other = j > 1 && unit == codes[j - 1] && last == codes[j] ? before[j - 1] + 1 : far,
                value = other < value ? other : value,
                current[j + 1] = value < far ? value : far,
                low = value < low ? value : low))
        done
        if ((low > most)); then # a row's minimum never decreases
            return 0
        fi
        before=(${previous[@]+"${previous[@]}"})
        previous=(${current[@]+"${current[@]}"})
        last=$unit
    done
    SAGE_FLAGS__DISTANCE=${previous[m + 1]}
    return 0
}

# C13-C14 for a long config text (sage_flags_load_defaults sets every mode to
# false first): one regular expression per mode over the whole text (a
# [[ == *...* ]] scan costs ~10 times as much per byte): the line at the start
# (after an optional BOM) or after a LF, one optional CR, then LF or the end.
sage_flags__match_defaults() {
    local text=$1 i line
    for ((i = 0; i < ${#SAGE_FLAGS_MODE_KEYS[@]}; i++)); do
        line=$'(^(\xef\xbb\xbf)?|\n)'"${SAGE_FLAGS_MODE_KEYS[i]}: true"$'\r?(\n|$)'
        if [[ $text =~ $line ]]; then
            SAGE_FLAGS_DEFAULTS[i]=true
        fi
    done
    return 0
}

# C10 (RFC 3629) for a text with a byte >= 0x80 (sage_flags_is_utf8 answers
# for ASCII), without a loop over bytes and without ${s//p/r} (quadratic on
# bash 3.2): the text is valid iff none of these byte patterns occurs, each
# found by one linear scan. The ASCII byte on both sides makes a sequence cut
# by either end look like one cut by ASCII. Lead and continuation bytes are
# disjoint classes, so a lead byte's continuation run must be exactly as long
# as the lead byte says.
sage_flags__utf8() {
    local text=.$1. cont=[$'\x80'-$'\xbf'] other=[!$'\x80'-$'\xbf']
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

# C17 for a text that needs escapes (sage_flags_json_string answers for the
# others), linear on every bash: the text is cut into chunks, and a chunk that
# needs escapes into pieces of SAGE_FLAGS__PIECE bytes (parse.sh).
sage_flags__json() {
    local s=$1 out='' c n off=0
    n=${#s}
    while ((off < n)); do
        c=${s:off:SAGE_FLAGS_CHUNK}
        off=$((off + SAGE_FLAGS_CHUNK))
        if [[ $c == *[\"\\$'\x01'-$'\x1f']* ]]; then
            sage_flags__escape_pieces "$c"
            c=$SAGE_FLAGS__ESCAPED
        fi
        out+=$c
    done
    SAGE_FLAGS_JSON_STRING=\"$out\"
    return 0
}

sage_flags__escape_pieces() {
    local s=$1 out='' c n off=0
    n=${#s}
    while ((off < n)); do
        c=${s:off:SAGE_FLAGS__PIECE}
        off=$((off + SAGE_FLAGS__PIECE))
        if [[ $c == *[\"\\$'\x01'-$'\x1f']* ]]; then
            sage_flags__escape "$c"
            c=$SAGE_FLAGS__ESCAPED
        fi
        out+=$c
    done
    SAGE_FLAGS__ESCAPED=$out
    return 0
}

# json.dumps(ensure_ascii=False) escapes of $1 (a piece) in
# SAGE_FLAGS__ESCAPED; backslashes first.
sage_flags__escape() {
    local c=$1
    c=${c//\\/\\\\}
    c=${c//\"/\\\"}
    if [[ $c == *[$'\x01'-$'\x1f']* ]]; then
        c=${c//$'\t'/\\t}
        c=${c//$'\n'/\\n}
        c=${c//$'\r'/\\r}
        c=${c//$'\b'/\\b}
        c=${c//$'\f'/\\f}
    fi
    SAGE_FLAGS__ESCAPED=$c
    if [[ $c == *[$'\x01'-$'\x1f']* ]]; then
        sage_flags__escape_controls "$c"
    fi
    return 0
}

# The \u00XX escapes, for the control bytes left.
sage_flags__escape_controls() {
    local c=$1
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
    SAGE_FLAGS__ESCAPED=$c
    return 0
}

# Length of the WS run at the start (or, with "end", at the end) of $1, in
# SAGE_FLAGS__INDEX. ${s%%pattern} costs O(length) per byte it skips (bash
# 4.4: O(length of s) per byte), so it runs on one piece only: the first
# chunk holding a non-WS byte is found by linear scans, then its first such
# piece.
sage_flags__ws_run() {
    local side=${2-} run piece
    if ! sage_flags__ws_slice "$1" "$SAGE_FLAGS_CHUNK" "$side"; then
        return 0 # all WS
    fi
    run=$SAGE_FLAGS__INDEX
    sage_flags__ws_slice "$SAGE_FLAGS__SLICE" "$SAGE_FLAGS__PIECE" "$side"
    run=$((run + SAGE_FLAGS__INDEX))
    if [[ $side == end ]]; then
        piece=${SAGE_FLAGS__SLICE##*[!"$SAGE_FLAGS_WS"]}
    else
        piece=${SAGE_FLAGS__SLICE%%[!"$SAGE_FLAGS_WS"]*}
    fi
    SAGE_FLAGS__INDEX=$((run + ${#piece}))
    return 0
}

# The first SIZE-byte slice of $1 (with "end": slices counted from the end)
# that holds a non-WS byte: its offset from that side in SAGE_FLAGS__INDEX, its
# bytes in SAGE_FLAGS__SLICE. Status 1 when $1 is all WS (INDEX: its length).
sage_flags__ws_slice() {
    local s=$1 size=$2 n off=0
    n=${#s}
    while ((off < n)); do
        if [[ ${3-} != end ]]; then
            SAGE_FLAGS__SLICE=${s:off:size}
        elif ((n - off < size)); then
            SAGE_FLAGS__SLICE=${s:0:n - off}
        else
            SAGE_FLAGS__SLICE=${s:n - off - size:size}
        fi
        if [[ $SAGE_FLAGS__SLICE == *[!"$SAGE_FLAGS_WS"]* ]]; then
            SAGE_FLAGS__INDEX=$off
            return 0
        fi
        off=$((off + size))
    done
    SAGE_FLAGS__INDEX=$n
    return 1
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
    local text=$1 goal tok codes_text region u k nw=0 j n lo size code minimum ordinal
    local first_on first_off first_value conflict conflict_mode stop offset tail dashes consumed rest
    local IFS=$SAGE_FLAGS_WS sentinel='#' pattern
    local -a words codes
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
        # array-op: bash 3.2 joins "${a[@]...}" with spaces and splits it
        # again by IFS: right here, where IFS starts with a space and no word
        # holds a WS byte (nor is empty).
        codes_text=
        lo=0
        size=$SAGE_FLAGS_WINDOW
        while ((lo < nw)); do
            if ((lo == 0 && size >= nw)); then
                codes=(${words[@]+"${words[@]/#/$sentinel}"}) # bash32: ok array-op (see above)
            else
                codes=(${words[@]+"${words[@]:lo:size}"}) # bash32: ok array-op (see above)
                codes=(${codes[@]+"${codes[@]/#/$sentinel}"}) # bash32: ok array-op (see above)
            fi
            # V2 for the modes that take a value, first (the suffix substitutions
            # below could change a VALUE): a `--name=VALUE` word becomes `=VALUE`;
            # then `#` (not a flag, so its E5 is found where it stands) when VALUE
            # holds a non-digit or is empty; the mode's value code when it has a
            # nonzero digit with another digit after it (10 or more) or ends in a
            # digit from the minimum to 9 after zeros only; `#` otherwise (below the
            # minimum).
            ordinal=0
            for j in ${SAGE_FLAGS_VALUE_FIELDS[@]+"${!SAGE_FLAGS_VALUE_FIELDS[@]}"}; do
                pattern="$sentinel--${SAGE_FLAGS_MODE_NAMES[j]}="
                code=${SAGE_FLAGS_VALUE_CODES:ordinal:1}
                minimum=${SAGE_FLAGS_VALUE_MINIMUMS[j]}
                codes=(${codes[@]+"${codes[@]/#$pattern/=}"}) # bash32: ok array-op (see above)
                codes=(${codes[@]+"${codes[@]/#=*[!0-9]*/$sentinel}"}) # bash32: ok array-op (see above)
                codes=(${codes[@]+"${codes[@]/%=/$sentinel}"}) # bash32: ok array-op (see above)
                pattern='=*[1-9][0-9]*'
                codes=(${codes[@]+"${codes[@]/#$pattern/$code}"}) # bash32: ok array-op (see above)
                pattern="=*[$minimum-9]"
                codes=(${codes[@]+"${codes[@]/#$pattern/$code}"}) # bash32: ok array-op (see above)
                codes=(${codes[@]+"${codes[@]/#=*/$sentinel}"}) # bash32: ok array-op (see above)
                ordinal=$((ordinal + 1))
            done
            for ((j = 0; j < n; j++)); do
                pattern="$sentinel--${SAGE_FLAGS_MODE_NAMES[j]}"
                codes=(${codes[@]+"${codes[@]/%$pattern/${SAGE_FLAGS_CODES:j:1}}"}) # bash32: ok array-op (see above)
                pattern="$sentinel--no-${SAGE_FLAGS_MODE_NAMES[j]}"
                codes=(${codes[@]+"${codes[@]/%$pattern/${SAGE_FLAGS_NEGATIVE_CODES:j:1}}"}) # bash32: ok array-op (see above)
            done
            pattern="$sentinel--"
            codes=(${codes[@]+"${codes[@]/%$pattern/1}"}) # bash32: ok array-op (see above)
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
        ordinal=0
        for ((j = 0; j < n; j++)); do
            sage_flags__index_of "${SAGE_FLAGS_CODES:j:1}" "$region"
            first_on=$SAGE_FLAGS__INDEX
            if [[ -n ${SAGE_FLAGS_VALUE_FIELDS[j]-} ]]; then
                # V3: --name=N is --name; V4: the first one gives the number.
                sage_flags__index_of "${SAGE_FLAGS_VALUE_CODES:ordinal:1}" "$region"
                first_value=$SAGE_FLAGS__INDEX
                ordinal=$((ordinal + 1))
                if ((first_value >= 0)); then
                    tok=${words[first_value]#*=}
                    SAGE_FLAGS__GIVEN[j]=${tok#"${tok%%[!0]*}"}
                    if ((first_on < 0 || first_value < first_on)); then
                        first_on=$first_value
                    fi
                fi
            fi
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
            sage_flags__conflict "$conflict_mode"
            return 1
        fi
        if ((stop == u && u < nw)) && [[ ${words[u]} == --* ]]; then
            sage_flags__not_a_flag "${words[u]}"
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
        consumed="${words[*]+"${words[*]:0:k}"} " # bash32: ok array-op (no word is empty)
        if [[ $text == "$consumed"* ]]; then
            # Every gap so far was one space: the common case.
            goal=${text:${#consumed}}
        else
            # Find the last dash of the k-th word: the words hold every dash
            # before it (d of them), and the text split at dashes, its first
            # d parts dropped, is the text after it. No array slice: bash
            # 3.2 garbles slices of arrays that hold empty strings. The "."
            # keeps a last empty part.
            consumed=${consumed% }
            IFS=- # bash32: ok ifs-pattern (no pattern until IFS is restored)
            # shellcheck disable=SC2086 # splitting is the point; globbing is off (set -f)
            set -- $consumed.
            dashes=$(($# - 1))
            # shellcheck disable=SC2086 # as above
            set -- $text.
            shift "$dashes"
            rest="$*"
            IFS=$SAGE_FLAGS_WS
            tok=${words[k - 1]}
            tail=${tok##*-}
            offset=$((${#text} - ${#rest} + 1 + ${#tail}))
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

# sage_flags_parse for a long ARGUMENTS: C5-C10, C15.
sage_flags__parse_large() {
    local arguments=${1-} text j n
    SAGE_FLAGS_ERROR=
    SAGE_FLAGS_GOAL=
    SAGE_FLAGS_VALUES=()
    SAGE_FLAGS_SOURCES=()
    SAGE_FLAGS__GIVEN=()
    if [[ $arguments == *[$'\x80'-$'\xff']* ]] && ! sage_flags__utf8 "$arguments"; then
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

    sage_flags__resolve
}
