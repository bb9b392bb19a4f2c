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

# The directory of this file; "./" when it was run by a bare name, so that
# source never searches PATH.
SAGE_FLAGS_DIR=${BASH_SOURCE[0]%batch.sh}
# shellcheck source=parse.sh
. "${SAGE_FLAGS_DIR:-./}parse.sh" || exit 3

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
    while IFS= read -r -d '' record || [[ -n $record ]]; do
        sage_flags_parse "$record" || status=1
        sage_flags_render_json
        printf '%s\n' "$SAGE_FLAGS_JSON"
    done
    return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    sage_flags_batch_main ${1+"$@"}
    exit
fi
