#!/usr/bin/env bash
# Benchmark of `data-agent evaluate` (issue 7): 200 questions at concurrency 8 against local
# Fabric with 100 ms added to every response. Targets: wall time <= 1.25 x the ideal
# (200 x 100 ms / 8 = 2.5 s, so 3.125 s) and client CPU time <= 10% of wall time.
# Needs hyperfine and python3:  apt-get install -y hyperfine
# Usage: bench/evaluate.sh            (builds the release binary first)
source "$(dirname "$0")/lib.sh"
LATENCY=100
QUESTIONS=200
CONCURRENCY=8

serve --latency-ms $LATENCY --async-ratio 0
json() { "$@" -o json | tr -d '"'; }

echo "== publishing an agent over the demo lakehouse, with four few-shot examples"
WS=$(json "$FABSH" workspace show -w Demo -q id)
AGENT=$(json "$FABSH" data-agent create -w "$WS" --name Bench -q id)
"$FABSH" data-agent add-datasource -w "$WS" --id "$AGENT" --artifact SalesLakehouse > /dev/null
"$FABSH" data-agent select-tables -w "$WS" --id "$AGENT" --datasource SalesLakehouse --tables orders,customers > /dev/null
cat > "$WORK/examples.json" <<'JSON'
[{"question": "How many orders are there?", "query": "SELECT COUNT(*) FROM dbo.orders"},
 {"question": "How many customers are there?", "query": "SELECT COUNT(*) FROM customers"},
 {"question": "How many customers live in Germany?", "query": "SELECT COUNT(*) FROM customers WHERE country = 'Germany'"},
 {"question": "Top 3 customers by name", "query": "SELECT TOP 3 name, country FROM customers ORDER BY name"}]
JSON
"$FABSH" data-agent upload-fewshots -w "$WS" --id "$AGENT" --datasource SalesLakehouse --file "$WORK/examples.json" > /dev/null
"$FABSH" data-agent publish -w "$WS" --id "$AGENT" --description "Sales questions" > /dev/null

# Each question with the answer the agent gives (asked once, before the measured runs).
python3 - "$WORK" "$QUESTIONS" "$FABSH" "$WS" "$AGENT" <<'PY'
import json, subprocess, sys
work, total, fabsh, ws, agent = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
examples = [e["question"] for e in json.load(open(f"{work}/examples.json"))]
truth = {}
for q in examples:
    out = subprocess.run([fabsh, "data-agent", "query", "-w", ws, "--id", agent, "--prompt", q, "-o", "json"],
                         check=True, capture_output=True, text=True).stdout
    truth[q] = json.loads(out)["answer"]
rows = [{"question": examples[i % len(examples)], "expected": truth[examples[i % len(examples)]]} for i in range(total)]
json.dump(rows, open(f"{work}/questions.json", "w"))
PY

IDEAL_MS=$((QUESTIONS * LATENCY / CONCURRENCY))
echo "== evaluate, $QUESTIONS questions, concurrency $CONCURRENCY, ${LATENCY} ms latency (ideal $IDEAL_MS ms, target <= $((IDEAL_MS * 5 / 4)) ms, client CPU <= 10%)"
"$FABSH" data-agent evaluate -w "$WS" --id "$AGENT" --questions "$WORK/questions.json" --concurrency $CONCURRENCY -o json \
  -q 'summary' > "$WORK/summary.json"
python3 -c "import json;s=json.load(open('$WORK/summary.json'));print(f\"runs {s['runs']}, passed {s['passed']}, errors {s['errors']}\")"
hyperfine --warmup 1 --runs 5 -N \
  "$FABSH data-agent evaluate -w $WS --id $AGENT --questions $WORK/questions.json --concurrency $CONCURRENCY -o json" \
  --export-json "$WORK/evaluate.json" > /dev/null
python3 - "$WORK/evaluate.json" "$IDEAL_MS" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
ideal = int(sys.argv[2])
cpu = r["user"] + r["system"]
print(f"median {r['median']*1000:.0f} ms = {r['median']*1000/ideal:.2f} x ideal (target 1.25); "
      f"client CPU {cpu*1000:.0f} ms = {cpu/r['mean']*100:.1f}% of wall (target 10%)")
PY
