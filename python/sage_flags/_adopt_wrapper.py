"""The POSIX sh wrapper ``sage-flags adopt`` writes to .claude/skills/flag-parser/scripts/sage-flags (SPEC N6).

Kept as a string so that both wheels and the bundle carry it (they ship .py files only); tests/test_adopt.py
writes it out and runs shellcheck, dash and bash on it.
"""

WRAPPER_TEMPLATE = r"""#!/bin/sh
# sage-flags for this project, written by `sage-flags adopt` (docs/SPEC.md N6); run it again to rewrite this.
# Runs `sage-flags --vocabulary VOCABULARY ARGS...` with the sage-flags found at run time: the first on PATH,
# else the vendored sage/bin/sage-flags. Nothing here names one person's install path.
# `hook` never blocks a prompt and never fails: where no sage-flags answers, or the project's Sage release is
# no longer the adopted one, it prints one notice for the person (a systemMessage; for Codex nothing) and exits
# 0, and the workflow's own flag-parsing step runs as Sage alone runs it. Other subcommands: one stderr line, status 3.
vocabulary=@VOCABULARY@
adopted=@RELEASE@
# shellcheck disable=SC2016 # backticks are part of the text
step='@STEP@'
set -f
unset CDPATH
if [ "${1-}" = --vocabulary ] && [ "$#" -ge 2 ]; then
    vocabulary=$2
    shift 2
fi
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
root=$(cd -P -- "$here/../../../.." 2>/dev/null && pwd -P) || root=.
hook='' harness=''
if [ "${1-}" = hook ]; then hook=1 harness=${2-}; fi

notice() { # $1: one line for the person (no character JSON would escape)
    if [ -n "$hook" ]; then
        # Codex runs the hook for every prompt (no matcher): a notice would be shown on each one, so none.
        if [ "$harness" != codex ]; then printf '{"systemMessage": "sage-flags: %s"}\n' "$1"; fi
        exit 0
    fi
    printf 'sage-flags: %s\n' "$1" >&2
    exit 3
}

# The project's Sage release as adopt reads it: sage/VERSION's first line, else a 1.1 layout, else none.
if [ -f "$root/sage/VERSION" ]; then
    release=
    read -r release <"$root/sage/VERSION" || :
elif [ -d "$root/sage/core/flag_parser" ]; then
    release=1.1-layout
else
    release=none
fi
case $release in '' | *[!A-Za-z0-9.-]*) release=unrecognised ;; esac
case $vocabulary in '' | *[!A-Za-z0-9.-]*) notice "this wrapper names no valid vocabulary; run sage-flags adopt" ;; esac
if [ "$release" != "$adopted" ]; then
    notice "this project's Sage release is now $release, not $adopted as adopted, so flags are left to\
 Sage's own parser; run sage-flags adopt at the project root to adopt it again"
fi

program=$(command -v sage-flags 2>/dev/null) || program=
case $program in /*) vendored= ;; *) program= ;; esac
if [ -z "$program" ] && [ -f "$root/sage/bin/sage-flags" ]; then
    program=$root/sage/bin/sage-flags
    vendored=1
fi
if [ -z "$program" ]; then
    notice "no sage-flags here (none on PATH, no sage/bin/sage-flags), so flags are left to Sage's own parser"
fi

facts="This is the result of the workflow's own flag-parsing step ($step), computed by sage-flags (vocabulary\
 $vocabulary) from the exact text the person typed; the announcement has been shown to the person. Use it as\
 that step's result: do not run the step again and do not announce again.\\n"
set -- --vocabulary "$vocabulary" "$@"
if [ -z "$hook" ]; then
    if [ -n "$vendored" ]; then exec sh "$program" "$@"; fi
    exec "$program" "$@"
fi
if [ -n "$vendored" ]; then
    answer=$(sh "$program" "$@" 2>/dev/null)
else
    answer=$("$program" "$@" 2>/dev/null)
fi
status=$?
if [ "$status" -eq 0 ]; then
    # The context's last words, as facts (SPEC N10): after parse's line, before the end of additionalContext.
    # In the one-line answer, `"}, "systemMessage": ` can only be that end (a quote inside a string is \").
    end='"}, "systemMessage": '
    case $answer in
        *"$end"*)
            if [ "${#answer}" -lt 9000 ]; then
                head=${answer%%"$end"*}
                answer="$head$facts${answer#"$head"}"
            fi
            ;;
    esac
    if [ -n "$answer" ]; then printf '%s\n' "$answer"; fi
    exit 0
fi
notice "sage-flags could not answer (status $status), so flags are left to Sage's own parser"
"""
