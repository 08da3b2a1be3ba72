#!/usr/bin/env bash
# Benchmarks of item definitions (issue 4). Needs hyperfine, curl, python3 and GNU time:
#   apt-get install -y hyperfine curl time
# Usage: bench/definitions.sh            (builds the release binary first)
source "$(dirname "$0")/lib.sh"

# 50 ms added to every API response; LRO-capable calls answered inline, so each command
# below is exactly the requests it names.
serve --latency-ms 50 --async-ratio 0
AUTH="Authorization: Bearer $FABSH_TOKEN"

WS=$("$FABSH" workspace show -w Demo -q id | tr -d '"')
ITEM=$("$FABSH" item list -w "$WS" --type SemanticModel -q '[0].id' | tr -d '"')
median() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['results'][0]['median'])" "$1"; }

echo "== item inspect vs its slowest single request, 50 ms latency (target: <= 1.1x)"
# Each request made alone by fabsh (start-up included, as in inspect), ids given so no
# name lookups are added.
hyperfine --warmup 3 --runs 30 -N \
  "$FABSH item show -w $WS --id $ITEM -o json" --export-json "$WORK/show.json" >/dev/null
hyperfine --warmup 3 --runs 30 -N \
  "$FABSH item get-definition -w $WS --id $ITEM -o json" --export-json "$WORK/def.json" >/dev/null
hyperfine --warmup 3 --runs 30 -N \
  "$FABSH item list-connections -w $WS --id $ITEM -o json" --export-json "$WORK/conn.json" >/dev/null
hyperfine --warmup 3 --runs 30 -N \
  "$FABSH item inspect -w $WS --id $ITEM -o json" --export-json "$WORK/inspect.json" >/dev/null
for request in show def conn inspect; do
  printf '%s %s\n' "$request" "$(median "$WORK/$request.json")"
done > "$WORK/medians.txt"
# The same three requests over curl, for reference: the server's own time per request.
for path in "items/$ITEM" "items/$ITEM/connections"; do
  curl -s -o /dev/null -w "curl GET $path: %{time_total}s\n" -H "$AUTH" "$FABSH_ENDPOINT/workspaces/$WS/$path"
done
curl -s -o /dev/null -w "curl POST getDefinition: %{time_total}s\n" -X POST -H "$AUTH" "$FABSH_ENDPOINT/workspaces/$WS/items/$ITEM/getDefinition"
python3 - "$WORK/medians.txt" <<'PY'
import sys
m = dict(line.split() for line in open(sys.argv[1]))
m = {k: float(v) for k, v in m.items()}
slowest = max(m["show"], m["def"], m["conn"])
print(f"show {m['show']*1000:.1f} ms, get-definition {m['def']*1000:.1f} ms, "
      f"list-connections {m['conn']*1000:.1f} ms, inspect {m['inspect']*1000:.1f} ms, "
      f"ratio {m['inspect']/slowest:.2f}")
PY

echo "== get-definition --dir of a 20 MB definition (target: peak RSS <= 3x payload)"
python3 - "$WORK/big.json" <<'PY'
import base64, json, os, sys
payload = os.urandom(20 * 1024 * 1024)
source = b"# Fabric notebook source\n\n# CELL ********************\n\nprint('big')\n"
parts = [
    {"path": "notebook-content.py", "payload": base64.b64encode(source).decode(), "payloadType": "InlineBase64"},
    {"path": "resources/big.bin", "payload": base64.b64encode(payload).decode(), "payloadType": "InlineBase64"},
]
json.dump({"displayName": "Big", "type": "Notebook", "definition": {"parts": parts}}, open(sys.argv[1], "w"))
PY
curl -s -o /dev/null -X POST -H "$AUTH" -H 'Content-Type: application/json' --data-binary "@$WORK/big.json" "$FABSH_ENDPOINT/workspaces/$WS/items"
BIG=$("$FABSH" item list -w "$WS" --type Notebook -q "[?displayName=='Big'].id | [0]" | tr -d '"')
/usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$FABSH" item get-definition -w "$WS" --id "$BIG" --dir "$WORK/out" > /dev/null
read WALL RSS_KB < "$WORK/time.txt"
PAYLOAD=$(du -sb "$WORK/out" | cut -f1)
python3 -c "print(f'payload {$PAYLOAD/1048576:.1f} MiB written, wall {$WALL:.2f} s, peak RSS {$RSS_KB/1024:.1f} MiB, ratio {$RSS_KB*1024/$PAYLOAD:.2f}')"
