#!/usr/bin/env bash
# Benchmark of `deploy apply` and `deploy plan` (issue 30) on fabric-cicd's sample repository
# (tests/fixtures, 40 items; Example Notebook left out while local Fabric lacks an Eventhouse
# query URI), against local Fabric with 40 ms added to every API response.
#  1. apply to an empty workspace, against the critical path: the dependency levels of the
#     plan times one create with its long-running operation (measured on the same server
#     through the same client path, less process start; see below);
#  2. plan with nothing to do: requests sent and wall time;
#  3. a saved plan: `plan --out` against a second empty workspace, then `apply --plan` of it,
#     timed against the apply of step 1 (goal: no slower; it reads the workspace again to
#     check that nothing moved, as apply reads it to plan).
# Needs curl and python3.   Usage: bench/deploy.sh   (builds the release binary first;
# APPLY_ARGS="--concurrency 16" passes flags to the apply)
source "$(dirname "$0")/lib.sh"
LATENCY_MS="${LATENCY_MS:-40}"
serve --latency-ms "$LATENCY_MS"
ORIGIN=${FABSH_ENDPOINT%/v1}
AUTH="Authorization: Bearer $FABSH_TOKEN"
requests() { curl -s -H "$AUTH" "$ORIGIN/_local/requests" | python3 -c "import json,sys;print(json.load(sys.stdin)['count'])"; }
# date, not python: a timed span must not include an interpreter's start.
now() { date +%s.%N; }
cp -r tests/fixtures/fabric-cicd-sample/workspace "$WORK/repo"
printf 'core:\n  repository_directory: repo\npublish:\n  exclude_regex: "^Example Notebook$"\n' > "$WORK/deploy.yml"

"$FABSH" workspace create --name Bench -q id > /dev/null
seed_shortcut_targets Bench
# Exit 8: changes pending, as they are on an empty workspace.
LEVELS=$({ "$FABSH" deploy plan --config "$WORK/deploy.yml" -w Bench --environment PROD -o json 2>/dev/null || true; } \
  | python3 -c "import json,sys;print(1+max(r['level'] for r in json.load(sys.stdin)['items'] if r['level'] is not None))")

# One create with its long-running operation, through the same client path as the apply:
# `deploy apply` of a repository holding one notebook (a create with a definition, which the
# service answers 202 and the client follows: first poll, result) to an empty workspace,
# less the same process's start and one round trip (`workspace get`, standing for the
# apply's plan reads, which go out together). Each the median of three.
mkdir -p "$WORK/one"
cp -r "$WORK/repo/Hello World.Notebook" "$WORK/one/"
median() { python3 -c "import statistics,sys;print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
ONES=(); BASES=()
for n in 1 2 3; do
  probe=$("$FABSH" workspace create --name "Single$n" -q id | tr -d '"')
  start=$(now)
  "$FABSH" deploy apply "$WORK/one" -w "$probe" -o json > /dev/null
  end=$(now)
  ONES+=("$(python3 -c "print($end - $start)")")
  start=$(now)
  "$FABSH" workspace get "$probe" > /dev/null
  end=$(now)
  BASES+=("$(python3 -c "print($end - $start)")")
done
ONE=$(python3 -c "print(max(0.0, $(median "${ONES[@]}") - $(median "${BASES[@]}")))")
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

"$FABSH" workspace create --name Saved -q id > /dev/null
seed_shortcut_targets Saved
# Exit 8: changes pending.
"$FABSH" deploy plan --config "$WORK/deploy.yml" -w Saved --environment PROD --out "$WORK/saved.plan" -o json > /dev/null 2>&1 || true
before_saved=$(requests); start=$(now)
"$FABSH" deploy apply --config "$WORK/deploy.yml" --environment PROD --plan "$WORK/saved.plan" -o json ${APPLY_ARGS:-} > "$WORK/saved.json"
end=$(now); after_saved=$(requests)
SAVED=$(python3 -c "print(round($end - $start, 2))")
SAVED_CREATED=$(python3 -c "import json;print(json.load(open('$WORK/saved.json'))['summary']['created'])")

echo "apply: $CREATED items in ${APPLY} s, $((after - before)) requests; critical path ${LEVELS} levels x $(python3 -c "print(round($ONE, 2))") s = ${CRITICAL} s; ratio $(python3 -c "print(round($APPLY / $CRITICAL, 2))") (goal <= 1.5)"
echo "no-op plan: $((after_plan - before_plan)) requests, ${PLAN} s"
echo "apply --plan: $SAVED_CREATED items in ${SAVED} s, $((after_saved - before_saved)) requests; against apply ${APPLY} s: ratio $(python3 -c "print(round($SAVED / $APPLY, 2))") (goal <= 1.0)"
