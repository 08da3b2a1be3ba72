#!/usr/bin/env bash
# OneLake transfers (issue 47) against local Fabric, beside a plain `cp` of the same data on
# the same disk: upload and download of LARGE_MIB MiB in 64 MiB files (goal: within 2x of cp,
# peak memory under 100 MB), of SMALL small files (1 KiB each), and `onelake ls -r` of them.
# Peak memory is GNU time's maximum resident set size.
#   Usage: bench/onelake.sh   (LARGE_MIB=1024 SMALL=10000 by default; builds the release binary)
source "$(dirname "$0")/lib.sh"
LARGE_MIB="${LARGE_MIB:-1024}"
SMALL="${SMALL:-10000}"
serve
now() { python3 -c 'import time;print(time.time())'; }
# Runs a command; prints its wall seconds and peak MiB as "SECONDS MIB".
measure() {
  local start end
  start=$(now)
  /usr/bin/time -f '%M' -o "$WORK/rss" "$@" > /dev/null
  end=$(now)
  python3 -c "print(round($end - $start, 2), round($(cat "$WORK/rss") / 1024))"
}

LARGE="$WORK/large"; mkdir -p "$LARGE"
for n in $(seq 1 $((LARGE_MIB / 64))); do
  head -c $((64 * 1024 * 1024)) /dev/urandom > "$LARGE/part-$n.bin"
done
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

LAKE="Demo/SalesLakehouse/Files"
report() { # what, cp line, fabsh line
  echo "$1: fabsh $3 s, ${4} MiB peak; cp $2 s"
}
read -r cp_up _ < <(measure cp -r "$LARGE" "$WORK/large-copy")
read -r up up_mib < <(measure "$FABSH" onelake cp "$LARGE" "$LAKE/large" -r)
report "upload ${LARGE_MIB} MiB in 64 MiB files (goal <= 2x cp, < 100 MiB)" "$cp_up" "$up" "$up_mib"
read -r down down_mib < <(measure "$FABSH" onelake cp "$LAKE/large" "$WORK/large-back" -r)
report "download ${LARGE_MIB} MiB in 64 MiB files (goal <= 2x cp, < 100 MiB)" "$cp_up" "$down" "$down_mib"
cmp -s "$LARGE/part-1.bin" "$WORK/large-back/part-1.bin" && echo "  (part-1.bin came back byte for byte)"

read -r cp_small _ < <(measure cp -r "$SMALLDIR" "$WORK/small-copy")
read -r up up_mib < <(measure "$FABSH" onelake cp "$SMALLDIR" "$LAKE/small" -r)
report "upload $SMALL files of 1 KiB" "$cp_small" "$up" "$up_mib"
read -r down down_mib < <(measure "$FABSH" onelake cp "$LAKE/small" "$WORK/small-back" -r)
report "download $SMALL files of 1 KiB" "$cp_small" "$down" "$down_mib"
read -r ls_s ls_mib < <(measure "$FABSH" onelake ls "$LAKE/small" -r)
echo "ls -r of $SMALL files: $ls_s s, $ls_mib MiB peak"
