#!/usr/bin/env bash
# Benchmarks of the name cache (issue 29): requests and wall time of `item show` by name in
# workspaces of 100, 2,000 and 20,000 items (pages of 100), cold (cache cleared) and warm
# (after one lookup), against the same command by ids; then, with 50 ms added to every
# response, warm by-name against by-id (target: <= 1.2x). Needs curl and python3.
# Usage: bench/names.sh            (builds the release binary first; SIZES="20000" for one size)
source "$(dirname "$0")/lib.sh"

serve --page-size 100 --async-ratio 0
AUTH="Authorization: Bearer $FABSH_TOKEN"
ORIGIN=${FABSH_ENDPOINT%/v1}
SIZES="${SIZES:-100 2000 20000}"

echo "== setting up workspaces of $SIZES items"
for n in $SIZES; do
  ws=$("$FABSH" workspace create --name "Scale$n" -q id | tr -d '"')
  seq 1 "$n" | xargs -P 16 -I{} curl -s -o /dev/null -X POST -H "$AUTH" -H 'Content-Type: application/json' \
    -d '{"displayName":"nb-{}","type":"Notebook"}' "$FABSH_ENDPOINT/workspaces/$ws/items"
  echo "Scale$n: $("$FABSH" item list -w "$ws" --all -q 'length(@)') items"
done

# runs LABEL PREPARE COMMAND...: the median wall time of 15 runs and the requests of one,
# counted in local Fabric's request log; PREPARE runs before each (cache clear for cold).
runs() {
  python3 - "$ORIGIN" "$FABSH_TOKEN" "$@" <<'PY'
import json, statistics, subprocess, sys, time, urllib.request
origin, token, label, prepare, *command = sys.argv[1:]
def count():
    req = urllib.request.Request(origin + "/_local/requests", headers={"Authorization": "Bearer " + token})
    return json.load(urllib.request.urlopen(req))["count"]
times, requests = [], None
for _ in range(15):
    if prepare:
        subprocess.run(prepare, shell=True, check=True, stdout=subprocess.DEVNULL)
    before = count()
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    times.append(time.perf_counter() - start)
    requests = count() - before
print(f"{label:<34} {requests:>4} requests  median {statistics.median(times)*1000:8.1f} ms")
PY
}

# measure COLD: every variant of `item show` in each workspace; COLD=no leaves out the
# listings (cold and --no-cache), which at 50 ms a request take 10 s a run at 20,000 items.
measure() {
  for n in $SIZES; do
    ws=$("$FABSH" workspace show -w "Scale$n" -q id | tr -d '"')
    target="nb-$((n / 2))"
    id=$("$FABSH" item show -w "$ws" --id "$target" -q id | tr -d '"')
    echo "-- Scale$n, item $target"
    runs "by ids" "" "$FABSH" item show -w "$ws" --id "$id" -o json
    if [ "$1" != no ]; then
      runs "by names, cold" "$FABSH cache clear" "$FABSH" item show -w "Scale$n" --id "$target" -o json
      runs "by names, --no-cache" "" "$FABSH" --no-cache item show -w "Scale$n" --id "$target" -o json
    fi
    runs "by names, warm" "" "$FABSH" item show -w "Scale$n" --id "$target" -o json
    runs "workspace id, item name, warm" "" "$FABSH" item show -w "$ws" --id "$target" -o json
  done
}

echo "== item show on loopback"
measure yes

echo "== item show with 50 ms added latency (target: warm by names <= 1.2x by ids)"
# The same store, served again with the latency (a new port: a new cache file, filled by
# the first lookup of each workspace below).
kill $SERVER_PID 2>/dev/null || true
wait $SERVER_PID 2>/dev/null || true
: > "$WORK/serve.out"
"$FABSH" local serve --data-dir "$FABRIC" --page-size 100 --async-ratio 0 --latency-ms 50 > "$WORK/serve.out" 2>/dev/null &
SERVER_PID=$!
while [ "$(wc -l < "$WORK/serve.out")" -lt 3 ]; do sleep 0.05; done
eval "$(head -3 "$WORK/serve.out")"
export FABSH_ENDPOINT FABSH_TOKEN
ORIGIN=${FABSH_ENDPOINT%/v1}
measure no

echo "== shell completion: one Tab (target: --local within today's served, warm)"
# --local reads its store directly, starting no server; the served endpoint answers from a
# warm name cache. Both complete the items of the demo workspace.
"$FABSH" --local workspace list > /dev/null
runs "Tab, served endpoint, warm" "" "$FABSH" __complete -- item show -w Demo --id ""
runs "Tab, --local (its store)" "" "$FABSH" __complete -- --local item show -w Demo --id ""
