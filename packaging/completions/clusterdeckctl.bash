# bash completion for clusterdeckctl                                   -*- shell-script -*-
# Subcommands, flags, session, kernel, role and host names: clusterdeckctl itself answers
# (`clusterdeckctl __complete WORD...`), from its command table and from the store the command
# line names (--store, $CLUSTERDECK_STORE, the config file, the default).
_clusterdeckctl()
{
    local cur cword
    local -a words
    # '=' and ':' stay inside words (ROLE=N, --mode=auto, SRC:DST) when bash-completion helps.
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref -n =: cur words cword
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
    fi
    local IFS=$'\n'
    local -a candidates
    candidates=($("${words[0]}" __complete "${words[@]:1:cword-1}" "$cur" 2>/dev/null))
    COMPREPLY=()
    local c files=0 nospace=0
    for c in "${candidates[@]}"; do
        if [[ $c == ":files" ]]; then
            files=1
        else
            COMPREPLY+=("$c")
            [[ $c == *= || $c == *, ]] && nospace=1
        fi
    done
    if ((files)); then
        COMPREPLY+=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
    fi
    ((nospace)) && compopt -o nospace 2>/dev/null
    # What bash would cut off at ':' must not be repeated in the candidates.
    if declare -F __ltrim_colon_completions >/dev/null 2>&1; then
        __ltrim_colon_completions "$cur"
    fi
    return 0
}
complete -F _clusterdeckctl clusterdeckctl
