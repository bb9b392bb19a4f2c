# shellcheck shell=bash
# preamble.sh: H2-H3 (docs/IMPLEMENTATION.md section 15), sourced by every bash entry right
# after its five fixed lines (see parse.sh): nothing the environment or a
# BASH_ENV file defined reaches the bytes. The entry assigned POSIXLY_CORRECT,
# which turns POSIX mode on, where special builtins such as unset are found
# before functions: so no function named like a builtin or keyword survives,
# nor any alias, and POSIX mode goes off again.
\unset -f alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown \
    echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout \
    popd printf pushd pwd read readonly return set shift shopt source suspend test times trap true \
    type typeset ulimit umask unalias unset wait 'if' 'then' 'else' 'elif' 'fi' 'case' 'esac' 'for' 'select' \
    'while' 'until' 'do' 'done' 'in' 'function' 'time' 'coproc'
\unset POSIXLY_CORRECT
\unset -f . : [ '[[' ']]' '{' '}' '!'
\unalias -a

# C20: bytes, not characters; none of the caller's shell options, traps or
# variables matter (H3: TMOUT would time out read, FUNCNEST limit calls).
LC_ALL=C
unset GLOBIGNORE BASH_COMPAT CDPATH TMOUT FUNCNEST
set +o posix +e +x +v -u -f +a +b +C +E +H +k +T -B +o pipefail
trap - EXIT ERR DEBUG RETURN
shopt -u nocasematch nocaseglob extglob expand_aliases extdebug failglob nullglob dotglob xpg_echo
shopt -s extquote
# bash 4.1+ lists its options that are on in BASHOPTS (e.g. set by BASHOPTS in
# the environment, or a BASH_ENV file): all but the harmless defaults go off,
# so patsub_replacement (bash 5.2: & in ${s//p/r}), compat*, localvar_* too.
sage_flags__shopt_reset() {
    local IFS=: option
    for option in ${BASHOPTS-}; do
        case $option in
            cmdhist | complete_fullquote | extquote | force_fignore | globasciiranges | globskipdots | hostcomplete) ;;
            interactive_comments | progcomp | promptvars | sourcepath | checkwinsize | login_shell) ;;
            restricted_shell) ;;
            *) shopt -u "$option" 2>/dev/null ;; # bash 4.4 keeps names it lacks
        esac
    done
    return 0 # an option this bash lacks is no failure (the entry's `.` checks the status)
}
sage_flags__shopt_reset
