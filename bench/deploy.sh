#!/usr/bin/env bash
# Benchmark of `deploy apply` and `deploy plan` (issue 30) on fabric-cicd's sample repository
# (tests/fixtures, 40 items; Example Notebook left out while local Fabric lacks an Eventhouse
# query URI), against local Fabric with 40 ms added to every API response.
#  1. apply to an empty workspace, against the critical path: the dependency levels of the
#     plan times one create with its long-running operation (measured as the slowest of a
#     few single creates on the same server);
#  2. plan with nothing to do: requests sent and wall time.
# Needs curl and python3.   Usage: bench/deploy.sh   (builds the release binary first;
# APPLY_ARGS="--concurrency 16" passes flags to the apply)
source "$(dirname "$0")/lib.sh"
LATENCY_MS="${LATENCY_MS:-40}"
serve --latency-ms "$LATENCY_MS"
ORIGIN=${FABSH_ENDPOINT%/v1}
AUTH="Authorization: Bearer $FABSH_TOKEN"
requests() { curl -s -H "$AUTH" "$ORIGIN/_local/requests" | python3 -c "import json,sys;print(json.load(sys.stdin)['count'])"; }
now() { python3 -c 'import time;print(time.time())'; }
cp -r tests/fixtures/fabric-cicd-sample/workspace "$WORK/repo"
printf 'core:\n  repository_directory: repo\npublish:\n  exclude_regex: "^Example Notebook$"\n' > "$WORK/deploy.yml"

"$FABSH" workspace create --name Bench -q id > /dev/null
# Exit 8: changes pending, as they are on an empty workspace.
LEVELS=$({ "$FABSH" deploy plan --config "$WORK/deploy.yml" -w Bench --environment PROD -o json 2>/dev/null || true; } \
  | python3 -c "import json,sys;print(1+max(r['level'] for r in json.load(sys.stdin)['items'] if r['level'] is not None))")

# One create through the same client path (create + operation polling).
"$FABSH" workspace create --name Single -q id > /dev/null
ONE=0
for n in 1 2 3; do
  start=$(now)
  "$FABSH" item create -w Single --name "probe$n" --type Notebook > /dev/null
  end=$(now)
  ONE=$(python3 -c "print(max($ONE, $end - $start))")
done
CRITICAL=$(python3 -c "print(round($LEVELS * $ONE, 2))")

before=$(requests); start=$(now)
"$FABSH" deploy apply --config "$WORK/deploy.yml" -w Bench --environment PROD -o json ${APPLY_ARGS:-} > "$WORK/apply.json"
end=$(now); after=$(requests)
APPLY=$(python3 -c "print(round($end - $start, 2))")
CREATED=$(python3 -c "import json;print(json.load(open('$WORK/apply.json'))['summary']['created'])")

before_plan=$(requests); start=$(now)
"$FABSH" deploy plan --config "$WORK/deploy.yml" -w Bench --environment PROD -o json > /dev/null
end=$(now); after_plan=$(requests)
PLAN=$(python3 -c "print(round($end - $start, 2))")

echo "apply: $CREATED items in ${APPLY} s, $((after - before)) requests; critical path ${LEVELS} levels x ${ONE%.*}.$(python3 -c "print(str(round($ONE,2)).split('.')[1])") s = ${CRITICAL} s; ratio $(python3 -c "print(round($APPLY / $CRITICAL, 2))") (goal <= 1.5)"
echo "no-op plan: $((after_plan - before_plan)) requests, ${PLAN} s"
