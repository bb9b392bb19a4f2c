# shellcheck shell=bash
# persist.sh: the bash layer of `sage-flags persist` (docs/SPEC.md, rules P1-P8).
#
#   bash sage/core/flag_parser/parse.sh "$ARGUMENTS" | bash sage/core/flag_parser/persist.sh MANIFEST
#
# reads one contract line (what parse.sh or resume.sh prints) from stdin,
# writes it unchanged to stdout and, when it carries no error, records its mode
# values in MANIFEST's YAML frontmatter `flags:` block. Exit status: 0 written;
# 1 the line carried an error (nothing written); 2 stdin is not one contract
# line, or a usage error (nothing on stdout, one stderr line); 3 the manifest
# cannot be updated safely (one stderr line, file untouched, the line still on
# stdout). python/sage_flags/manifest.py is the reference; this file follows
# it function by function.
#
# Rules: bash 3.2, no eval, set -u, LC_ALL=C (set by sourcing parse.sh, whose
# vocabulary arrays, UTF-8 check and JSON functions this file uses). Unlike
# the parse path it forks: `ls -lnd` (the old file's permission bits, owner and
# group), `sync` (the temp file's data to disk), `mv` (the atomic rename), `rm`
# for a stale temp file, `chmod` only for execute/special bits, `chown` only
# when the old file's owner or group is not the caller's (root, P6). A symlink
# as the manifest is refused (P6), never followed.
# External commands run through `command` or `exec`, so that a function
# exported in the environment (BASH_FUNC_mv%%) cannot stand in for them.
# Limitation: bash cannot fsync a directory, so the rename is not forced to
# disk (after a power cut the manifest is the old or the new file, both whole);
# `sync FILE` is GNU coreutils' fsync of one file, elsewhere it syncs all.
#
# Function API, also used by resume.sh (names prefixed sage_flags_ / SAGE_FLAGS_):
#   sage_flags_read_contract_line LINE    P1: status 0 iff LINE (with its LF) is one
#                                         contract line; sets SAGE_FLAGS_VALUES
#                                         (true/false, parallel to SAGE_FLAGS_MODE_KEYS),
#                                         SAGE_FLAGS_NUMBERS (at the index of each mode
#                                         that takes a value) and SAGE_FLAGS_LINE_HAS_ERROR (0/1).
#   sage_flags_read_frontmatter TEXT      the manifest's frontmatter; status 1 with
#                                         SAGE_FLAGS_UNSAFE when it cannot be updated safely.
#   sage_flags_recorded_values TEXT       R1: SAGE_FLAGS_RECORDED, parallel to the
#                                         mode keys: true, false or empty (nothing recorded);
#                                         SAGE_FLAGS_RECORDED_NUMBERS, at the index of each
#                                         mode that takes a value: its number or empty.
#   sage_flags_updated_manifest TEXT      P3-P5, P8: the new bytes in SAGE_FLAGS_NEW
#                                         for SAGE_FLAGS_VALUES; status 1 when unsafe.
#   sage_flags_persist MANIFEST           P3-P8: read, update, write atomically; status 1
#                                         with SAGE_FLAGS_UNSAFE set when nothing was written.

# shellcheck disable=SC2034 # the SAGE_FLAGS_ globals are the API the sourcing scripts read
# The three fixed lines of every entry (see parse.sh).
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=sage/core/flag_parser/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }
# shellcheck source=sage/core/flag_parser/parse.sh
. "$sage_flags_dir/parse.sh"
# On a terminal `read -d ''` turns line editing off (Ctrl-D would be a byte, not the end): refused, as I5.
if [[ ${BASH_SOURCE[0]} == "$0" && -t 0 ]]; then
    printf '%s\n' "persist.sh: standard input is a terminal; pipe the contract line in (parse.sh ... | persist.sh MANIFEST)" >&2
    exit 2
fi

SAGE_FLAGS_BOM=$'\xef\xbb\xbf'
SAGE_FLAGS_BLANKS=$' \t' # what YAML lets stand between tokens on a line
SAGE_FLAGS_NEW_BLOCK_INDENT='  '
SAGE_FLAGS_TEMP_MARKER=.sage-flags-tmp. # temp files: .<manifest name>.sage-flags-tmp.<pid>
# P1: persist's stdin holds one contract line of at most this many bytes (see manifest.py), read in chunks.
SAGE_FLAGS_MAX_LINE_BYTES=1048576
# P10: a front matter ends, its closing line included, within the first this many bytes of the file.
SAGE_FLAGS_MAX_FRONTMATTER_BYTES=65536
# The regular expressions of manifest.py, the same characters (see there),
# built from parts that stay local.
sage_flags__manifest_patterns() {
    local key_form quoted flow_item inner_flow tail
    key_form=$'("[^"\\\\]*"|\'[^\']*\'|[^][{}#&*!|>\'"%@`,?: \t-][^:#]*|[-?:][^ \t:#][^:#]*)'
    quoted=$'("([^"\\\\]|\\\\.)*"|\'([^\']|\'\')*\')'
    flow_item="([^][{}\"'#]|$quoted)"
    inner_flow="(\\[$flow_item*\\]|\\{$flow_item*\\})"
    tail=$'([ \t]+#.*|[ \t]*)'
    SAGE_FLAGS_ENTRY_RE="^$key_form"$'[ \t]*:([ \t].*)?$'
    SAGE_FLAGS_PREFIX_RE=$'^([-?:]([ \t]|$)|'"$key_form"$'[ \t]*:([ \t]|$)|[&!][^ \t]*)[ \t]*'
    SAGE_FLAGS_ONE_LINE_RE="^($quoted|\\[($flow_item|$inner_flow)*\\]|\\{($flow_item|$inner_flow)*\\})$tail\$"
    SAGE_FLAGS_BLOCK_HEADER_RE="^[|>]([1-9][+-]?|[+-][1-9]?)?$tail\$"
}
sage_flags__manifest_patterns

SAGE_FLAGS_UNSAFE=
SAGE_FLAGS_LINE_HAS_ERROR=0
SAGE_FLAGS_NEW=
SAGE_FLAGS_RECORDED=()
SAGE_FLAGS_RECORDED_NUMBERS=()

# ---------------------------------------------------------------- the contract line

# Removes the literal $1 from the start of sf_scan; status 1 if it is not there.
sage_flags__take() {
    if [[ $sf_scan != "$1"* ]]; then
        return 1
    fi
    sf_scan=${sf_scan:${#1}}
}

# Moves the JSON string at the start of sf_scan to sf_token.
# One JSON string in canonical form (C17) at the start of a text: raw bytes but
# '"' and '\'; the short escapes; \u00xx only for the other controls. Raw C0
# controls are refused apart (sage_flags__take_string): bash 3.2 cannot compile
# a regular expression holding the byte 0x01 (its internal quoting byte).
sage_flags__take_string() {
    local string_re='^"([^"\\]|\\["\\bfnrt]|\\u00(0[0-7bef]|1[0-9a-f]))*"'
    if [[ ! $sf_scan =~ $string_re ]]; then
        return 1
    fi
    sf_token=${BASH_REMATCH[0]}
    if [[ $sf_token == *[$'\x01'-$'\x1f']* ]]; then
        return 1
    fi
    sf_scan=${sf_scan:${#sf_token}}
}

# P1: a parse line (C16) or a resume line (the same plus "notes"), byte for byte
# in canonical form, valid UTF-8, one LF; values that agree with C15 and C18.
sage_flags_read_contract_line() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local sf_scan sf_token
    local number_re='^(0|[1-9][0-9]*)' line=$1 j n=${#SAGE_FLAGS_MODE_KEYS[@]} key goal error_null=1 notes_empty=1 is_resume=0 number note
    local -a sources
    sources=()
    if [[ $line != *$'\n' ]]; then
        return 1
    fi
    line=${line%$'\n'}
    if [[ $line == *$'\n'* ]] || ! sage_flags_is_utf8 "$line"; then
        return 1
    fi
    sf_scan=$line
    sage_flags__take '{' || return 1
    for ((j = 0; j < n; j++)); do
        if ((j > 0)); then
            sage_flags__take ', ' || return 1
        fi
        sage_flags__take "\"${SAGE_FLAGS_MODE_KEYS[j]}\": " || return 1
        if sage_flags__take true; then
            SAGE_FLAGS_VALUES[j]=true
        elif sage_flags__take false; then
            SAGE_FLAGS_VALUES[j]=false
        else
            return 1
        fi
    done
    sage_flags__take ', "goal": ' || return 1
    sage_flags__take_string || return 1
    goal=$sf_token
    sage_flags__take ', "error": ' || return 1
    if ! sage_flags__take null; then
        sage_flags__take_string || return 1
        error_null=0
    fi
    for ((j = 0; j < n; j++)); do
        sage_flags__take ", \"${SAGE_FLAGS_MODE_KEYS[j]}_source\": " || return 1
        for key in null '"flag"' '"config"' '"manifest"' ''; do
            if [[ -n $key ]] && sage_flags__take "$key"; then
                break
            fi
        done
        if [[ -z $key ]]; then
            return 1
        fi
        sources[j]=$key
    done
    SAGE_FLAGS_NUMBERS=()
    for j in ${SAGE_FLAGS_VALUE_FIELDS[@]+"${!SAGE_FLAGS_VALUE_FIELDS[@]}"}; do
        sage_flags__take ", \"${SAGE_FLAGS_VALUE_FIELDS[j]}\": " || return 1
        [[ $sf_scan =~ $number_re ]] || return 1 # C16's form (V7): no sign, no leading zero
        number=${BASH_REMATCH[0]}
        sf_scan=${sf_scan:${#number}}
        sage_flags__take ", \"${SAGE_FLAGS_NOTE_FIELDS[j]}\": " || return 1
        note=null
        if ! sage_flags__take null; then
            sage_flags__take_string || return 1
            note=$sf_token
        fi
        # V4-V6: 0 and no note while off; minimum..cap while on; a note only at the cap.
        if [[ ${SAGE_FLAGS_VALUES[j]} == false ]]; then
            [[ $number == 0 && $note == null ]] || return 1
        elif sage_flags__below "$number" "${SAGE_FLAGS_VALUE_MINIMUMS[j]}" ||
            sage_flags__below "${SAGE_FLAGS_VALUE_CAPS[j]}" "$number" ||
            [[ $note != null && $number != "${SAGE_FLAGS_VALUE_CAPS[j]}" ]]; then
            return 1
        fi
        SAGE_FLAGS_NUMBERS[j]=$number
    done
    if ! sage_flags__take '}'; then
        sage_flags__take ', "notes": [' || return 1
        is_resume=1
        if ! sage_flags__take ']'; then
            while :; do
                sage_flags__take_string || return 1
                notes_empty=0
                if sage_flags__take ']'; then
                    break
                fi
                sage_flags__take ', ' || return 1
            done
        fi
        sage_flags__take '}' || return 1
    fi
    if [[ -n $sf_scan ]]; then
        return 1
    fi
    for ((j = 0; j < n; j++)); do
        case ${sources[j]}:${SAGE_FLAGS_VALUES[j]} in
            null:true | '"config":false') return 1 ;;  # C15
            '"manifest":'*) ((is_resume)) || return 1 ;; # only resume restores from a manifest
        esac
        if ((!error_null)) && [[ ${sources[j]} != null || ${SAGE_FLAGS_VALUES[j]} != false ]]; then
            return 1 # C18: an error line holds nothing else
        fi
    done
    if ((!error_null)) && [[ $goal != '""' || $notes_empty == 0 ]]; then
        return 1
    fi
    SAGE_FLAGS_LINE_HAS_ERROR=$((1 - error_null))
    return 0
}

# ---------------------------------------------------------------- lines

# The next line of fm_text at fm_off, its LF kept, into
# sf_line. Windows of 4 KiB and up: linear in the text, however long.
sage_flags__next_line() {
    local window=$SAGE_FLAGS_CHUNK chunk line
    while :; do
        chunk=${fm_text:fm_off:window}
        line=${chunk/$'\n'*/} # not ${chunk%%...}: bash 4.4 spends O(length) per byte on that
        if ((${#line} < ${#chunk})); then
            line+=$'\n'
            break
        fi
        if ((fm_off + ${#chunk} >= fm_n)); then
            break
        fi
        window=$((window * 2))
    done
    sf_line=$line
    fm_off=$((fm_off + ${#line}))
}

# A line without its LF and without one CR before it (CRLF files).
# (`${1%$'\n'}` would cost a pass per byte of a line without one: tested first.)
sage_flags__content() {
    sf_content=$1
    if [[ $sf_content == *$'\n' ]]; then
        sf_content=${sf_content%?}
    fi
    if [[ $sf_content == *$'\r' ]]; then
        sf_content=${sf_content%?}
    fi
}

sage_flags__is_blank() {
    [[ $1 != *[!"$SAGE_FLAGS_BLANKS"]* ]]
}

# P3: a frontmatter fence: `---` then nothing but blanks.
sage_flags__is_fence() {
    [[ $1 == ---* ]] && sage_flags__is_blank "${1:3}"
}

sage_flags__is_comment() {
    [[ ${1#"${1/[!"$SAGE_FLAGS_BLANKS"]*/}"} == '#'* ]]
}

# What follows `KEY:` in CONTENT (blanks allowed before the colon; the key
# plain, "double" or 'single' quoted) into sf_rest.
sage_flags__key_rest() {
    local after form
    for form in "$2" "\"$2\"" "'$2'" ''; do
        if [[ -n $form && $1 == "$form"* ]]; then
            break
        fi
    done
    if [[ -z $form ]]; then
        return 1
    fi
    after=${1:${#form}}
    after=${after#"${after/[!"$SAGE_FLAGS_BLANKS"]*/}"}
    if [[ $after != :* ]]; then
        return 1
    fi
    sf_rest=${after:1}
}

# Nothing, blanks, or blanks then a `# comment`: what may follow a value.
sage_flags__is_comment_tail() {
    local stripped=${1#"${1/[!"$SAGE_FLAGS_BLANKS"]*/}"}
    if [[ -z $stripped ]]; then
        return 0
    fi
    [[ $1 == ["$SAGE_FLAGS_BLANKS"]* && $stripped == '#'* ]]
}

# The value token of `key:REST` (sf_token at sf_token_start in
# REST); status 1 when it is not one plain token.
sage_flags__value_token() {
    local rest=$1 lead stripped token
    lead=${rest/[!"$SAGE_FLAGS_BLANKS"]*/}
    stripped=${rest:${#lead}}
    if [[ -z $lead || -z $stripped || $stripped == '#'* ]]; then
        return 1
    fi
    token=${stripped/["$SAGE_FLAGS_BLANKS"]*/}
    sage_flags__is_comment_tail "${stripped:${#token}}" || return 1
    # A value YAML reads as one scalar on this line: plain (no indicator first;
    # - ? : only when not alone), or quoted without escapes or inner quotes.
    case $token in
        \"*) [[ ${#token} -ge 2 && $token == *\" && ${token:1:${#token}-2} != *[\"\\]* ]] || return 1 ;;
        \'*) [[ ${#token} -ge 2 && $token == *\' && ${token:1:${#token}-2} != *\'* ]] || return 1 ;;
        - | '?' | :) return 1 ;;
        ['[]{}#&*!|>%@`,']*) return 1 ;;
    esac
    sf_token_start=${#lead}
    sf_token=$token
}

# ---------------------------------------------------------------- frontmatter

# One pass over the front matter, line by line (P3, P4, P8, P10, P11), as
# manifest.py's Frontmatter: TEXT is the manifest's bytes; WRITE (1 or 0) says
# whether entry_tokens are written (persist) or only read (resume).
# Sets fm_lines (the front matter persist writes, fences included),
# fm_off (where the body starts) and fm_recorded_tokens
# (parallel to entry_keys: the last entry's value token, empty when
# not one plain value). Status 1 with SAGE_FLAGS_UNSAFE: not in the subset (P8).
sage_flags_read_frontmatter() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local fm_write fm_text fm_n fm_first_key_seen fm_header_seen fm_in_block fm_entry_indent fm_last_entry_key fm_scalar_owner fm_scalar_keep fm_keep_at_block_end sf_line sf_content sf_rest sf_token sf_token_start sf_value sf_owner_column
    local -a fm_seen fm_held
    local text=$1 first
    SAGE_FLAGS_UNSAFE=
    fm_write=${2:-0}
    fm_bom=
    if [[ $text == "$SAGE_FLAGS_BOM"* ]]; then
        fm_bom=$SAGE_FLAGS_BOM
        text=${text:3}
    fi
    # P10: the front matter is scanned in the first MAX + 1 bytes only; the body is copied, never scanned.
    fm_text=${text:0:SAGE_FLAGS_MAX_FRONTMATTER_BYTES+1}
    fm_n=${#fm_text}
    fm_off=0
    sage_flags__next_line
    first=$sf_line
    fm_eol=$'\n' # added lines follow the first line
    if [[ $first == *$'\r\n' ]]; then
        fm_eol=$'\r\n'
    fi
    sage_flags__content "$first"
    fm_present=0
    fm_recorded_tokens=()
    fm_lines=("$first")
    if ! sage_flags__is_fence "$sf_content"; then
        fm_off=0 # no front matter: all of the text is the body
        return 0
    fi
    fm_present=1
    fm_first_key_seen=0
    fm_header_seen=0
    fm_in_block=0
    fm_entry_indent=
    fm_last_entry_key=-1 # the key of the block's last entry while it may continue
    fm_seen=()           # 1 at the number of each key that has an entry
    fm_held=()           # blank lines and column-0 comments after the block's last line
    fm_scalar_owner=-1   # while a block scalar is open: the column its text must be deeper than
    fm_scalar_keep=0
    fm_keep_at_block_end=0
    while :; do
        if ((fm_off >= fm_n)); then
            SAGE_FLAGS_UNSAFE="the frontmatter's opening --- has no closing ---"
            return 1
        fi
        sage_flags__next_line
        if ((${#fm_bom} + fm_off > SAGE_FLAGS_MAX_FRONTMATTER_BYTES)); then
            SAGE_FLAGS_UNSAFE="the frontmatter is longer than $SAGE_FLAGS_MAX_FRONTMATTER_BYTES bytes"
            return 1
        fi
        sage_flags__content "$sf_line"
        if sage_flags__is_fence "$sf_content"; then
            break
        fi
        sage_flags__take_line "$sf_line" || return 1
    done
    first=$sf_line # the closing fence
    sage_flags__end_block
    if ((!fm_header_seen && fm_write)); then
        fm_lines[${#fm_lines[@]}]=flags:$fm_eol
        sage_flags__missing_entries
    fi
    fm_lines[${#fm_lines[@]}]=$first
}

# One line between the fences.
sage_flags__take_line() {
    local line=$1 content indent kind rest
    sage_flags__content "$line"
    content=$sf_content
    indent=${content/[!"$SAGE_FLAGS_BLANKS"]*/}
    if sage_flags__is_blank "$content"; then
        kind=blank
    elif ((fm_scalar_owner >= 0 && ${#indent} > fm_scalar_owner)); then
        kind=text # a block scalar's text: any bytes
    else
        fm_scalar_owner=-1 # a line not deeper than its owner ends a block scalar
        kind=comment
        if ! sage_flags__is_comment "$content"; then
            kind=node
            sage_flags__check_node "$content" || return 1
        fi
    fi
    if ((fm_in_block)); then
        if [[ $kind == blank || ($kind == comment && -z $indent) ]]; then
            fm_held[${#fm_held[@]}]=$line # the block's, if indented lines follow
            return 0
        fi
        if [[ -n $indent ]]; then
            fm_lines+=(${fm_held[@]+"${fm_held[@]}"})
            fm_held=()
            sage_flags__block_line "$line" "$content" "$indent" "$kind"
            return
        fi
        if [[ -z $fm_entry_indent && ($content == - || $content == -["$SAGE_FLAGS_BLANKS"]*) ]]; then
            SAGE_FLAGS_UNSAFE="the frontmatter's flags: block is a list, not a mapping" # compact `- x`
            return 1
        fi
        sage_flags__end_block
    fi
    if [[ $kind == node && -z $indent ]] && sage_flags__key_rest "$content" flags; then
        if ((fm_header_seen)); then
            SAGE_FLAGS_UNSAFE='the frontmatter has two top-level flags: keys'
            return 1
        fi
        if ! sage_flags__is_comment_tail "$sf_rest" || [[ $sf_rest == '#'* ]]; then
            SAGE_FLAGS_UNSAFE="the frontmatter's flags: key is not a block"
            return 1
        fi
        fm_header_seen=1
        fm_in_block=1
    fi
    fm_lines[${#fm_lines[@]}]=$line
}

# P8, P11 for a line that starts a node: one YAML document, a mapping at column
# 0, and a value YAML reads whole on this line (or a block scalar, whose text
# the next lines are).
sage_flags__check_node() {
    local content=$1
    case $content in
        --- | ---[" "$'\t']* | ... | ...[" "$'\t']*)
            SAGE_FLAGS_UNSAFE='the frontmatter holds a YAML document marker'
            return 1
            ;;
    esac
    if ((!fm_first_key_seen)) && [[ ! $content =~ $SAGE_FLAGS_ENTRY_RE ]]; then
        SAGE_FLAGS_UNSAFE='the frontmatter is not a mapping with its keys at column 0'
        return 1
    fi
    fm_first_key_seen=1
    sage_flags__node_value "$content"
    case $sf_value in
        [\"\'\[\{]*)
            if [[ ! $sf_value =~ $SAGE_FLAGS_ONE_LINE_RE ]]; then
                SAGE_FLAGS_UNSAFE='a quoted scalar or flow collection in the frontmatter goes on past its line'
                return 1
            fi
            ;;
        [\|\>]*)
            if [[ ! $sf_value =~ $SAGE_FLAGS_BLOCK_HEADER_RE ]]; then
                SAGE_FLAGS_UNSAFE="a block scalar's header in the frontmatter is not one YAML reads"
                return 1
            fi
            fm_scalar_owner=$sf_owner_column
            fm_scalar_keep=0
            if [[ ${sf_value/[#]*/} == *+* ]]; then
                fm_scalar_keep=1
            fi
            ;;
    esac
    return 0
}

# P11: the column of the node that owns a line's value into
# sf_owner_column, the value into sf_value: what stands in front
# (`- `, `? `, `: `, `key: `, anchors and tags) taken off.
sage_flags__node_value() {
    local indent=${1/[!"$SAGE_FLAGS_BLANKS"]*/} column
    column=${#indent}
    sf_owner_column=$column
    sf_value=${1:column}
    while [[ $sf_value =~ $SAGE_FLAGS_PREFIX_RE ]]; do
        if [[ $sf_value != [\&!]* ]]; then # an anchor or a tag belongs to the value
            sf_owner_column=$column
        fi
        column=$((column + ${#BASH_REMATCH[0]}))
        sf_value=${sf_value:${#BASH_REMATCH[0]}}
    done
}

# An indented line of the flags block: LINE CONTENT INDENT KIND.
sage_flags__block_line() {
    local line=$1 content=$2 indent=$3 kind=$4
    if [[ $kind == node && -z $fm_entry_indent ]]; then
        fm_entry_indent=$indent
    fi
    if [[ $kind == text ]] || { [[ $kind == node ]] && ((${#indent} > ${#fm_entry_indent})); }; then
        sage_flags__entry_continues || return 1
    elif [[ $kind == node ]]; then
        if [[ $indent != "$fm_entry_indent" || ! ${content:${#indent}} =~ $SAGE_FLAGS_ENTRY_RE ]]; then
            SAGE_FLAGS_UNSAFE="the frontmatter's flags: block is not a mapping of one key per line"
            return 1
        fi
        sage_flags__entry "$line" "$content" "$indent" || return 1
        line=$sf_line
    fi
    fm_lines[${#fm_lines[@]}]=$line
    fm_keep_at_block_end=0
    if ((fm_scalar_owner >= 0 && fm_scalar_keep)); then
        fm_keep_at_block_end=1
    fi
}

# An entry of the flags block: LINE CONTENT INDENT, recorded and, for persist,
# its value token replaced (P4); the line into sf_line.
sage_flags__entry() {
    local line=$1 content=$2 indent=$3 number colon_end rest
    sf_line=$line
    fm_last_entry_key=-1
    for ((number = 0; number < ${#entry_keys[@]}; number++)); do
        sage_flags__key_rest "${content:${#indent}}" "${entry_keys[number]}" || continue
        rest=$sf_rest
        fm_recorded_tokens[number]=
        fm_seen[number]=1
        fm_last_entry_key=$number
        if ! sage_flags__value_token "$rest"; then
            if ((fm_write)); then
                SAGE_FLAGS_UNSAFE="the flags: entry for ${entry_keys[number]} has no single plain value"
                return 1
            fi
            return 0
        fi
        fm_recorded_tokens[number]=$sf_token
        if ((fm_write)); then
            colon_end=$((${#content} - ${#rest})) # `rest` is what follows the colon
            sf_line=${content:0:colon_end+sf_token_start}${entry_tokens[number]}${content:colon_end+sf_token_start+${#sf_token}}${line:${#content}}
        fi
        return 0
    done
}

# A deeper line under the block's last entry: that entry's value is not one plain value.
sage_flags__entry_continues() {
    local number=$fm_last_entry_key
    if ((number < 0)); then
        return 0
    fi
    fm_recorded_tokens[number]=
    if ((fm_write)); then
        SAGE_FLAGS_UNSAFE="the flags: entry for ${entry_keys[number]} has no single plain value"
        return 1
    fi
    fm_last_entry_key=-1
}

# The flags block ends: the missing entries go after its last line (after the
# blank lines that follow when those belong to a keep block scalar `|+`), then
# the held lines.
sage_flags__end_block() {
    local line blank=0 index=0
    if ((!fm_in_block)); then
        return 0
    fi
    fm_in_block=0
    for line in ${fm_held[@]+"${fm_held[@]}"}; do
        sage_flags__content "$line"
        if ((!fm_keep_at_block_end)) || ! sage_flags__is_blank "$sf_content"; then
            break
        fi
        blank=$((blank + 1))
    done
    for line in ${fm_held[@]+"${fm_held[@]}"}; do
        if ((index == blank && fm_write)); then
            sage_flags__missing_entries
        fi
        fm_lines[${#fm_lines[@]}]=$line
        index=$((index + 1))
    done
    if ((index == blank && fm_write)); then
        sage_flags__missing_entries
    fi
    fm_held=()
}

# The entry lines for the keys that have none, in vocabulary order, onto fm_lines.
sage_flags__missing_entries() {
    local number indent=${fm_entry_indent:-$SAGE_FLAGS_NEW_BLOCK_INDENT}
    for ((number = 0; number < ${#entry_keys[@]}; number++)); do
        if [[ -z ${fm_seen[number]-} ]]; then
            fm_lines[${#fm_lines[@]}]="$indent${entry_keys[number]}: ${entry_tokens[number]-}$fm_eol"
        fi
    done
}

# resume: the manifest's bytes (on stdin) up to the end of its frontmatter's
# closing line (the first line when it has none) into the variable named OUT,
# read in chunks: a long body is never read, nor more than MAX + 1 bytes of the
# front matter (P10). A NUL ends the reading; an x stands for it, so that no
# fence line ends there (as manifest.py sees the NUL).
sage_flags_read_frontmatter_prefix() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local chunk tail='' read_text='' sf_content
    while IFS= read -r -d '' -n 4096 chunk; do
        read_text+=$chunk
        if ((${#chunk} < 4096)); then
            read_text+=x
            chunk=
            break
        fi
        chunk=
        if ((${#read_text} > SAGE_FLAGS_MAX_FRONTMATTER_BYTES)); then
            break
        fi
        if [[ $read_text == *$'\n'* ]]; then
            sage_flags__content "${read_text/$'\n'*/}"
            if ! sage_flags__is_fence "${sf_content#"$SAGE_FLAGS_BOM"}"; then
                break
            fi
            if [[ $tail${read_text:${#read_text}-4096} == *$'\n'---* ]] &&
                sage_flags__closes "${read_text%$'\n'*}"$'\n'; then
                break
            fi
        fi
        tail=${read_text:${#read_text}-3}
    done
    printf -v "$1" '%s' "$read_text$chunk" # chunk: the end of the file
}

# Whether TEXT's lines after the first hold a fence (the front matter closes).
sage_flags__closes() {
    local fm_text fm_n fm_off sf_line sf_content
    fm_text=$1
    fm_n=${#1}
    fm_off=0
    sage_flags__next_line
    while ((fm_off < fm_n)); do
        sage_flags__next_line
        sage_flags__content "$sf_line"
        if sage_flags__is_fence "$sf_content"; then
            return 0
        fi
    done
    return 1
}

# R1: what the manifest TEXT records into SAGE_FLAGS_RECORDED (parallel to the
# mode keys: true, false or empty) and SAGE_FLAGS_RECORDED_NUMBERS (at the index
# of each mode that takes a value: its number or empty); anything unclear
# records nothing. A number counts when it is a plain decimal from the minimum to the cap.
sage_flags_recorded_values() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local fm_bom fm_off fm_eol fm_present
    local -a fm_lines fm_recorded_tokens entry_keys entry_tokens
    local j number=0 token digits
    SAGE_FLAGS_RECORDED=()
    SAGE_FLAGS_RECORDED_NUMBERS=()
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        SAGE_FLAGS_RECORDED[j]=
    done
    sage_flags__vocabulary_keys
    sage_flags_read_frontmatter "$1" 0 || return 0
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        token=${fm_recorded_tokens[number]-}
        number=$((number + 1))
        case $token in
            true | false) SAGE_FLAGS_RECORDED[j]=$token ;;
        esac
        if [[ -z ${SAGE_FLAGS_VALUE_FIELDS[j]-} ]]; then
            continue
        fi
        token=${fm_recorded_tokens[number]-}
        number=$((number + 1))
        digits=${token#"${token%%[!0]*}"}
        if [[ -n $token && $token != *[!0-9]* ]] && ((${#token} <= 9)) &&
            ! sage_flags__below "$digits" "${SAGE_FLAGS_VALUE_MINIMUMS[j]}" &&
            ! sage_flags__below "${SAGE_FLAGS_VALUE_CAPS[j]}" "$digits"; then
            SAGE_FLAGS_RECORDED_NUMBERS[j]=$digits
        fi
    done
    return 0
}

# P4: the entries persist writes, in vocabulary order (each mode, then its
# number when it takes a value): entry_keys, and for
# SAGE_FLAGS_VALUES and SAGE_FLAGS_NUMBERS their value tokens entry_tokens.
sage_flags__vocabulary_keys() {
    local j
    entry_keys=()
    entry_tokens=()
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        entry_keys[${#entry_keys[@]}]=${SAGE_FLAGS_MODE_KEYS[j]}
        entry_tokens[${#entry_tokens[@]}]=${SAGE_FLAGS_VALUES[j]-}
        if [[ -n ${SAGE_FLAGS_VALUE_FIELDS[j]-} ]]; then
            entry_keys[${#entry_keys[@]}]=${SAGE_FLAGS_VALUE_FIELDS[j]}
            entry_tokens[${#entry_tokens[@]}]=${SAGE_FLAGS_NUMBERS[j]-}
        fi
    done
}

# P3-P5, P8: SAGE_FLAGS_NEW is the manifest TEXT with SAGE_FLAGS_VALUES (and
# SAGE_FLAGS_NUMBERS) recorded.
sage_flags_updated_manifest() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local fm_bom fm_off fm_eol fm_present
    local -a fm_lines fm_recorded_tokens entry_keys entry_tokens
    local text=$1 eol e
    sage_flags__vocabulary_keys
    sage_flags_read_frontmatter "$text" 1 || return 1
    text=${text:${#fm_bom}}
    eol=$fm_eol
    if ((!fm_present)); then
        SAGE_FLAGS_NEW="$fm_bom---${eol}flags:$eol"
        for ((e = 0; e < ${#entry_keys[@]}; e++)); do
            SAGE_FLAGS_NEW+="$SAGE_FLAGS_NEW_BLOCK_INDENT${entry_keys[e]}: ${entry_tokens[e]}$eol"
        done
        SAGE_FLAGS_NEW+=---$eol$text
        return 0
    fi
    printf -v SAGE_FLAGS_NEW '%s' ${fm_lines[@]+"${fm_lines[@]}"}
    SAGE_FLAGS_NEW=$fm_bom$SAGE_FLAGS_NEW${text:fm_off}
    return 0
}

# ---------------------------------------------------------------- files

# The permission bits of PATH, as octal digits, into sf_mode, and its
# numeric owner and group (uid:gid) into sf_owner, from `ls -lnd` (POSIX format).
sage_flags__mode_of() {
    local listing perms bits=0 i c
    local -a values fields
    values=(256 128 64 32 16 8 4 2 1)
    listing=$(exec ls -lnd -- "$1" 2>/dev/null) || return 1 # exec: one fork, not two
    # shellcheck disable=SC2206 # split on blanks; globbing is off (parse.sh's set -f)
    fields=($listing)
    if ((${#fields[@]} < 4)) || [[ ${fields[2]} == *[!0-9]* || ${fields[3]} == *[!0-9]* ]]; then
        return 1
    fi
    sf_owner=${fields[2]}:${fields[3]}
    perms=${listing:1:9}
    for ((i = 0; i < 9; i++)); do
        c=${perms:i:1}
        case $c in
            r | w | x) bits=$((bits | values[i])) ;;
            s) bits=$((bits | values[i] | (i == 2 ? 2048 : 1024))) ;;
            S) bits=$((bits | (i == 2 ? 2048 : 1024))) ;;
            t) bits=$((bits | values[i] | 512)) ;;
            T) bits=$((bits | 512)) ;;
            -) ;;
            *) return 1 ;;
        esac
    done
    printf -v sf_mode '%04o' "$bits"
}

# P6: temp files left by a persist killed before its rename: ours (same owner)
# and named after a process that is gone.
sage_flags__remove_stale_temp_files() {
    local prefix=$1/.$2$SAGE_FLAGS_TEMP_MARKER file pid
    set +f
    shopt -s nullglob
    for file in "$prefix"*; do
        pid=${file:${#prefix}}
        if [[ -n $pid && $pid != *[!0-9]* && -O $file ]] && ! builtin kill -0 "$pid" 2>/dev/null; then
            command rm -f -- "$file"
        fi
    done
    shopt -u nullglob
    set -f
}

# P6: replace PATH by a complete file holding $2: temp file in the same
# directory, its data synced, renamed over PATH. MODE ($3) empty: a new file.
# OWNER ($4, uid:gid): the old file's, given back where the caller may (root;
# a group the caller is in); chown runs only when it differs from the temp file's.
sage_flags__write_atomically() {
    local path=$1 directory base temp mode=$3 owner=${4-} bits=0 mask
    case $path in
        */*)
            directory=${path%/*}
            base=${path##*/}
            ;;
        *)
            directory=.
            base=$path
            ;;
    esac
    directory=${directory:-/}
    sage_flags__remove_stale_temp_files "$directory" "$base"
    temp=$directory/.$base$SAGE_FLAGS_TEMP_MARKER$$
    if [[ $temp == -* ]]; then
        temp=./$temp
    fi
    if [[ -e $temp || -L $temp ]]; then
        command rm -f -- "$temp" # ours by name: the leftover of a dead process that had our pid
    fi
    if [[ -n $mode ]]; then
        # The temp file is created with the old file's bits (0666 & ~umask);
        # execute and special bits, which no umask can give, need a chmod.
        bits=$((8#$mode))
        printf -v mask '%03o' $((~bits & 8#777))
        umask "$mask"
    fi
    if ! { printf '%s' "$2" >|"$temp"; } 2>/dev/null; then
        command rm -f -- "$temp" 2>/dev/null
        SAGE_FLAGS_UNSAFE='cannot write the manifest'
        return 1
    fi
    # -G: a file's group is our effective group; both files' then, and so the same.
    if [[ -n $owner ]] && ! [[ ${owner%%:*} == "$EUID" && -G $path && -G $temp ]]; then
        command chown "$owner" "$temp" 2>/dev/null || command chown ":${owner#*:}" "$temp" 2>/dev/null || :
    fi
    if ((bits & 8#7111)) && ! command chmod "$mode" "$temp" 2>/dev/null; then
        command rm -f -- "$temp" 2>/dev/null
        SAGE_FLAGS_UNSAFE='cannot write the manifest'
        return 1
    fi
    command sync "$temp" 2>/dev/null || :
    if ! command mv -f -- "$temp" "$path" 2>/dev/null; then
        command rm -f -- "$temp" 2>/dev/null
        SAGE_FLAGS_UNSAFE='cannot write the manifest'
        return 1
    fi
    return 0
}

# P3-P8: record SAGE_FLAGS_VALUES in the manifest at $1.
sage_flags_persist() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local sf_mode sf_owner
    local path=$1 text='' mode='' owner=''
    if [[ -z $path || $path == */ ]]; then
        SAGE_FLAGS_UNSAFE='the manifest path does not name a file'
        return 1
    fi
    if [[ -L $path ]]; then # P6: never write through a symlink, dangling or not
        SAGE_FLAGS_UNSAFE='the manifest is a symbolic link; persist never writes through one'
        return 1
    fi
    if [[ -e $path ]]; then
        if [[ ! -f $path ]]; then
            SAGE_FLAGS_UNSAFE='the manifest is not a regular file'
            return 1
        fi
        if [[ ! -r $path ]] || ! sage_flags__mode_of "$path"; then
            SAGE_FLAGS_UNSAFE='cannot read the manifest'
            return 1
        fi
        mode=$sf_mode
        owner=$sf_owner
        # read -d '' stops at a NUL with status 0; without one it reads to the end.
        if { IFS= read -r -d '' text; } 2>/dev/null <"$path"; then
            SAGE_FLAGS_UNSAFE='the manifest holds NUL bytes: not a text file'
            return 1
        fi
    fi
    sage_flags_updated_manifest "$text" || return 1
    if [[ -n $mode && ! -w $path ]]; then # P8: the caller could not write the file in place
        SAGE_FLAGS_UNSAFE='the manifest is read-only for this user'
        return 1
    fi
    sage_flags__write_atomically "$path" "$SAGE_FLAGS_NEW" "$mode" "$owner"
}

# P1: stdin into sf_stdin, in chunks of 64 KiB,
# never more than SAGE_FLAGS_MAX_LINE_BYTES + 1 (bash 3.2 has no read -N:
# read -n stops early at a NUL, the -d '' delimiter). Status 1: a NUL or too long.
sage_flags__read_stdin() {
    local chunk read_chunk=65536
    sf_stdin=
    while ((${#sf_stdin} <= SAGE_FLAGS_MAX_LINE_BYTES)); do
        if ! IFS= read -r -d '' -n "$read_chunk" chunk 2>/dev/null; then
            sf_stdin+=$chunk # the end of stdin
            ((${#sf_stdin} <= SAGE_FLAGS_MAX_LINE_BYTES))
            return
        fi
        sf_stdin+=$chunk
        if ((${#chunk} < read_chunk)); then
            return 1 # read stopped at a NUL
        fi
        if [[ $sf_stdin == *$'\n'?* ]]; then
            return 0 # more than one line: no need to read on
        fi
    done
    return 1
}

sage_flags_persist_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local sf_stdin
    local line unread=0
    if (($# != 1)); then
        printf '%s\n' "persist.sh: persist takes exactly one MANIFEST path (usage: persist.sh MANIFEST < line)" >&2
        return 2
    fi
    sage_flags__read_stdin || unread=1
    line=$sf_stdin
    if ((unread && ${#line} > SAGE_FLAGS_MAX_LINE_BYTES)); then
        printf '%s\n' "persist.sh: stdin holds more than $SAGE_FLAGS_MAX_LINE_BYTES bytes: not one contract line" >&2
        return 2
    fi
    # A NUL on stdin (the other status 1 of sage_flags__read_stdin) is never a contract line.
    if ((unread)) || [[ $line == *$'\n'?* ]] || ! sage_flags_read_contract_line "$line"; then
        printf '%s\n' "persist.sh: stdin is not one contract line (the JSON line parse or resume prints)" >&2
        return 2
    fi
    if ((SAGE_FLAGS_LINE_HAS_ERROR)); then
        sage_flags_write "$line" || return
        return 1
    fi
    if ! sage_flags_persist "$1"; then
        printf '%s\n' "persist.sh: cannot update the manifest: $SAGE_FLAGS_UNSAFE" >&2
        sage_flags_write "$line" || return
        return 3
    fi
    sage_flags_write "$line"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death (not when sourced)
    sage_flags_persist_main ${1+"$@"}
    exit
fi
