#!/usr/bin/env bash
# `job run --wait` (issue 32) on a run that takes 3 s on local Fabric (--job-ms 3000) with
# Retry-After 1 (--retry-after-seconds 1): wall time (goal <= 3.5 s) and the requests local
# Fabric saw (goal <= 6), the workspace and item given by id. Averaged over a few runs.
# Needs curl and python3.   Usage: bench/jobs.sh   (builds the release binary first)
source "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-3}"
serve --job-ms 3000 --retry-after-seconds 1
ORIGIN=${FABSH_ENDPOINT%/v1}
AUTH="Authorization: Bearer $FABSH_TOKEN"
requests() { curl -s -H "$AUTH" "$ORIGIN/_local/requests" | python3 -c "import json,sys;print(json.load(sys.stdin)['count'])"; }
now() { python3 -c 'import time;print(time.time())'; }
WS=$("$FABSH" workspace show -w Demo -q id | tr -d '"')
ITEM=$("$FABSH" item list -w "$WS" --type Notebook -q '[0].id' | tr -d '"')

for n in $(seq "$RUNS"); do
  before=$(requests); start=$(now)
  "$FABSH" job run -w "$WS" --id "$ITEM" --wait -q status > /dev/null 2>&1
  end=$(now); after=$(requests)
  echo "run $n: $(python3 -c "print(round($end - $start, 2))") s (goal <= 3.5), $((after - before)) requests (goal <= 6)"
done

# `--parameters` of 100,000 and 300,000 entries (issue 43: checking them was quadratic):
# the client's time with --dry-run, nothing sent. Linear when the second is about 3x the first.
PARAMS_DIR=$(mktemp -d)
for count in 100000 300000; do
  python3 -c "import json,sys;json.dump({f'p{i}': i for i in range($count)}, open(sys.argv[1], 'w'))" "$PARAMS_DIR/$count.json"
  start=$(now)
  "$FABSH" job run -w "$WS" --id "$ITEM" --parameters "@$PARAMS_DIR/$count.json" --dry-run -q 'requests | length(@)' > /dev/null
  end=$(now)
  echo "--parameters of $count: $(python3 -c "print(round($end - $start, 2))") s (linear: 300,000 about 3x 100,000)"
done
rm -rf "$PARAMS_DIR"
