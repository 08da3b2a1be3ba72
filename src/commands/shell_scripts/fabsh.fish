# fish completion for fabsh. Each Tab asks `fabsh __complete` what may come next: commands,
# flags, values, and workspace and item names (from fabsh's name cache, or a short listing).
function __fabsh_complete
    set -l words (commandline -opc)
    $words[1] __complete -- $words[2..-1] (commandline -ct) 2>/dev/null
end
complete -c fabsh -f -a '(__fabsh_complete)'
