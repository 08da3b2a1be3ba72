#!/usr/bin/env bash
# Benchmarks of the data-agent commands (issue 6). Needs hyperfine and python3:
#   apt-get install -y hyperfine
# Usage: bench/data_agents.sh            (builds the release binary first)
source "$(dirname "$0")/lib.sh"
LATENCY=30
CONCURRENCY=8 # upload-fewshots' fixed concurrency (UPLOAD_CONCURRENCY)

# Sync creates, so setup is quick; every API response waits $LATENCY ms.
serve --latency-ms $LATENCY --async-ratio 0
json() { "$@" -o json | tr -d '"'; }

echo "== setting up a lakehouse with 50 tables x 20 columns"
WS=$(json "$FABSH" workspace show -w Demo -q id)
"$FABSH" item create -w "$WS" --name Wide --type Lakehouse > /dev/null
python3 - "$WORK/csv" <<'PY'
import os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for t in range(50):
    with open(f"{out}/t{t:02d}.csv", "w") as f:
        f.write(",".join(f"c{c:02d}" for c in range(20)) + "\n")
        f.write(",".join(str(c) for c in range(20)) + "\n")
PY
for file in "$WORK"/csv/*.csv; do
  table=$(basename "$file" .csv)
  "$FABSH" local load-table -w "$WS" --lakehouse Wide --table "$table" --file "$file" --data-dir "$FABRIC" > /dev/null
done
AGENT=$(json "$FABSH" data-agent create -w "$WS" --name Bench -q id)
WIDE=$(json "$FABSH" data-agent add-datasource -w "$WS" --id "$AGENT" --artifact Wide -q id)
SALES=$(json "$FABSH" data-agent add-datasource -w "$WS" --id "$AGENT" --artifact SalesLakehouse -q id)
ELEMENTS=$("$FABSH" data-agent list-elements -w "$WS" --id "$AGENT" --datasource "$WIDE" -o json -q 'length(@)')
echo "elements listed: $ELEMENTS (50 tables + 1000 columns + the schema)"

# Levels: top, Schemas, dbo, Tables, the 50 tables (their columns) = 5 round trips.
DEPTH=5
echo "== list-elements, 50 x 20, ${LATENCY} ms latency (target: <= 1.5 x depth $DEPTH x $LATENCY ms = $((DEPTH * LATENCY * 3 / 2)) ms)"
hyperfine --warmup 2 --runs 20 -N \
  "$FABSH data-agent list-elements -w $WS --id $AGENT --datasource $WIDE -o json" \
  --export-json "$WORK/elements.json" > /dev/null
python3 -c "import json;r=json.load(open('$WORK/elements.json'))['results'][0];print(f\"median {r['median']*1000:.0f} ms, mean {r['mean']*1000:.0f} ms, target {$DEPTH*$LATENCY*1.5:.0f} ms\")"

echo "== upload-fewshots, 100 rows (target: <= 1.3 x 100 x $LATENCY ms / $CONCURRENCY = $((100 * LATENCY * 13 / 10 / CONCURRENCY)) ms)"
python3 - "$WORK/fewshots.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("question,query\n")
    for i in range(100):
        f.write(f"\"How many orders have quantity {i}?\",\"SELECT COUNT(*) FROM orders WHERE quantity = {i}\"\n")
PY
hyperfine --runs 10 -N \
  --prepare "$FABSH data-agent clear-fewshots -w $WS --id $AGENT --datasource $SALES --yes" \
  "$FABSH data-agent upload-fewshots -w $WS --id $AGENT --datasource $SALES --file $WORK/fewshots.csv -o json" \
  --export-json "$WORK/upload.json" > /dev/null
python3 -c "import json;r=json.load(open('$WORK/upload.json'))['results'][0];print(f\"median {r['median']*1000:.0f} ms, mean {r['mean']*1000:.0f} ms, target {100*$LATENCY/$CONCURRENCY*1.3:.0f} ms\")"
