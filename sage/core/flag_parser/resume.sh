# shellcheck shell=bash
# resume.sh: the bash layer of `sage-flags resume`, the /continue entry (docs/SPEC.md, rules R1-R4).
#
#   bash sage/core/flag_parser/resume.sh MANIFEST ARGUMENTS... [--config-path PATH]
#
# parses ARGUMENTS... like parse.sh (C1-C15) and fills every mode no flag set
# from MANIFEST's frontmatter `flags:` block (source "manifest"), before the
# config default. Prints the contract line with one more member at the end,
# "notes": one string per mode whose recorded value a flag changed. Exit status
# as parse.sh: 0, 1 (parse error: the error line, "notes": []), 2 (usage).
# A missing, unreadable or unclear manifest restores nothing; never an error.
#
# Rules as parse.sh: bash 3.2, no eval, no fork, set -u, LC_ALL=C. The
# frontmatter functions are persist.sh's, sourced (persist.sh sources parse.sh).

# The three fixed lines of every entry (see parse.sh).
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=sage/core/flag_parser/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }
# shellcheck source=sage/core/flag_parser/persist.sh
. "$sage_flags_dir/persist.sh"

sage_flags_resume_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local manifest prefix status=0 j recorded number note flag notes='' separator=''
    if (($# == 0)); then
        printf '%s\n' "resume.sh: resume needs MANIFEST, then the arguments as for parse (usage: resume.sh MANIFEST ARGUMENTS... [--config-path PATH])" >&2
        return 2
    fi
    manifest=$1
    shift
    if ! sage_flags_arguments ${1+"$@"}; then # C1-C3, I1-I5
        printf '%s\n' "resume.sh: $SAGE_FLAGS_USAGE_ERROR (usage: resume.sh MANIFEST ARGUMENTS... [--config-path PATH])" >&2
        return 2
    fi
    sage_flags_load_defaults "$SAGE_FLAGS_CONFIG_PATH"
    sage_flags_parse "$SAGE_FLAGS_ARGUMENTS" || status=1
    SAGE_FLAGS_RECORDED=()
    # R2: a regular file only (test -f follows symlinks: a FIFO is never opened),
    # read up to the end of its frontmatter.
    if ((status == 0)) && [[ -n $manifest && -f $manifest ]] &&
        { sage_flags_read_frontmatter_prefix prefix; } 2>/dev/null <"$manifest"; then
        sage_flags_recorded_values "$prefix"
    fi
    for ((j = 0; j < ${#SAGE_FLAGS_MODE_KEYS[@]}; j++)); do
        recorded=${SAGE_FLAGS_RECORDED[j]-}
        number=${SAGE_FLAGS_RECORDED_NUMBERS[j]-}
        if [[ -z $recorded ]]; then
            continue
        fi
        if [[ ${SAGE_FLAGS_SOURCES[j]} == flag ]]; then
            # R3: a note only when the flag changes the recorded value (or number).
            note=
            if [[ ${SAGE_FLAGS_VALUES[j]} != "$recorded" ]]; then
                flag=--${SAGE_FLAGS_MODE_NAMES[j]}
                if [[ ${SAGE_FLAGS_VALUES[j]} == false ]]; then
                    flag=--no-${SAGE_FLAGS_MODE_NAMES[j]}
                fi
                note="$flag overrides ${SAGE_FLAGS_MODE_KEYS[j]}: $recorded recorded in the manifest."
            elif [[ $recorded == true && -n $number && ${SAGE_FLAGS_NUMBERS[j]} != "$number" ]]; then
                note="--${SAGE_FLAGS_MODE_NAMES[j]}=${SAGE_FLAGS_NUMBERS[j]} overrides ${SAGE_FLAGS_VALUE_FIELDS[j]}: $number recorded in the manifest."
            fi
            if [[ -n $note ]]; then
                sage_flags_json_string "$note"
                notes+=$separator$SAGE_FLAGS_JSON_STRING
                separator=', '
            fi
        else
            SAGE_FLAGS_VALUES[j]=$recorded
            SAGE_FLAGS_SOURCES[j]=manifest
            if [[ -n ${SAGE_FLAGS_VALUE_FIELDS[j]-} ]]; then # R1: the number follows its mode
                SAGE_FLAGS_NOTES[j]=
                SAGE_FLAGS_NUMBERS[j]=0
                if [[ $recorded == true ]]; then
                    SAGE_FLAGS_NUMBERS[j]=${number:-${SAGE_FLAGS_VALUE_DEFAULTS[j]}}
                fi
            fi
        fi
    done
    sage_flags_render_json
    sage_flags_write "${SAGE_FLAGS_JSON%\}}, \"notes\": [$notes]}"$'\n' || return
    return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death (not when sourced)
    sage_flags_resume_main ${1+"$@"}
    exit
fi
