#compdef fabsh
# zsh completion for fabsh. Each Tab asks `fabsh __complete` what may come next: commands,
# flags, values, and workspace and item names (from fabsh's name cache, or a short listing).
_fabsh() {
    local -a found whole open
    local line
    found=("${(@f)$(${words[1]} __complete -- "${(@Q)words[2,CURRENT-1]}" "${(Q)words[CURRENT]}" 2>/dev/null)}")
    for line in $found; do
        [[ -z $line ]] && continue
        # `WORKSPACE/` waits for its item: no space after it.
        if [[ $line == */ ]]; then open+=("$line"); else whole+=("$line"); fi
    done
    (( $#whole )) && compadd -- "${whole[@]}"
    (( $#open )) && compadd -S '' -- "${open[@]}"
    return 0
}
if [[ $funcstack[1] == _fabsh ]]; then
    _fabsh "$@"
else
    compdef _fabsh fabsh
fi
