# shellcheck shell=bash
# resume.sh: `sage-flags resume MANIFEST ARGUMENTS...` where there is no python3 (docs/SPEC.md P12, R2).
#
#   bash python/sage_flags/bash/resume.sh MANIFEST ARGUMENTS... [--config-path PATH]
#
# Reading the modes a cycle manifest records has one implementation, Python's
# (python/sage_flags/manifest.py). This script restores nothing (R2: as from a
# manifest it cannot read) and never opens MANIFEST: it prints the parse of
# ARGUMENTS... exactly as parse.sh does, with one more member at the end,
# "notes": [] (R3). The workflow then reads the manifest's flags: block itself
# (the skill says how). Exit status as parse.sh: 0, 1 (parse error), 2 (usage).

# The three fixed lines of every entry (see parse.sh).
POSIXLY_CORRECT=1 && \trap - EXIT ERR DEBUG RETURN && \set +E +T -u
case ${BASH_SOURCE[0]} in */*) sage_flags_dir=${BASH_SOURCE[0]%/*} ;; *) sage_flags_dir=. ;; esac
# shellcheck source=python/sage_flags/bash/preamble.sh
\. "$sage_flags_dir/preamble.sh" || { printf '%s\n' "cannot load $sage_flags_dir/preamble.sh" >&2 && exit 3; }
# shellcheck source=python/sage_flags/bash/parse.sh
. "$sage_flags_dir/parse.sh"

sage_flags_resume_main() {
    local IFS=$' \t\n' # see "IFS" in parse.sh's header
    local status=0 usage='(usage: resume.sh MANIFEST ARGUMENTS... [--config-path PATH])'
    if (($# == 0)); then
        printf '%s\n' "resume.sh: resume needs MANIFEST, then the arguments as for parse $usage" >&2
        return 2
    fi
    shift
    if ! sage_flags_arguments ${1+"$@"}; then # C1-C3, I1-I5
        printf '%s\n' "resume.sh: $SAGE_FLAGS_USAGE_ERROR $usage" >&2
        return 2
    fi
    sage_flags_load_defaults "$SAGE_FLAGS_CONFIG_PATH"
    sage_flags_parse "$SAGE_FLAGS_ARGUMENTS" || status=1
    sage_flags_render_json
    sage_flags_write "${SAGE_FLAGS_JSON%\}}, \"notes\": []}"$'\n' || return
    return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    trap '' PIPE # H9: a reader gone is a failed write (status 4), not a silent death (not when sourced)
    sage_flags_resume_main ${1+"$@"}
    exit
fi
