# bash completion for fabsh. Each Tab asks `fabsh __complete` what may come next: commands,
# flags, values, and workspace and item names (from fabsh's name cache, or a short listing).
_fabsh() {
    local cur=${COMP_WORDS[COMP_CWORD]} line
    COMPREPLY=()
    while IFS= read -r line; do
        # A word the user opened with a quote is left for readline to close; others are
        # escaped so names with spaces stay one word.
        if [[ $cur == [\"\']* ]]; then
            COMPREPLY+=("$line")
        else
            COMPREPLY+=("$(printf '%q' "$line")")
        fi
    done < <("${COMP_WORDS[0]}" __complete -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null)
    # `WORKSPACE/` waits for its item: no space after it.
    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then
        compopt -o nospace 2>/dev/null
    fi
}
complete -F _fabsh fabsh
