#!/bin/sh
# sage-flags for this project, written by `sage-flags adopt` (docs/SPEC.md N6); run adopt again to rewrite it.
# Runs `sage-flags --vocabulary VOCABULARY ARGS...` with the first of:
#   1. the `sage-flags` first on PATH when its --version is this wrapper's own (an installed native executable
#      answers at its speed);
#   2. python3 (3.8+) with the copy of sage-flags beside this file (sage_flags/, written by adopt with it);
#   3. bash with that copy's bash port (sage_flags/bash/), for parse, batch and announce (K11).
# Everything it needs is in this folder, where `sage update` never writes, and nothing names one person's install.
# `hook` never blocks a prompt and never fails: where nothing answers, or the project's flag parser is no longer
# the one adopt verified, it prints one notice for the person (a systemMessage; for Codex nothing) and exits 0, and the
# workflow's own flag-parsing step runs as Sage alone runs it. Other subcommands: one stderr line, status 3.
# Rendered from the package's sage_flags/adopted/wrapper.sh; adopt substitutes checked values (no quoting needed).
vocabulary=@VOCABULARY@
# shellcheck disable=SC2034 # the release adopt found: for the reader, and adopt --undo without a record
adopted=@RELEASE@
version=@VERSION@
# N6.4: the project's own parser (relative to the root) and its fingerprint as adopt verified it; empty: none.
parser=@PARSER@
fingerprint=@FINGERPRINT@
# shellcheck disable=SC2016 # backticks are part of the text
step='@STEP@'

# The caller's environment cannot steer what runs (as in sage/bin/sage-flags): no function named like a command
# used here, no CDPATH (cd would print), no file run by the bash port before its first line. LC_ALL=C: bytes.
set -f
unset -f printf command cd pwd read cksum python3 bash
unset CDPATH BASH_ENV ENV
command unset SHELLOPTS BASHOPTS 2>/dev/null || :
LC_ALL=C
export LC_ALL
default_ifs=' 	
'
unavailable=3

if [ "${1-}" = --vocabulary ] && [ "$#" -ge 2 ]; then
    vocabulary=$2
    shift 2
else
    case ${1-} in --vocabulary=*) vocabulary=${1#--vocabulary=} && shift ;; esac
fi
hook='' harness=''
if [ "${1-}" = hook ]; then hook=1 harness=${2-}; fi

notice() { # $1: one line for the person (no character JSON would escape)
    if [ -n "$hook" ]; then
        # Codex runs the hook for every prompt (no matcher): a notice would be shown on each one, so none.
        if [ "$harness" != codex ]; then printf '{"systemMessage": "sage-flags: %s"}\n' "$1"; fi
        exit 0
    fi
    printf 'sage-flags: %s\n' "$1" >&2
    exit "$unavailable"
}

# This folder (the copy is here) and the project's root, four folders up. Taken from $0's text where it ends as
# adopt wrote it (no process, and a folder name ending in a newline stays whole); else by cd.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
where=.claude/skills/flag-parser/scripts
case $here in
    "$where") root=. ;;
    */"$where") root=${here%/"$where"} && root=${root:-/} ;;
    *) root=$(cd -P -- "$here/../../../.." 2>/dev/null && pwd -P && echo /) && root=${root%?/} || root= ;;
esac

# N6.4: the project's own parser, as adopt verified it (POSIX cksum's "CRC SIZE", the blank as "-"): where it
# changed, sage-flags does not answer until adopt has verified it again. Empty: our own drop-in, nothing to watch.
if [ -n "$fingerprint" ]; then
    found=
    if [ -n "$root" ] && [ -f "$root/$parser" ]; then found=$(cksum <"$root/$parser" 2>/dev/null) || found=; fi
    if [ "${found%% *}-${found##* }" != "$fingerprint" ]; then
        notice "this project's flag parser ($parser) changed since sage-flags adopt verified it, so flags are left\
 to Sage's own parser; run sage-flags adopt at the project root to verify it again"
    fi
fi

# 1. The installed sage-flags: the first on PATH (absolute folders only: a relative one names the working folder),
# run when it is this wrapper's version. SAGE_FLAGS_WRAPPER: a sage-flags on PATH that comes back here is not
# searched for again.
installed='' newer=''
if [ -z "${SAGE_FLAGS_WRAPPER-}" ]; then
    IFS=:
    for dir in $PATH; do
        case $dir in /*) ;; *) continue ;; esac
        if [ -f "$dir/sage-flags" ] && [ -x "$dir/sage-flags" ]; then
            installed=$dir/sage-flags
            break
        fi
    done
    IFS=$default_ifs
fi
newer_than() { # is version $1 newer than version $2? Field by field (X.Y.Z), as numbers of any length
    set -- "$1." "$2."
    while [ -n "$1" ] && [ -n "$2" ]; do
        _x=${1%%.*} _y=${2%%.*}
        case $_x,$_y in *[!0-9,]* | ,* | *,) return 1 ;; esac # a field that is no number: not known newer
        while [ "${#_x}" -lt "${#_y}" ]; do _x=0$_x; done     # digit by digit below: no overflow
        while [ "${#_y}" -lt "${#_x}" ]; do _y=0$_y; done
        while [ -n "$_x" ]; do
            _a=${_x%"${_x#?}"} _b=${_y%"${_y#?}"}
            if [ "$_a" != "$_b" ]; then
                [ "$_a" -gt "$_b" ]
                return
            fi
            _x=${_x#?} _y=${_y#?}
        done
        set -- "${1#*.}" "${2#*.}"
    done
    case $1,$2 in *[!0-9.,]*) return 1 ;; *[1-9]*,) return 0 ;; esac # 1.2.3.1 is newer than 1.2.3
    return 1
}
if [ -n "$installed" ]; then
    SAGE_FLAGS_WRAPPER=1
    export SAGE_FLAGS_WRAPPER
    reply=$("$installed" --version 2>/dev/null </dev/null) || reply=
    case $reply in "sage-flags "*) reply=${reply#sage-flags } && reply=${reply%%[!0-9A-Za-z.+-]*} ;; *) reply= ;; esac
    if [ "$reply" != "$version" ]; then
        installed=
        if newer_than "$reply" "$version"; then newer=${reply%%[!0-9.]*}; fi
    fi
fi

# 2. python3 with the copy. The copy's folder goes as an argument, not in PYTHONPATH (which splits at ':'); -B: no
# __pycache__ written; status 97 (nothing read, nothing printed) where this python3 cannot run it (older than 3.8).
python_program='import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
if sys.version_info < (3, 8):
    sys.exit(97)
sys.path.insert(0, sys.argv.pop(1))
try:
    from sage_flags.cli import main
except Exception:
    sys.exit(97)
sys.exit(main())'
python=''
if [ -z "$installed" ] && [ -f "$here/sage_flags/cli.py" ] && command -v python3 >/dev/null 2>&1; then python=1; fi

if [ -z "$hook" ]; then
    if [ -n "$installed" ]; then exec "$installed" --vocabulary "$vocabulary" "$@"; fi
    if [ -n "$python" ]; then
        python3 -B -c "$python_program" "$here" --vocabulary "$vocabulary" "$@"
        status=$?
        case $status in 97 | 126 | 127) ;; *) exit "$status" ;; esac
    fi
    # 3. bash with the copy's port (K11: it reads no JSON, so no hook); persist and resume: the port's own refusals,
    # which read the pipe and echo the line (SPEC P12), as the launcher runs them.
    if [ -z "$vocabulary" ]; then
        printf "sage-flags: --vocabulary needs a name (try 'sage-flags --help')\n" >&2
        exit 2
    fi
    case ${1-} in
        parse | batch | announce | persist | resume)
            script=$here/sage_flags/bash/$1.sh
            if [ -f "$script" ] && command -v bash >/dev/null 2>&1; then
                shift
                SAGE_FLAGS_VOCABULARY=$vocabulary
                export SAGE_FLAGS_VOCABULARY
                exec bash "$script" "$@"
            fi
            ;;
        '')
            printf 'sage-flags: a subcommand is required (parse, batch or announce)\n' >&2
            exit 2
            ;;
    esac
    notice "cannot run this here: no sage-flags $version on PATH and no python3 (3.8+) for this project's copy\
 (without them, bash runs parse, batch and announce)"
fi

if [ -n "$installed" ]; then
    answer=$("$installed" --vocabulary "$vocabulary" "$@" 2>/dev/null)
    status=$?
elif [ -n "$python" ]; then
    answer=$(python3 -B -c "$python_program" "$here" --vocabulary "$vocabulary" "$@" 2>/dev/null)
    status=$?
else
    status=97
fi
case $status in
    0) ;;
    97 | 126 | 127)
        notice "cannot answer here: no sage-flags $version on PATH and no python3 (3.8+) for this project's copy,\
 so flags are left to Sage's own parser"
        ;;
    *) notice "sage-flags could not answer (status $status), so flags are left to Sage's own parser" ;;
esac
# N10: the context's last words, as facts: after parse's line, before the end of additionalContext. In the one-line
# answer, `"}, "systemMessage": ` can only be that end (a quote inside a string is \").
end='"}, "systemMessage": '
case $vocabulary in '' | *[!A-Za-z0-9.-]*) end=not-here ;; esac
case $answer in
    *"$end"*)
        if [ "${#answer}" -lt 9000 ]; then
            facts="This is the result of the workflow's own flag-parsing step ($step), computed by sage-flags\
 (vocabulary $vocabulary) from the exact text the person typed; the announcement has been shown to the person.\
 Use it as that step's result: do not run the step again and do not announce again.\\n"
            head=${answer%%"$end"*}
            answer="$head$facts${answer#"$head"}"
        fi
        ;;
esac
# The version notice: an installed sage-flags newer than this copy. Added to the person's message (the answer's
# last member, so its text ends with `"}`), or as the message; never for Codex.
if [ -n "$newer" ] && [ "$harness" != codex ]; then
    text="sage-flags: sage-flags $newer is installed and this project has $version: run sage-flags adopt at the\
 project root to bring its copy up to date"
    case $answer in
        *'"systemMessage": "'*'\n"}') answer="${answer%??}$text\"}" ;;
        *'"systemMessage": "'*'"}') answer="${answer%??}\\n$text\"}" ;;
        *'"systemMessage": '*) ;; # not the form above: left as it is
        *'}') answer="${answer%?}, \"systemMessage\": \"$text\"}" ;;
        '') answer="{\"systemMessage\": \"$text\"}" ;;
    esac
fi
if [ -n "$answer" ]; then printf '%s\n' "$answer"; fi
exit 0
