#!/usr/bin/env bash
# OneLake transfers (issue 47) against local Fabric, beside a plain `cp -r` of the same data on
# the same disk:
#   - upload and download of LARGE_MIB MiB in 64 MiB files (goals: within 2x of cp, client peak
#     memory under 100 MB whatever the size), RUNS rounds (5) of cp, upload and download one
#     after the other, the median of each reported;
#   - upload and download of SMALL files of 1 KiB in folders of 500 (no goal in the issue; the
#     ratio to cp is printed all the same), and `onelake ls -r` of them;
#   - `onelake sync` of the SMALL-file tree, first (every file sent) and again unchanged, which
#     should send listing requests only.
#
# How to run (from anywhere; it builds the release binary into $CARGO_TARGET_DIR or ./target):
#   bench/onelake.sh                              # LARGE_MIB=1024 SMALL=10000
#   LARGE_MIB=256 SMALL=1000 RUNS=3 bench/onelake.sh     # quicker
#   FABSH_BENCH_BIN=target/debug/fabsh bench/onelake.sh   # an already built binary (say so)
# Disk: about 4x LARGE_MIB plus 3x SMALL files (source, cp's copy, local Fabric's copy, the
# download), in a temporary folder under ${TMPDIR:-/tmp} that is removed on exit; check
# `df -h "${TMPDIR:-/tmp}"` first. Data is written just before it is copied, so both fabsh
# and cp mostly read from the page cache: the figures compare the two, not the disk.
#
# What each column is:
#   s        wall seconds of the command (cp's on the same data beside it; ratio = fabsh / cp)
#   client   the fabsh process's peak resident set (GNU time's %M), MiB
#   server   local Fabric's peak resident set during that command (VmHWM of `fabsh local
#            serve`, reset before each command through /proc/PID/clear_refs; when the kernel
#            refuses the reset, the peak since the server started), MiB
#   cpu c/s  CPU seconds (user + system) of the fabsh process / of local Fabric during it
#   requests the requests local Fabric logged during the command (the Fabric API's lookups of
#            the workspace and item included), and per file
source "$(dirname "$0")/lib.sh"
LARGE_MIB="${LARGE_MIB:-1024}"
SMALL="${SMALL:-10000}"
serve
ORIGIN="${FABSH_ENDPOINT%/v1}"
now() { python3 -c 'import time;print(time.time())'; }

# How many requests local Fabric has logged (all callers; the bench is its only client).
requests() {
  curl -sf -H "Authorization: Bearer $FABSH_TOKEN" "$ORIGIN/_local/requests" \
    | python3 -c 'import json,sys;print(json.load(sys.stdin)["count"])'
}
# The methods and `comp`s of the last N requests (at most the 2000 the log keeps), counted:
# "GET 4  PUT 1000 ..." (what a command sent, beyond how many).
request_mix() {
  curl -sf -H "Authorization: Bearer $FABSH_TOKEN" "$ORIGIN/_local/requests" | python3 -c '
import collections, json, sys, urllib.parse
n = int(sys.argv[1])
tail = json.load(sys.stdin)["requests"][-n:] if n > 0 else []
kinds = collections.Counter()
for r in tail:
    comp = urllib.parse.parse_qs(r.get("query") or "").get("comp", [""])[0]
    kinds[r["method"] + ("?comp=" + comp if comp else "")] += 1
print("  ".join(f"{k} {v}" for k, v in sorted(kinds.items())))' "$1"
}
# Resets the server's peak RSS (Linux: writing 5 to clear_refs); false when refused.
reset_server_peak() { echo 5 > "/proc/$SERVER_PID/clear_refs" 2>/dev/null; }
server_peak_mib() { awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$SERVER_PID/status"; }
# The server's user + system CPU time so far, in clock ticks (fields 14 and 15 of its stat; its
# name has no spaces).
server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
TICKS=$(getconf CLK_TCK)

# Runs a command; prints "SECONDS CLIENT_MIB SERVER_MIB REQUESTS CLIENT_CPU SERVER_CPU" (CPU
# in seconds, user + system).
measure() {
  local start end before after ticks rss user system
  reset_server_peak || true
  # What earlier steps left to write back to disk is written now, not during this command:
  # the kernel's writeback of a previous gigabyte otherwise lands on whichever runs next.
  sync
  before=$(requests)
  ticks=$(server_ticks)
  start=$(now)
  # A failure prints nothing here, so the caller's `read` fails and the script stops.
  if ! /usr/bin/time -f '%M %U %S' -o "$WORK/rss" "$@" > /dev/null 2> "$WORK/stderr"; then
    echo "failed: $*" >&2
    cat "$WORK/stderr" >&2
    return 1
  fi
  end=$(now)
  after=$(requests)
  ticks=$(( $(server_ticks) - ticks ))
  read -r rss user system < "$WORK/rss"
  # `/_local/*` calls are not logged, so `requests` counts none of its own.
  python3 -c "print(round($end - $start, 2), round($rss / 1024), $(server_peak_mib), \
    $((after - before)), round($user + $system, 2), round($ticks / $TICKS, 2))"
}

LARGE="$WORK/large"; mkdir -p "$LARGE"
for n in $(seq 1 $((LARGE_MIB / 64))); do
  head -c $((64 * 1024 * 1024)) /dev/urandom > "$LARGE/part-$n.bin"
done
LARGE_FILES=$((LARGE_MIB / 64))
SMALLDIR="$WORK/small"; mkdir -p "$SMALLDIR"
python3 - "$SMALLDIR" "$SMALL" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = os.path.join(root, f"d{i // 500}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"f{i}.txt"), "wb") as f:
        f.write(os.urandom(1024))
PY
sync
reset_server_peak && PEAK_NOTE="during each command" || PEAK_NOTE="since the server started"
echo "fabsh: $FABSH; local Fabric at $ORIGIN (pid $SERVER_PID)"

LAKE="Demo/SalesLakehouse/Files"
ROWS="$WORK/rows"; : > "$ROWS"
# row WHAT FILES CP_SECONDS GOAL_RATIO GOAL_MIB SECONDS CLIENT SERVER REQUESTS CLIENT_CPU
# SERVER_CPU; "-" for none.
row() { echo "$*" >> "$ROWS"; }

# The large transfers run RUNS times, each round a cp, an upload and a download one after
# the other, each to a new destination removed after it, and the median of each is reported.
# Interleaved so the three meet the same conditions: on this kind of virtual machine a run of
# a second or so moves by half (cp from 0.35 to 2.3 s) with what the host does to the guest's
# memory, and runs of one kind all taken together met different weather than the other's.
RUNS="${RUNS:-5}"
median() { sort -n -k1,1 "$1" | sed -n "$(( ($(wc -l < "$1") + 1) / 2 ))p"; }
: > "$WORK/cp-runs"; : > "$WORK/up-runs"; : > "$WORK/down-runs"
for i in $(seq 1 "$RUNS"); do
  measure cp -r "$LARGE" "$WORK/large-copy" >> "$WORK/cp-runs"
  rm -rf "$WORK/large-copy"
  up_from=$(requests)
  measure "$FABSH" onelake cp "$LARGE" "$LAKE/large-$i" -r >> "$WORK/up-runs"
  up_mix=$(request_mix "$(( $(requests) - up_from ))")
  down_from=$(requests)
  measure "$FABSH" onelake cp "$LAKE/large-$i" "$WORK/large-back" -r >> "$WORK/down-runs"
  down_mix=$(request_mix "$(( $(requests) - down_from ))")
  if [ "$i" = 1 ]; then
    diff -rq "$LARGE" "$WORK/large-back" > /dev/null && echo "  (every large file came back byte for byte)" \
      || echo "  LARGE FILES CAME BACK DIFFERENT"
  fi
  rm -rf "$WORK/large-back"
  "$FABSH" onelake rm "$LAKE/large-$i" -r --yes > /dev/null
done
echo "upload large:   $up_mix"
echo "download large: $down_mix"
read -r cp_large _ < <(median "$WORK/cp-runs")
read -r s client server req ccpu scpu < <(median "$WORK/up-runs")
row "upload-${LARGE_MIB}MiB-in-64MiB-files" "$LARGE_FILES" "$cp_large" 2 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"
read -r s client server req ccpu scpu < <(median "$WORK/down-runs")
row "download-${LARGE_MIB}MiB-in-64MiB-files" "$LARGE_FILES" "$cp_large" 2 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"
echo "large runs (s): cp $(cut -d' ' -f1 "$WORK/cp-runs" | tr '\n' ' ')| upload $(cut -d' ' -f1 "$WORK/up-runs" | tr '\n' ' ')| download $(cut -d' ' -f1 "$WORK/down-runs" | tr '\n' ' ')"

read -r cp_small _ < <(measure cp -r "$SMALLDIR" "$WORK/small-copy")
read -r s client server req ccpu scpu < <(measure "$FABSH" onelake cp "$SMALLDIR" "$LAKE/small" -r)
row "upload-$SMALL-files-of-1KiB" "$SMALL" "$cp_small" - 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"
echo "upload small:   $(request_mix "$req") (last 2000)"
read -r s client server req ccpu scpu < <(measure "$FABSH" onelake cp "$LAKE/small" "$WORK/small-back" -r)
row "download-$SMALL-files-of-1KiB" "$SMALL" "$cp_small" - 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"
echo "download small: $(request_mix "$req") (last 2000)"
diff -rq "$SMALLDIR" "$WORK/small-back" > /dev/null && echo "  (every small file came back byte for byte)" \
  || echo "  SMALL FILES CAME BACK DIFFERENT"
read -r s client server req ccpu scpu < <(measure "$FABSH" onelake ls "$LAKE/small" -r)
row "ls-r-of-$SMALL-files" "$SMALL" - - 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"

# `onelake sync`: a first sync sends every file (with its SHA-256 in the blob's metadata); a
# second, of the unchanged tree, should send listing requests only.
read -r s client server req ccpu scpu < <(measure "$FABSH" onelake sync "$SMALLDIR" "$LAKE/synced")
row "sync-first-$SMALL-files" "$SMALL" "$cp_small" - 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"
echo "sync first:     $(request_mix "$req") (last 2000)"
read -r s client server req ccpu scpu < <(measure "$FABSH" onelake sync "$SMALLDIR" "$LAKE/synced")
row "sync-unchanged-$SMALL-files" "$SMALL" - - 100 "$s" "$client" "$server" "$req" "$ccpu" "$scpu"
echo "sync unchanged: $(request_mix "$req") (goal: listings only)"

echo
echo "Summary (server peak RSS $PEAK_NOTE):"
python3 - "$ROWS" <<'PY'
import sys
print(f"{'':34} {'files':>6} {'fabsh s':>8} {'cp s':>6} {'ratio':>6} {'client':>7} {'server':>7} {'requests':>8} {'req/file':>8} {'cpu c/s':>11}  goals")
for line in open(sys.argv[1]):
    what, files, cp, goal_ratio, goal_mib, s, client, server, req, ccpu, scpu = line.split()
    files, s, client, server, req = int(files), float(s), int(client), int(server), int(req)
    ratio = s / float(cp) if cp != "-" and float(cp) > 0 else None
    goals = []
    if goal_ratio != "-":
        goals.append(f"<= {goal_ratio}x cp: " + ("met" if ratio is not None and ratio <= float(goal_ratio) else "MISSED"))
    if goal_mib != "-":
        goals.append(f"client < {goal_mib} MB: " + ("met" if client * 1.048576 < float(goal_mib) else "MISSED"))
    print(f"{what.replace('-', ' '):34} {files:>6} {s:>8.2f} {cp:>6} "
          f"{('%.1fx' % ratio) if ratio is not None else '-':>6} {client:>5}Mi {server:>5}Mi "
          f"{req:>8} {req / files:>8.2f} {ccpu + '/' + scpu:>11}  {'; '.join(goals)}")
PY
