#!/usr/bin/env bash
# Benchmarks of the foundation (issue 2). Needs hyperfine, wrk, curl and GNU time:
#   apt-get install -y hyperfine wrk curl time
# Usage: bench/foundation.sh            (builds the release binary first)
source "$(dirname "$0")/lib.sh"

echo "== fabsh --version (target: median <= 5 ms)"
hyperfine --warmup 5 --runs 100 -N "$FABSH --version" --export-json "$WORK/version.json" >/dev/null
python3 -c "import json;r=json.load(open('$WORK/version.json'))['results'][0];print(f\"median {r['median']*1000:.2f} ms, mean {r['mean']*1000:.2f} ms\")"

# A server with sync creates and pages of 100.
serve --page-size 100 --async-ratio 0
ORIGIN=${FABSH_ENDPOINT%/v1}
AUTH="Authorization: Bearer $FABSH_TOKEN"

echo "== fabsh item list -w Demo against local serve (target: median <= 15 ms)"
hyperfine --warmup 5 --runs 100 -N "$FABSH item list -w Demo -o json" --export-json "$WORK/list.json" >/dev/null
python3 -c "import json;r=json.load(open('$WORK/list.json'))['results'][0];print(f\"median {r['median']*1000:.2f} ms, mean {r['mean']*1000:.2f} ms\")"

echo "== setting up 10,000 items"
WS=$("$FABSH" workspace create --name Bench -q id | tr -d '"')
seq 1 10000 | xargs -P 16 -I{} curl -s -o /dev/null -X POST -H "$AUTH" -H 'Content-Type: application/json' \
  -d '{"displayName":"item{}","type":"Notebook"}' "$FABSH_ENDPOINT/workspaces/$WS/items"
COUNT=$("$FABSH" item list -w "$WS" --all -q 'length(@)')
echo "items: $COUNT"

echo "== item list --all over 10,000 items, pages of 100 (target: <= 1.2 x server page time, peak RSS <= 40 MB)"
# The server's page times: the same 100 requests, one keep-alive connection, nothing else.
python3 - "$FABSH_ENDPOINT" "$FABSH_TOKEN" "$WS" > "$WORK/pages.txt" <<'PY'
import http.client, json, sys, time, urllib.parse
endpoint, token, ws = sys.argv[1:]
url = urllib.parse.urlparse(endpoint)
conn = http.client.HTTPConnection(url.hostname, url.port)
headers = {"Authorization": f"Bearer {token}"}
total, pages, query = 0.0, 0, ""
while True:
    start = time.perf_counter()
    conn.request("GET", f"{url.path}/workspaces/{ws}/items{query}", headers=headers)
    body = json.loads(conn.getresponse().read())
    total += time.perf_counter() - start
    pages += 1
    token_next = body.get("continuationToken")
    if not token_next:
        break
    query = "?continuationToken=" + urllib.parse.quote(token_next)
print(f"{total:.4f} {pages}")
PY
read SERVER_TIME PAGES < "$WORK/pages.txt"
/usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$FABSH" item list -w "$WS" --all -o json > /dev/null
read WALL RSS_KB < "$WORK/time.txt"
python3 -c "print(f'pages {$PAGES}, server page time {$SERVER_TIME*1000:.0f} ms, fabsh wall {$WALL*1000:.0f} ms, ratio {$WALL/$SERVER_TIME:.2f}, peak RSS {$RSS_KB/1024:.1f} MB')"

echo "== local Fabric GET item, wrk -t2 -c32 -d10s (target: >= 5,000 requests/s)"
ITEM=$("$FABSH" item list -w Demo --type Notebook -q '[0].id' | tr -d '"')
DEMO=$("$FABSH" workspace show -w Demo -q id | tr -d '"')
wrk -t2 -c32 -d10s -H "$AUTH" "$FABSH_ENDPOINT/workspaces/$DEMO/items/$ITEM" | grep -E "Requests/sec|Latency|Non-2xx" || true
