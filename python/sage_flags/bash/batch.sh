# shellcheck shell=bash
# batch.sh: the bash batch entry (C22).
#
#   bash python/sage_flags/bash/batch.sh [--config-path PATH] < records
#
# stdin is a sequence of NUL-terminated records (a final unterminated one
# counts if non-empty); each is one ARGUMENTS. One JSON line per record is
# written (printf is a builtin: it writes before the next record is read).
# Exit status 0 if every record parsed cleanly, 1 if any was an error, 2 on a
# usage error (an operand, or --config-path without a value).
# The parsing is parse.sh's, sourced: one implementation, two entries.

# The three fixed lines of every entry (see parse.sh).
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=python/sage_flags/bash/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }
# shellcheck source=python/sage_flags/bash/parse.sh
. "$sage_flags_dir/parse.sh"

sage_flags_batch_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local record status=0 count stdin
    if ! sage_flags_split_argv count stdin ${1+"$@"}; then
        printf '%s\n' "batch.sh: $SAGE_FLAGS_USAGE_ERROR (usage: batch.sh [--config-path PATH] < records)" >&2
        return 2
    fi
    if ((count > 0)) || [[ -n $stdin ]]; then # --stdin is an operand here
        printf '%s\n' "batch.sh: batch takes no operands; records come on stdin, NUL-terminated" >&2
        return 2
    fi
    # On a terminal `read -d ''` turns line editing off, so Ctrl-D would be a byte, not the end: refused, as I5.
    if [[ -t 0 ]]; then
        printf '%s\n' "batch.sh: standard input is a terminal; records come on stdin, NUL-terminated" >&2
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
