#!/usr/bin/env bash
# The README's flows, run by one binary against a fresh local Fabric, with everything that
# differs from run to run (ids, times, tokens, ports, temporary paths) replaced by a
# placeholder: two builds that behave the same print the same file. A redesign step is
# checked with it (issue 46: behaviour unchanged):
#
#   bash bench/flows.sh BIN OUT          # BIN's transcript of the flows, into OUT
#   bash bench/flows.sh --diff OLD NEW   # both transcripts, and their differences (exit 1)
#
# Each step writes its command, its exit code, its stdout and its stderr. The steps are the
# README's tour, its data-agent block and its server block, the tour script, a deploy of
# fabric-cicd's sample repository, the reference (`docs`), and a few refusals of bad input.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

if [ "${1:-}" = "--diff" ]; then
    old=$(mktemp) new=$(mktemp)
    trap 'rm -f "$old" "$new"' EXIT
    bash "$0" "$2" "$old" && bash "$0" "$3" "$new" || exit 2
    if diff -u "$old" "$new"; then
        echo "the flows print the same ($(wc -l < "$new") lines)" >&2
        exit 0
    fi
    exit 1
fi

BIN=$(realpath "$1")
OUT=$(realpath -m "$2")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabsh-flows.XXXXXX")
trap '"$BIN" local stop --data-dir "$WORK/fabric" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/data" XDG_STATE_HOME="$WORK/state" \
    XDG_CONFIG_HOME="$WORK/config" NO_COLOR=1 COLUMNS=100
unset FABSH_ENDPOINT FABSH_TOKEN FABSH_PROFILE
mkdir -p "$HOME"
cd "$WORK"

# What changes from run to run, made the same.
normalise() {
    sed -E \
        -e "s#$WORK#WORK#g" \
        -e "s#$REPO#REPO#g" \
        -e 's/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/GUID/g' \
        -e 's/[0-9a-f]{9,}…/HEX…/g' \
        -e 's/[0-9a-fA-F]{8}…/GUID…/g' \
        -e 's/(compared with run) [0-9a-f]{8}:/\1 SHORTID:/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?/TIME/g' \
        -e 's/(127\.0\.0\.1|localhost):[0-9]+/HOST:PORT/g' \
        -e 's/eyJ[A-Za-z0-9_.-]+/TOKEN/g' \
        -e 's/(FABSH_TOKEN=|IDENTITY_HEADER=|clientSecret"?: ?"?)[A-Za-z0-9_~.-]+/\1SECRET/g' \
        -e 's/pid [0-9]+/pid PID/g' \
        -e 's/("latency[A-Za-z0-9]*Ms"): -?[0-9]+(\.[0-9]+)?/\1: N/g' \
        -e 's/ time="[0-9.]+"/ time="T"/g' \
        -e 's/[0-9a-f]{64}/HASH/g' \
        -e 's/[0-9]+(\.[0-9]+)? ?(ms|s)\b/DURATION/g'
}

# An evaluation's report page (normalised), with what else varies from run to run: the
# latency histogram, the agent's configuration fingerprint and the ids as the page shortens
# them, and the dates of the trend chart and the matrix's headers.
page() {
    perl -pe 's#<section><h2>Latency of this run</h2>.*?</section>#<section>LATENCY</section>#g;
        s/\b[0-9a-f]{7,64}\b/HEX/g;
        s#[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}#DATE#g;
        s#[0-9]{4}-[0-9]{2}-[0-9]{2}<br>[0-9]{2}:[0-9]{2}#DATE#g;
        s/[0-9]+–[0-9]+ ms/DURATION/g;
        s#(Latency p50 Δ</dt><dd>)[^<]*#$1DELTA#g'
}

# A table whose last column is a latency, made the same.
last_latency() {
    sed -E 's/ [0-9]+$/ N/'
}

# A file of evaluation rows as CSV, its latencyMs column made the same.
rows_csv() {
    python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
at = rows[0].index("latencyMs")
for row in rows[1:]:
    row[at] = "N"
csv.writer(sys.stdout, lineterminator="\n").writerows(rows)' "$1"
}

step() {
    {
        printf '\n$ %s\n' "$*"
        "$@" > "$WORK/stdout" 2> "$WORK/stderr"
        printf '[exit %s]\n' "$?"
        cat "$WORK/stdout"
        if [ -s "$WORK/stderr" ]; then
            printf -- '--- stderr\n'
            cat "$WORK/stderr"
        fi
    } | normalise >> "$OUT"
}

# A step whose stdout goes through a filter of its own (the first argument) as well.
step_through() {
    local filter=$1
    shift
    {
        printf '\n$ %s\n' "$*"
        "$@" > "$WORK/stdout" 2> "$WORK/stderr"
        printf '[exit %s]\n' "$?"
        normalise < "$WORK/stdout" | $filter
        if [ -s "$WORK/stderr" ]; then
            printf -- '--- stderr\n'
            cat "$WORK/stderr"
        fi
    } | normalise >> "$OUT"
}

: > "$OUT"
f() { "$BIN" "$@"; }

# The tour (README), on local Fabric in this process.
step f --local workspace list
step f --local item list -w Demo --type Notebook
step f --local item create -w Demo --name Scratch --type Notebook
step f --local item show Demo/Scratch -o yaml
step f --local item get-definition Demo/Scratch --dir ./scratch
step sh -c 'find ./scratch -type f | sort'
step f item validate-definition --type Notebook --dir ./scratch
step f --local item update-definition Demo/Scratch --dir ./scratch --yes
step f --local item rm Demo/Scratch --yes
step f --local --verbose workspace show Demo

# The data-agent block.
agent=(-w Demo --id "Sales agent")
step f --local data-agent create -w Demo --name "Sales agent"
step f --local data-agent add-datasource "${agent[@]}" --artifact SalesLakehouse
step f --local data-agent select-tables "${agent[@]}" --datasource SalesLakehouse --tables orders,customers
step f --local data-agent add-fewshot "${agent[@]}" --datasource SalesLakehouse \
    --question "How many orders?" --sql "SELECT COUNT(*) FROM orders"
step f --local data-agent add-fewshot "${agent[@]}" --datasource SalesLakehouse \
    --question "How many customers?" --sql "SELECT COUNT(*) FROM customers"
step f --local data-agent list-fewshots "${agent[@]}" --datasource SalesLakehouse
step f --local data-agent publish "${agent[@]}" --description "Sales questions"
step f --local data-agent query "${agent[@]}" --prompt "How many orders?"
step f --local data-agent evaluate "${agent[@]}" --questions "$REPO/scripts/questions.csv" --concurrency 1
step f --local data-agent validate-fewshots "${agent[@]}" --datasource SalesLakehouse
step f --local data-agent show "${agent[@]}" -o table
step f --local item list -w Demo -o table

# The evaluation store and what evaluate writes beside its output: a second recorded run (two
# repeats, JUnit, rows as CSV), reference queries (one that fails: exit 1), report pages, a
# regression under --fail-on-regression (exit 7), and the runs read back, compared, reported
# and deleted.
printf '%s\n' '[{"question": "How many orders?", "expected_sql": "SELECT COUNT(*) FROM orders"},' \
    ' {"question": "How many customers?", "expected": "240"},' \
    ' {"question": "How many products?", "expected_sql": "SELECT COUNT(*) FROM no_such_table"}]' > refs.json
printf '%s\n' question,expected 'How many orders?,9999' 'How many customers?,240' > wrong.csv
questions=(--questions "$REPO/scripts/questions.csv")
step f --local data-agent evaluate "${agent[@]}" "${questions[@]}" --repeats 2 \
    --junit ./run.xml --output-file ./rows.csv
step cat ./run.xml
step rows_csv ./rows.csv
step f --local data-agent evaluate "${agent[@]}" --questions ./refs.json --no-save --output-file ./rows.json
step cat ./rows.json
step f --local data-agent evaluate "${agent[@]}" --questions ./refs.json --no-save -o table
step f --local data-agent evaluate "${agent[@]}" --questions ./refs.json --no-save --show-steps --keep-thread \
    --junit ./refs.xml --output-file ./refs.html
step cat ./refs.xml
step_through page cat ./refs.html
step_through page f --local data-agent evaluate "${agent[@]}" "${questions[@]}" --no-save -o html
step_through page f --local data-agent evaluate "${agent[@]}" "${questions[@]}" --baseline latest -o html
step f --local data-agent evaluate "${agent[@]}" --questions ./wrong.csv --fail-on-regression -o table
step f --local data-agent evaluations list "${agent[@]}"
step f --local data-agent evaluations list "${agent[@]}" -o table
first=$("$BIN" --local data-agent evaluations list "${agent[@]}" -q '[-1].runId' | tr -d '"')
step f data-agent evaluations show latest
step_through last_latency f data-agent evaluations show "Demo/Sales agent" latest -o table
step f data-agent evaluations compare "$first" latest
step f data-agent evaluations compare "$first" latest -o table
step_through page f data-agent evaluations compare "$first" latest -o html
step f data-agent evaluations report latest --compare "$first" --output-file ./report.html
step_through page cat ./report.html
step_through page f data-agent evaluations report "$first" -o html
step f --local -e 'let runs = evaluate::history("Demo", "Sales agent"); print(runs.len()); print(evaluate::compare(runs[1].runId, runs[0].runId).questions)'
step f data-agent evaluations delete "$first" --yes
step f data-agent evaluations show "$first"
# A judge that does not answer: evaluate and validate-fewshots say so (exit 1); a few-shot
# that conflicts with one already there gives validate-fewshots issues to list.
judge=(--llm-endpoint http://127.0.0.1:9 --llm-model m)
step f --local data-agent evaluate "${agent[@]}" "${questions[@]}" --no-save "${judge[@]}" --junit ./judged.xml
step cat ./judged.xml
step f --local data-agent add-fewshot "${agent[@]}" --datasource SalesLakehouse \
    --question "How many orders are there?" --sql "SELECT COUNT(*) FROM customers"
step f --local data-agent validate-fewshots "${agent[@]}" --datasource SalesLakehouse -o table
step f --local data-agent validate-fewshots "${agent[@]}" --datasource SalesLakehouse --no-run "${judge[@]}"

# The server block.
# (With the retired Assistants surface kept, for `query --show-steps`.)
step f local serve --detach --data-dir "$WORK/fabric" --legacy-assistants true
eval "$("$BIN" local serve --detach --data-dir "$WORK/fabric" 2>/dev/null)"
export FABSH_ENDPOINT FABSH_TOKEN
step f item list -w Demo
step f local principal add --name ci --workspace Demo --role Contributor
step f local principal list
step f workspace create --name Sample
step f folder list -w Demo
step f job list Demo/Welcome
step f sql query -w Demo --item SalesLakehouse --sql "SELECT COUNT(*) AS n FROM orders"
step f data-agent create -w Demo --name "Steps agent"
step f data-agent add-datasource -w Demo --id "Steps agent" --artifact SalesLakehouse
step f data-agent select-tables -w Demo --id "Steps agent" --datasource SalesLakehouse --tables orders
step f data-agent add-fewshot -w Demo --id "Steps agent" --datasource SalesLakehouse \
    --question "How many orders?" --sql "SELECT COUNT(*) FROM orders"
step f data-agent publish -w Demo --id "Steps agent"
step f data-agent query -w Demo --id "Steps agent" --prompt "How many orders?" --show-steps
step f data-agent query -w Demo --id "Steps agent" --prompt "How many customers?" --show-steps -o json

# Deploy of fabric-cicd's sample repository, then a plan that finds nothing to do.
sample="$REPO/../shared/fabric-cicd/sample/workspace"
if [ -d "$sample" ]; then
    # The sample's shortcuts point into two lakehouses; OneLake refuses a shortcut whose target
    # path does not exist, so, as a real workspace would, Sample holds them with their data
    # first (the deploy pairs them by name).
    echo "shortcut target" > ./README.txt
    for target in SourceForShortcutLH/Files/sample_datasets SourceForShortcutLH/Files/images \
        SourceForShortcutLH/Tables/dbo/publicholidays/_delta_log WithoutSchema/Files/Testing; do
        lakehouse=${target%%/*}
        "$BIN" item create -w Sample --name "$lakehouse" --type Lakehouse > /dev/null 2>&1
        "$BIN" onelake cp ./README.txt "Sample/$lakehouse.Lakehouse/${target#*/}/" > /dev/null 2>&1
    done
    step f deploy plan "$sample" -w Sample --environment PROD
    step f deploy apply "$sample" -w Sample --environment PROD --yes
    step f deploy plan "$sample" -w Sample --environment PROD
    # The export's own listing follows the workspace's order (by id): its files are sorted.
    "$BIN" deploy export -w Sample ./exported > /dev/null 2>&1
    step sh -c 'find ./exported -type f | sort'
fi

# The tour script, and the reference.
unset FABSH_ENDPOINT FABSH_TOKEN
step f --local run "$REPO/scripts/tour.rhai"
step f docs

# Bad input: refused before any request, naming the flag.
step f --local item list -w Demo --limit 0
step f --local item create -w Demo --name X --type NoSuchType
step f --local job run Demo/Welcome --timeout -3
step f --local data-agent evaluate -w Demo --id "Sales agent" --questions ./missing.csv
step f --local deploy plan ./nowhere -w Demo
step f --local sql query -w Demo --item SalesLakehouse --sql "WITH x AS (SELECT 1 AS a) DELETE FROM orders"
