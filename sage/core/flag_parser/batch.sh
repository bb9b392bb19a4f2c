# shellcheck shell=bash
# batch.sh: the bash batch entry (C22).
#
#   bash sage/core/flag_parser/batch.sh [--config-path PATH] < records
#
# stdin is a sequence of NUL-terminated records (a final unterminated one
# counts if non-empty); each is one ARGUMENTS. One JSON line per record is
# written (printf is a builtin: it writes before the next record is read).
# Exit status 0 if every record parsed cleanly, 1 if any was an error, 2 on a
# usage error (an operand, or --config-path without a value).
# The parsing is parse.sh's, sourced: one implementation, two entries.

# The same first lines in every entry (announce.sh, batch.sh, persist.sh, resume.sh): they find the
# file all shared code is in, so they cannot share it. The directory is "." when the script was run by a
# bare name, so that `.` never searches PATH.
POSIXLY_CORRECT=1 # H2: until parse.sh's first lines, special builtins (`.`, set) come before functions
# A sourced file's traps are restored when it returns (bash 4.4+): these go here, not only in parse.sh.
\trap - EXIT ERR DEBUG RETURN
\set +E +T
\set -u
case ${BASH_SOURCE[0]} in
    */*) sage_flags_batch_dir=${BASH_SOURCE[0]%/*} ;;
    *) sage_flags_batch_dir=. ;;
esac
# shellcheck source=sage/core/flag_parser/parse.sh
if ! \. "$sage_flags_batch_dir/parse.sh"; then
    printf '%s\n' "batch.sh: cannot load $sage_flags_batch_dir/parse.sh" >&2
    exit 3
fi

sage_flags_batch_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local record status=0
    if ! sage_flags_split_argv ${1+"$@"}; then
        printf '%s\n' "batch.sh: $SAGE_FLAGS_USAGE_ERROR (usage: batch.sh [--config-path PATH] < records)" >&2
        return 2
    fi
    if ((SAGE_FLAGS_OPERAND_COUNT > 0)) || [[ -n $SAGE_FLAGS_FROM_STDIN ]]; then # --stdin is an operand here
        printf '%s\n' "batch.sh: batch takes no operands; records come on stdin, NUL-terminated" >&2
        return 2
    fi
    sage_flags_load_defaults "$SAGE_FLAGS_CONFIG_PATH"  # C22: read once
    # H8: a closed stdin (EBADF) is no records, silently, as in every layer (D22.1).
    record=
    while { IFS= read -r -d '' record; } 2>/dev/null || [[ -n ${record-} ]]; do
        sage_flags_parse "$record" || status=1
        sage_flags_render_json
        sage_flags_write "$SAGE_FLAGS_JSON"$'\n' || return
    done
    return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death (not when sourced)
    sage_flags_batch_main ${1+"$@"}
    exit
fi
