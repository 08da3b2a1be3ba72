#!/usr/bin/env bash
# `fabsh mcp serve` (issue 18) over stdio against a running local Fabric:
#   1. start to `initialize` answered: target <= 20 ms
#   2. `tools/list`: target <= 10 ms
#   3. 100 sequential `item_show` calls in one session: target <= 0.5 s
# The client is bench/mcp_client.py (no dependencies); times include its pipe round trips.
# Usage: bench/mcp.sh   (builds the release binary; needs python3)
source "$(dirname "$0")/lib.sh"
serve
WS=$("$FABSH" workspace show -w Demo -q id | tr -d '"')
ITEM=$("$FABSH" item list -w "$WS" --type Notebook -q '[0].id' | tr -d '"')
echo "== stdio, against local Fabric at $FABSH_ENDPOINT; targets: 20 ms, 10 ms, 500 ms"
python3 bench/mcp_client.py "$FABSH mcp serve" "$WS" "$ITEM"
