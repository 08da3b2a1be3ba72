# Sourced by every bench script: builds the release binary, makes a temporary home and data
# directory (removed on exit) and defines `serve`, which starts local Fabric on an ephemeral
# port. Sets FABSH (the binary) and WORK (the directory).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# FABSH_BENCH_BIN=target/debug/fabsh runs an already built binary instead (when the machine
# is too busy for a release build; say so beside the figures).
if [ -n "${FABSH_BENCH_BIN:-}" ]; then
    FABSH="$(realpath "$FABSH_BENCH_BIN")"
else
    cargo build --release --quiet
    FABSH="${CARGO_TARGET_DIR:-$PWD/target}/release/fabsh"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabsh-bench.XXXXXX")
SERVER_PID=
trap 'kill $SERVER_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/data" XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config"

# Starts `local serve` with the given knobs on a fresh data directory (stopping the server
# started before, if any) and exports FABSH_ENDPOINT, FABSH_TOKEN, IDENTITY_HEADER and
# FABSH_STORAGE_TOKEN (the four lines it prints first). The data directory is $FABRIC, for `local load-table
# --data-dir`.
serve() {
    kill $SERVER_PID 2>/dev/null || true
    FABRIC="$WORK/fabric-$RANDOM"
    : > "$WORK/serve.out"   # exists before the server writes to it, so the wait can read it
    "$FABSH" local serve --data-dir "$FABRIC" "$@" > "$WORK/serve.out" 2>/dev/null &
    SERVER_PID=$!
    while [ "$(wc -l < "$WORK/serve.out")" -lt 4 ]; do sleep 0.05; done
    eval "$(head -4 "$WORK/serve.out")"
    export FABSH_ENDPOINT FABSH_TOKEN IDENTITY_HEADER FABSH_STORAGE_TOKEN
}

# Makes the two lakehouses fabric-cicd's sample's shortcuts point into, in workspace $1, with a
# file in each target folder: OneLake (and local Fabric) refuse a shortcut whose target path
# does not exist, and a real workspace holds its data lakehouses before the deploy (which pairs
# them by name).
seed_shortcut_targets() {
  echo "shortcut target" > "$WORK/README.txt"
  for target in SourceForShortcutLH/Files/sample_datasets SourceForShortcutLH/Files/images \
      SourceForShortcutLH/Tables/dbo/publicholidays/_delta_log WithoutSchema/Files/Testing; do
    local lakehouse=${target%%/*}
    "$FABSH" item create -w "$1" --name "$lakehouse" --type Lakehouse > /dev/null 2>&1 || true
    "$FABSH" onelake cp "$WORK/README.txt" "$1/$lakehouse.Lakehouse/${target#*/}/" > /dev/null
  done
}
