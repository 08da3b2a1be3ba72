#!/usr/bin/env bash
# Benchmarks of the scripting host (issue 3). Needs hyperfine and python3:
#   apt-get install -y hyperfine
# Usage: bench/scripting.sh            (builds the release binary first)
# CARGO_TARGET_DIR is honoured, so a separate build dir works too.
source "$(dirname "$0")/lib.sh"

# A JSON file of $1 notebooks named with prefix $2.
items() {
    python3 -c "import json,sys;print(json.dumps([{'displayName':f'$2{i}','type':'Notebook'} for i in range($1)]))"
}

# Times `item bulk-create` of 1,000 items at concurrency 16 into a fresh workspace; prints
# the wall time and the summary.
bulk_run() {
    local label=$1
    local ws
    ws=$("$FABSH" workspace create --name "bench-$label-$RANDOM" -q id | tr -d '"')
    items 1000 "$label-" > "$WORK/items.json"
    local start end
    start=$(date +%s.%N)
    "$FABSH" item bulk-create -w "$ws" --file "$WORK/items.json" --concurrency 16 -o json > "$WORK/bulk.json" || true
    end=$(date +%s.%N)
    python3 - "$start" "$end" "$WORK/bulk.json" "$2" <<'PY'
import json, sys
start, end, path, ideal = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
summary = json.load(open(path))["summary"]
wall = end - start
print(f"wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {wall / ideal:.2f}, "
      f"created {summary['succeeded']}, failed {summary['failed']}")
PY
}

echo "== a script calling item::show 1,000 times against local serve (target: <= 1.5 s)"
serve --async-ratio 0
cat > "$WORK/show.rhai" <<'RHAI'
for n in 1..=1000 {
    item::show("Demo", "Welcome");
}
RHAI
hyperfine --warmup 1 --runs 10 -N "$FABSH run $WORK/show.rhai" --export-json "$WORK/show.json" >/dev/null
python3 -c "import json;r=json.load(open('$WORK/show.json'))['results'][0];print(f\"median {r['median']:.3f} s, min {r['min']:.3f} s, max {r['max']:.3f} s\")"

# The floor a client can reach on this server and machine: 16 keep-alive Python threads
# sending the same 1,000 creates, with nothing else to do.
raw_creates() {
    local ws
    ws=$("$FABSH" workspace create --name "raw-$RANDOM" -q id | tr -d '"')
    python3 - "$FABSH_ENDPOINT" "$FABSH_TOKEN" "$ws" "$1" <<'PY'
import http.client, json, sys, threading, time, urllib.parse
endpoint, token, ws, ideal = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
url = urllib.parse.urlparse(endpoint)
def worker(k, n):
    conn = http.client.HTTPConnection(url.hostname, url.port)
    for i in range(n):
        body = json.dumps({"displayName": f"raw-{k}-{i}", "type": "Notebook"})
        conn.request("POST", f"{url.path}/workspaces/{ws}/items", body=body,
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        conn.getresponse().read()
start = time.perf_counter()
threads = [threading.Thread(target=worker, args=(k, 1000 // 16 + (k < 1000 % 16))) for k in range(16)]
[t.start() for t in threads]
[t.join() for t in threads]
wall = time.perf_counter() - start
print(f"raw HTTP baseline: wall {wall:.2f} s, ratio {wall / ideal:.2f}")
PY
}

echo "== item bulk-create, 1,000 items, concurrency 16, 25 ms latency (target: <= 1.3 x 1000 x 25 ms / 16)"
serve --latency-ms 25 --async-ratio 0
for run in 1 2 3; do bulk_run "lat$run" 1.5625; raw_creates 1.5625; done

echo "== the same with a quota of 100 requests/s answered by 429 (target: <= 1.2 x 10 s, no failed items)"
serve --quota-rps 100 --async-ratio 0
for run in 1 2 3; do bulk_run "quota$run" 10; done
