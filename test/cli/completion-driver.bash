# Sourced by completion.test.ts into `bash --norc --noprofile`: loads `fermix completion bash` and drives its
# function as readline would. `run LINE WORD…` sets COMP_LINE (the cursor at its end) and COMP_WORDS (bash's
# split of it), calls the function `complete -p fermix` names, and prints COMPREPLY on one line.
eval "$(fermix completion bash)"
# A plain bash: bash-completion's helpers must not exist, or the test would prove nothing.
if type _get_comp_words_by_ref >/dev/null 2>&1; then
    echo 'bash-completion is loaded'
    exit 1
fi
fn=$(complete -p fermix | sed -E 's/.* -F ([^ ]+) .*/\1/')

run() {
    COMP_LINE=$1
    shift
    COMP_POINT=${#COMP_LINE}
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    "$fn" fermix "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s ' "${COMPREPLY[@]}"
    echo
}
