# bash completion for fermix. Works in a plain bash (3.2 and later), without the bash-completion package.
# The candidates come from `fermix complete -- WORDS…`, so they follow the installed binary.
# Load it with `source <(fermix completion bash)`, or save it where bash-completion looks:
#   fermix completion bash > "${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion/completions/fermix"

_fermix_completion() {
    local cur=${COMP_WORDS[COMP_CWORD]} line=${COMP_LINE:0:COMP_POINT} word out item directive=0
    local -a words=()
    local i n=0 pos=0 start end=-1
    # bash splits `--session=ID` at the `=` (COMP_WORDBREAKS); glue the pieces back into the word fermix sees.
    for ((i = 0; i <= COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        while [[ ${line:pos:1} == [[:space:]] ]]; do ((pos++)); done
        start=$pos
        ((pos += ${#word}))
        ((i == 0)) && { end=$pos; continue; }
        if ((n > 0 && start == end)) && [[ $word == [=:]* || ${words[n - 1]} == *[=:] ]]; then
            words[n - 1]=${words[n - 1]}$word
        else
            words[n]=$word
            ((n++))
        fi
        end=$pos
    done
    # Readline replaces only what follows the `=`.
    [[ $cur == [=:] ]] && cur=
    ((n == 0)) && words[0]=

    out=$(fermix complete -- "${words[@]}" 2>/dev/null) || out=
    COMPREPLY=()
    while IFS= read -r item; do
        case $item in
        :*) directive=${item#:} ;;
        '') ;;
        *)
            item=${item%%$'\t'*}
            [[ $item == "$cur"* ]] && COMPREPLY[${#COMPREPLY[@]}]=$item
            ;;
        esac
    done <<<"$out"
    # Directive bits (tab's): 1 is an error (offer nothing), 4 means no file names; 0 with no candidates: files.
    ((directive & 1)) && { COMPREPLY=(); return 0; }
    if ((${#COMPREPLY[@]} == 0 && (directive & 4) == 0)); then
        type compopt >/dev/null 2>&1 && compopt -o filenames 2>/dev/null
        while IFS= read -r item; do
            [[ -n $item ]] && COMPREPLY[${#COMPREPLY[@]}]=$item
        done < <(compgen -f -- "$cur")
    fi
    return 0
}

complete -F _fermix_completion fermix
