#!/bin/bash
# Incremental dump benchmark: a process with MIB MiB (default 1024) of memory, every page written; a full dump
# (--leave-running) for reference, then a pre-dump --track-mem, PERCENT % (default 5) of its pages written, and
# the final dump --track-mem --prev-images-dir on the pre-dump. Prints the time and image size of each, then
# restores the final dump (following the chain) and has the program check every page.
#
# With CRSHIM_BENCH_INCR_DEDUP=1 the final dump has --auto-dedup: the pre-dump's disk use after it is printed.
#
#   usage: contrib/bench-incr.sh /absolute/path/to/crshim     env: CRSHIM_BENCH_INCR_MIB, CRSHIM_BENCH_INCR_PCT
set -euo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
MIB=${CRSHIM_BENCH_INCR_MIB:-1024}
PCT=${CRSHIM_BENCH_INCR_PCT:-5}
DEDUP=()
[ "${CRSHIM_BENCH_INCR_DEDUP:-0}" = 1 ] && DEDUP=(--auto-dedup)
PROG=$(dirname "$CRSHIM")/contrib/bench-incr
BASE=$(mktemp -d /dev/shm/crshim-bench-incr.XXXXXX) # tmpfs: the disk does not count
PID=

cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	rm -rf "$BASE"
}
trap cleanup EXIT

now() { echo "${EPOCHREALTIME/,/.}"; }
size_mb() { du -sm --apparent-size "$1" | cut -f1; }
wait_file() { # file
	local i
	for ((i = 0; i < 1200; i++)); do [ -s "$1" ] && return 0; sleep 0.1; done
	echo "bench-incr: $1 did not appear" >&2
	return 1
}
step() { # label dir args...: runs crshim, prints time and size
	local label=$1 dir=$2 t0 t1
	shift 2
	mkdir -p "$dir"
	t0=$(now)
	"$CRSHIM" "$@" -D "$dir" -o log -v3 || { echo "bench-incr: $label failed:" >&2; tail -5 "$dir/log" >&2; exit 1; }
	t1=$(now)
	printf '%-40s %7.3f s %7d MB\n' "$label" "$(awk "BEGIN{print $t1 - $t0}")" "$(size_mb "$dir")"
}

mkdir -p "$BASE/run"
setsid "$PROG" "$MIB" "$PCT" "$BASE/run" </dev/null >/dev/null 2>&1 &
wait_file "$BASE/run/ready"
PID=$(cat "$BASE/run/ready")
echo "# incremental dump of a process with $MIB MiB, $PCT % of its pages written after the pre-dump (images on tmpfs)"
step "full dump (--leave-running)" "$BASE/full" dump -t "$PID" -R
rm -rf "$BASE/full"
step "pre-dump --track-mem" "$BASE/pre" pre-dump -t "$PID" --track-mem
kill -USR1 "$PID"
wait_file "$BASE/run/written"
step "dump --track-mem --prev-images-dir (final)${DEDUP:+ ${DEDUP[*]}}" "$BASE/dump" dump -t "$PID" --track-mem --prev-images-dir ../pre "${DEDUP[@]}"
grep -h "incremental:" "$BASE/dump/log" | sed "s/^.*dump-mm: /#   /" || true
if [ ${#DEDUP[@]} -gt 0 ]; then
	grep -h "dump: auto-dedup:" "$BASE/dump/log" | sed "s/^.*: auto-dedup/#   auto-dedup/" || true
	echo "#   the pre-dump after it: $(du -sm "$BASE/pre" | cut -f1) MB on disk ($(size_mb "$BASE/pre") MB apparent)"
fi
for ((i = 0; i < 100; i++)); do [ -e "/proc/$PID" ] || break; sleep 0.1; done
t0=$(now)
"$CRSHIM" restore -D "$BASE/dump" -d -o rlog -v2 || { tail -5 "$BASE/dump/rlog" >&2; exit 1; }
t1=$(now)
printf '%-40s %7.3f s\n' "restore (chain of 2)" "$(awk "BEGIN{print $t1 - $t0}")"
kill -USR2 "$PID"
wait_file "$BASE/run/result"
echo "# memory after restore: $(cat "$BASE/run/result")"
PID=
grep -q '^OK' "$BASE/run/result"
