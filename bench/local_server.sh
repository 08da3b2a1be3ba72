#!/usr/bin/env bash
# Local Fabric as a server under abuse and load (issue 13), measured from outside with the
# plain HTTP clients of bench/load.py:
#   1. 4 runaway questions (a recursive CTE that never ends) while GET /workspaces is timed:
#      target p99 <= 100 ms, and every runaway answer within the query budget + 1 s
#   2. 1,100 idle connections held open against a server limited to 1,024 descriptors while
#      GET /workspaces is timed: target p99 <= 100 ms
#   3. 32 keep-alive clients x 40 creates with 4 readers: creates/s and p99 (no worse than
#      about 1,800/s and 32 ms before the hardening), zero 5xx, nothing lost or duplicated
# Usage: bench/local_server.sh   (builds the release binary; needs python3 and timeout)
source "$(dirname "$0")/lib.sh"
LOAD="python3 $(dirname "$0")/load.py"
BUDGET=${BUDGET:-5}

# A server limited like a usual shell session (1,024 descriptors), with creates answered
# inline; the idle-connection client below raises its own limit.
ulimit -S -n 1024
serve --page-size 100 --async-ratio 0 --query-seconds "$BUDGET"
ORIGIN=${FABSH_ENDPOINT%/v1}
HOSTPORT=${ORIGIN#http://}

echo "== 1. four runaway questions (budget ${BUDGET} s; target: p99 <= 100 ms, answers <= $((BUDGET + 1)) s)"
"$FABSH" data-agent create -w Demo --name Runaway -q id >/dev/null
"$FABSH" data-agent add-datasource -w Demo --id Runaway --artifact SalesLakehouse -q id >/dev/null
"$FABSH" data-agent select-tables -w Demo --id Runaway --datasource SalesLakehouse --tables orders >/dev/null
"$FABSH" data-agent add-fewshot -w Demo --id Runaway --datasource SalesLakehouse \
    --question "How many numbers are there?" \
    --sql "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c" >/dev/null
"$FABSH" data-agent publish -w Demo --id Runaway --description runaway >/dev/null
for n in 1 2 3 4; do
    ( start=$(date +%s.%N)
      timeout 60 "$FABSH" data-agent query -w Demo --id Runaway --prompt "How many numbers are there?" \
          > "$WORK/runaway-$n.out" 2>&1
      code=$?
      end=$(date +%s.%N)
      python3 -c "print(f'runaway $n: exit $code after {$end - $start:.2f} s')" ) &
    RUNAWAYS="${RUNAWAYS:-} $!"
done
$LOAD latency "$ORIGIN" "$FABSH_TOKEN" 8
# Only these: a bare `wait` would wait for the server too.
wait $RUNAWAYS
head -c 300 "$WORK/runaway-1.out"; echo

echo "== 2. 1,100 idle connections (target: p99 <= 100 ms)"
(ulimit -S -n 4096; $LOAD idle "${HOSTPORT%:*}" "${HOSTPORT#*:}" 1100 20) &
IDLE_PID=$!
# Time for all 1,100 to connect, so the server is out of descriptors before the timing starts.
sleep 8
$LOAD latency "$ORIGIN" "$FABSH_TOKEN" 8
wait $IDLE_PID

echo "== 3. 32 clients x 40 creates, 4 readers (target: about 1,800/s and p99 32 ms or better, no 5xx, nothing lost or duplicated)"
WS=$("$FABSH" workspace create --name Load -q id | tr -d '"')
$LOAD creates "$ORIGIN" "$FABSH_TOKEN" "$WS" 32 40 4
