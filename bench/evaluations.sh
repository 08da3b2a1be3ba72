#!/usr/bin/env bash
# The evaluation store (issue 17), against local Fabric:
#   1. `data-agent evaluations list` of an agent with 52 runs, and `compare` of two 1,000-row
#      runs: target <= 50 ms each (the whole process, start to exit)
#   2. `data-agent evaluations report` of a 200-question run among 50 recorded runs:
#      target <= 300 ms and <= 2 MB of HTML
# The runs are written straight into the store (bench/seed_evaluations.py) after fabsh has
# created it, so the bench measures reading, not asking an agent 100,000 questions.
# Usage: bench/evaluations.sh   (builds the release binary; needs python3)
source "$(dirname "$0")/lib.sh"
serve
WS=$("$FABSH" workspace show -w Demo -q id | tr -d '"')
AGENT=$("$FABSH" data-agent create -w Demo --name "Bench agent" -q id | tr -d '"')
"$FABSH" data-agent evaluations list -w "$WS" --id "$AGENT" >/dev/null   # creates the store
STORE="$XDG_DATA_HOME/fabsh/evaluations.sqlite3"
read -r BASE HEAD LATEST < <(python3 bench/seed_evaluations.py "$STORE" "$WS" "$AGENT")

# Mean and worst wall time of N runs of a command, in ms.
timed() {
    python3 - "$@" <<'PY'
import subprocess, sys, time
times = []
for _ in range(20):
    start = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - start) * 1000)
print(f"mean {sum(times) / len(times):.1f} ms, worst {max(times):.1f} ms (20 runs)")
PY
}

echo "runs listed: $("$FABSH" data-agent evaluations list -w "$WS" --id "$AGENT" -q 'length(@)'), rows compared: $("$FABSH" data-agent evaluations compare "$BASE" "$HEAD" -q 'length(questions)')"
echo "== 1. list (52 runs) and compare (two 1,000-row runs); target <= 50 ms"
echo "list:    $(timed "$FABSH" data-agent evaluations list -w "$WS" --id "$AGENT")"
echo "compare: $(timed "$FABSH" data-agent evaluations compare "$BASE" "$HEAD")"

echo "== 2. report of a 200-question run among 50; target <= 300 ms and <= 2 MB"
if "$FABSH" data-agent evaluations report --help >/dev/null 2>&1; then
    echo "report:  $(timed "$FABSH" data-agent evaluations report "$LATEST" --output "$WORK/report.html")"
    echo "size:    $(wc -c < "$WORK/report.html") bytes"
else
    echo "report:  not built yet"
fi
