#!/usr/bin/env bash
# Build times (issue 12): a cold release build, then incremental release and test builds after
# touching one client file and one local Fabric file, then the whole CI run twice. The builds
# go to a fresh target directory under $WORK, so nothing is reused from outside the script.
# Usage: bench/build.sh [CLIENT_FILE EMULATOR_FILE]   (paths relative to the repository)
#   bench/build.sh                          the workspace layout's files
#   bench/build.sh src/commands/item/basics.rs src/local/routes/items.rs   (the one-crate layout)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CLIENT_FILE=${1:-crates/fabsh-client/src/commands/item/basics.rs}
EMULATOR_FILE=${2:-crates/fabsh-local/src/routes/items.rs}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabsh-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export CARGO_TARGET_DIR="$WORK/target"

seconds() { # runs "$@" quietly and prints its wall time in seconds
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.1f} s')"
}

echo "== cold release build: $(seconds cargo build --release)"
echo "== cold test build: $(seconds cargo test --no-run)"
for file in "$CLIENT_FILE" "$EMULATOR_FILE"; do
    touch "$file"
    echo "== touch $file, release build: $(seconds cargo build --release)"
    touch "$file"
    echo "== touch $file, test build: $(seconds cargo test --no-run)"
done
echo "== .ci/run after those builds (clippy's cache still cold): $(seconds .ci/run)"
echo "== .ci/run again (warm): $(seconds .ci/run)"
