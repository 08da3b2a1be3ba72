#!/usr/bin/env bash
# The redesign's figures (issue 46), counted on the sources as they are: reads that can turn a
# changed service answer into a silent value, pub items no other crate uses, imports that point
# up a layer, and local Fabric servers the tests start. Outside tests means: not under tests/,
# and in a source file only the lines before its `#[cfg(test)]` module.
#
#   bash bench/seams.sh          # the counts from the sources alone (a second)
#   bash bench/seams.sh --pub    # also pub items not used outside their crate (a clippy run)
set -euo pipefail
cd "$(dirname "$0")/.."

# The product's Rust sources, each cut at its test module.
product_lines() {
    # A module file named tests.rs is a `#[cfg(test)] mod tests;` (each is).
    find src crates -name '*.rs' -not -path '*/tests/*' -not -name tests.rs -print0 |
        xargs -0 awk 'FNR == 1 { testing = 0 } /^[[:space:]]*#\[cfg\(test\)\]/ { testing = 1 } !testing { print FILENAME ":" $0 }'
}

count() {
    product_lines | grep -cE "$1" || true
}

printf '%-58s %s\n' "figure (outside tests)" "count"
printf '%-58s %s\n' 'argument reads by name: args.x("...")' \
    "$(count 'args\.[a-z_]+\("[a-z]')"
printf '%-58s %s\n' 'key reads on JSON values: ["key"]' "$(count '\["[A-Za-z_]')"
# The broad figure above also counts string array literals (`columns: &["id", ...]`); an
# index read is a `["key"]` right after a value (a name, `]` or `)`).
printf '%-58s %s\n' '  of which index reads (value["key"])' \
    "$(count '[]A-Za-z0-9_)]\["[A-Za-z_$][A-Za-z0-9_$-]*"\]')"
printf '%-58s %s\n' 'unwrap_or_default' "$(count 'unwrap_or_default')"
# One that says why its default is right: a comment on its line or in the three above.
uncommented=$(find src crates -name '*.rs' -not -path '*/tests/*' -not -name tests.rs -print0 |
    xargs -0 awk 'FNR == 1 { testing = 0; a = b = c = "" }
        /^[[:space:]]*#\[cfg\(test\)\]/ { testing = 1 }
        !testing && /unwrap_or_default/ && !(($0 a b c) ~ /\/\//) { n++ }
        { c = b; b = a; a = $0 } END { print n + 0 }')
printf '%-58s %s\n' '  of which without a comment saying why' "$uncommented"
printf '%-58s %s\n' 'json! literals' "$(count 'json!')"
printf '%-58s %s\n' 'pub items (all)' "$(count '^[^:]*:[[:space:]]*pub (fn|struct|enum|const|static|trait|type|mod|use) ')"

# A lower layer naming an upper one: the layer that talks to Fabric (fabsh-api) must not reach
# for the commands or output (its manifest cannot even name fabsh-client), and inside the
# client, what the commands are built on (output, definitions, evaluations, replies) must not
# reach for the commands.
client=crates/fabsh-client/src
upward=$( (
    grep -rhE 'fabsh_client|crate::(output|commands|context)' crates/fabsh-api/src
    grep -rhE '^\s*use crate::commands' $client/output $client/definition $client/agent $client/reply.rs
) 2>/dev/null | wc -l || true)
printf '%-58s %s\n' 'upward imports (fabsh-api, and inside fabsh-client)' "$upward"

for crate in fabsh-client fabsh-api; do
    lines=$(find crates/$crate/src -name '*.rs' -print0 | xargs -0 cat | wc -l)
    printf '%-58s %s\n' "$crate lines" "$lines"
done

starts=$(grep -rhoE 'Server::(start|with|with_env|on_data_dir|with_descriptors)\(' tests/it | wc -l)
files=$(grep -rlE 'Server::(start|with|with_env|on_data_dir|with_descriptors)\(' tests/it | wc -l)
shared=$(grep -rlE '(shared|session)\(module_path!\(\)\)' tests/it | wc -l)
# Servers of a test's own with default knobs: a shared one could serve unless the test needs
# the server itself (its principals, a restart, a second endpoint).
default_starts=$(grep -rho 'Server::start()' tests/it | wc -l)
printf '%-58s %s\n' 'local Fabric starts written in tests (files)' "$starts ($files)"
printf '%-58s %s\n' '  of which with default knobs (Server::start)' "$default_starts"
printf '%-58s %s\n' 'test files sharing one server' "$shared"

if [[ "${1:-}" == "--pub" ]]; then
    unreachable=$(cargo clippy --workspace --all-targets --message-format short -- -W unreachable_pub 2>&1 |
        grep -c 'unreachable `pub` item' || true)
    printf '%-58s %s\n' 'pub items not reachable from outside their crate' "$unreachable"
fi
