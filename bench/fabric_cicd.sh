#!/usr/bin/env bash
# Benchmark: Microsoft's deployment library fabric-cicd 1.4.0, unmodified, deploying its own
# sample repository (tests/fixtures/fabric-cicd-sample/workspace, or SAMPLE=DIR; every item type
# the repository holds in scope) to local Fabric (issue 28, "What a deployment library meets").
# Each variant publishes into a new workspace created without a capacity and assigned to one
# through `POST /v1/workspaces/{id}/assignToCapacity` (fabric-cicd refuses a workspace without
# a capacity), twice: the first run creates everything, the second finds it all there. For each
# run it prints items published, wall time, and the requests and writes (non-GET) local Fabric
# saw in its `/_local/requests` log.
# Variants: FABRIC_CICD_RETRY_DELAY_OVERRIDE_SECONDS=0 (no waits between an operation's polls
# or retries), then fabric-cicd's defaults (VARIANTS="fast" or "defaults" runs one).
#
# NETWORK: installs fabric-cicd==1.4.0 from PyPI with pip into a venv in the bench's temporary
# directory (or uses FABRIC_CICD_VENV=DIR, a venv that already has it). Not part of
# `cargo test`.
# No root, no /etc/hosts: local Fabric serves the public names on a loopback port behind a
# Python TLS terminator (bench/cicd_driver.py proxy) with a self-signed certificate made with
# openssl and trusted through REQUESTS_CA_BUNDLE; the driver process resolves
# api.fabric.microsoft.com and api.powerbi.com to 127.0.0.1 itself, and fabric-cicd is pointed
# at https://api.fabric.microsoft.com:PORT / https://api.powerbi.com:PORT through
# FABRIC_API_ROOT_URL / DEFAULT_API_ROOT_URL (its URL validation checks the host, not the port).
# Needs python3 (with venv), openssl.
# Usage: bench/fabric_cicd.sh   (builds the release binary first; FABSH_BENCH_BIN=target/debug/fabsh
# runs an already built one)
source "$(dirname "$0")/lib.sh"
BENCH="$PWD/bench"
SAMPLE="${SAMPLE:-$(cd "$(dirname "$0")/.." && pwd)/tests/fixtures/fabric-cicd-sample/workspace}"
PROXY_PID=
trap 'kill $PROXY_PID $SERVER_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT

if [ -n "${FABRIC_CICD_VENV:-}" ]; then
    PY="$FABRIC_CICD_VENV/bin/python"
else
    python3 -m venv "$WORK/venv"
    "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check fabric-cicd==1.4.0
    PY="$WORK/venv/bin/python"
fi
"$PY" -c 'import importlib.metadata as m; v = m.version("fabric-cicd"); assert v == "1.4.0", v'

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=api.fabric.microsoft.com" \
    -addext "subjectAltName=DNS:api.fabric.microsoft.com,DNS:api.powerbi.com" \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

serve --public-host api.fabric.microsoft.com,api.powerbi.com \
    --public-url "https://api.fabric.microsoft.com:$PORT"
TARGET=${FABSH_ENDPOINT%/v1}; TARGET=${TARGET##*:}
"$PY" "$BENCH/cicd_driver.py" proxy "$PORT" "$TARGET" "$WORK/cert.pem" "$WORK/key.pem" &
PROXY_PID=$!
# fabric-cicd writes beside the repository (parameter files resolved, logs): use a copy.
cp -r "$SAMPLE" "$WORK/repo"

export REQUESTS_CA_BUNDLE="$WORK/cert.pem"
export FABRIC_API_ROOT_URL="https://api.fabric.microsoft.com:$PORT"
export DEFAULT_API_ROOT_URL="https://api.powerbi.com:$PORT"
echo "fabsh: $FABSH"
for variant in ${VARIANTS:-fast defaults}; do
    if [ "$variant" = fast ]; then
        delay=(env FABRIC_CICD_RETRY_DELAY_OVERRIDE_SECONDS=0)
    else
        delay=(env -u FABRIC_CICD_RETRY_DELAY_OVERRIDE_SECONDS)
    fi
    (cd "$WORK" && "${delay[@]}" "$PY" "$BENCH/cicd_driver.py" run "$WORK/repo" "cicd-$variant" \
        > "$WORK/$variant.jsonl" 2> "$WORK/$variant.log") || { tail -20 "$WORK/$variant.log"; exit 1; }
    python3 - "$variant" "$WORK/$variant.jsonl" <<'EOF'
import json, sys
variant, path = sys.argv[1], sys.argv[2]
for line in open(path):
    r = json.loads(line)
    if "without_capacity" in r:
        print(f"{variant:8} without a capacity: {r['without_capacity'] or 'published (not refused)'}")
        continue
    print(f"{variant:8} run {r['run']}: {r['items_published']}/{r['items_in_repository']} items published, "
          f"{r['wall_s']:.2f} s, {r['requests']} requests, {r['writes']} writes"
          + ("" if r["writes_logged"] else " (writes: log overflowed)")
          + (f"; stopped: {r['error']}" if r["error"] else ""))
    print(f"{'':8}        {r['operation_polls']} operation polls; writes: "
          + ", ".join(f"{n} {k}" for k, n in r["writes_by_kind"].items()))
EOF
done
