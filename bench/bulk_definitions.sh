#!/usr/bin/env bash
# Benchmark of bulk definition transfer (issue 5): a bulk export to files and a bulk import
# from them, 200 notebooks, against local Fabric with 50 ms added to every API response and
# operations that take LRO_MS (default 2000 ms, set LRO_MS to change it). Reports each
# command's wall time and client CPU time (user + sys): the client should spend a small share
# of the wall time working, the rest waiting on the long-running operation.
# Needs curl, python3 and GNU time:  apt-get install -y curl time
# Usage: bench/bulk_definitions.sh            (builds the release binary first)
source "$(dirname "$0")/lib.sh"
LRO_MS="${LRO_MS:-2000}"
ITEMS=200
serve --latency-ms 50 --lro-ms "$LRO_MS"
export FABSH_ENDPOINT FABSH_TOKEN
ORIGIN=${FABSH_ENDPOINT%/v1}
AUTH="Authorization: Bearer $FABSH_TOKEN"
requests() { curl -s -H "$AUTH" "$ORIGIN/_local/requests" | python3 -c "import json,sys;print(json.load(sys.stdin)['count'])"; }

echo "== setting up $ITEMS notebooks (about 4 KiB of source each)"
SOURCE=$(python3 -c "import base64;print(base64.b64encode(('# Fabric notebook source\n\n# CELL ********************\n\n' + 'print(\"row\")\n' * 300).encode()).decode())")
WS=$("$FABSH" workspace create --name Bench -q id | tr -d '"')
seq 1 "$ITEMS" | xargs -P 16 -I{} curl -s -o /dev/null -X POST -H "$AUTH" -H 'Content-Type: application/json' \
  -d "{\"displayName\":\"nb{}\",\"type\":\"Notebook\",\"definition\":{\"parts\":[{\"path\":\"notebook-content.py\",\"payload\":\"$SOURCE\",\"payloadType\":\"InlineBase64\"}]}}" \
  "$FABSH_ENDPOINT/workspaces/$WS/items"
until [ "$("$FABSH" item list -w "$WS" --all -q 'length(@)')" -ge "$ITEMS" ]; do sleep 0.2; done

# One command under GNU time: prints "wall user sys requests".
measure() {
  local before after
  before=$(requests)
  /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$@" > /dev/null
  after=$(requests)
  echo "$(cat "$WORK/time.txt") $((after - before))"
}

echo "== bulk-export-definitions --dir, $ITEMS items, 50 ms latency, ${LRO_MS} ms operations"
read -r EXPORT_WALL EXPORT_USER EXPORT_SYS EXPORT_REQUESTS < <(measure "$FABSH" item bulk-export-definitions -w "$WS" --dir "$WORK/export")
TARGET=$("$FABSH" workspace create --name Target -q id | tr -d '"')
echo "== bulk-import-definitions --dir into an empty workspace"
read -r IMPORT_WALL IMPORT_USER IMPORT_SYS IMPORT_REQUESTS < <(measure "$FABSH" item bulk-import-definitions -w "$TARGET" --dir "$WORK/export")
COUNT=$("$FABSH" item list -w "$TARGET" --all -q 'length(@)')
FILES=$(find "$WORK/export" -type f | wc -l)
BYTES=$(du -sb "$WORK/export" | cut -f1)

python3 - "$LRO_MS" <<PY
import sys
lro = int(sys.argv[1]) / 1000
rows = [("export", $EXPORT_WALL, $EXPORT_USER + $EXPORT_SYS, $EXPORT_REQUESTS),
        ("import", $IMPORT_WALL, $IMPORT_USER + $IMPORT_SYS, $IMPORT_REQUESTS)]
print(f"exported {$FILES} files ({$BYTES / 1024:.0f} KiB); imported {$COUNT} items")
for name, wall, cpu, requests in rows:
    print(f"{name}: wall {wall:.2f} s = client CPU {cpu:.2f} s ({cpu / wall:.1%}) + waiting "
          f"{wall - cpu:.2f} s, of which the operation itself {lro:.2f} s ({lro / wall:.0%} of wall) "
          f"and {requests} requests at 50 ms latency")
PY
