#!/bin/bash
# crshim benchmark of process trees: dump and restore of trees of 100 and 500 sleeping processes, and of 500
# with 1 MiB of private memory each (images on tmpfs), and a check that the restored tree (restored with --restore-sibling, so the root keeps its parent) has every pid, ppid, pgid and sid equal (`ps -eo pid,ppid,pgid,sid`
# of the tree's session before and after). With CRIU=path (or a real `criu` on PATH) the same runs are done with it.
#
#   usage: contrib/bench-tree.sh /absolute/path/to/crshim     (`make bench` runs it after bench.sh, as root)
#   env:   CRSHIM_BENCH_TREES="100 500 500m" (Nm: N processes with 1 MiB each), e.g. "500 500m 2000 2000m"
#          CRIU=/path/to/criu (else a criu on PATH): the same runs with it, and crshim's time / CRIU's
# Speed never fails the run; exit status 1 means a step failed or a restored tree differs.
set -uo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIZES=${CRSHIM_BENCH_TREES:-100 500 500m}
BASE= # a directory of this run's own under /dev/shm (made below)
STATUS=0
ROOTS=()

now() { echo "${EPOCHREALTIME/,/.}"; }
ids() { ps -o pid=,ppid=,pgid=,sid= -s "$1" | sort -n; } # every process of session SID
# shellcheck disable=SC2317 # (called by the EXIT trap)
cleanup() {
	local r
	for r in "${ROOTS[@]}"; do
		ps -o pid= -s "$r" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	done
	[ -z "$BASE" ] || rm -rf "$BASE"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "bench-tree: run as root" >&2; exit 1; }
PROG=$(dirname "$CRSHIM")/contrib/bench-tree
if [ ! -x "$PROG" ]; then
	mkdir -p "$(dirname "$PROG")"
	cc -O2 -g -Wall -o "$PROG" "$HERE/bench-tree.c" || exit 1
fi
CRIU=${CRIU:-$(command -v criu || true)} # CRIU=/path/to/criu (make bench CRIU=...): side by side, with the ratio
if [ -n "$CRIU" ] && { [ "$(readlink -f "$CRIU")" = "$(readlink -f "$CRSHIM")" ] || cmp -s "$CRIU" "$CRSHIM"; }; then
	CRIU=
fi
# One run at a time (the times of two at once say nothing), each in a directory of its own.
exec 9>/dev/shm/crshim-bench-tree.lock
flock -n 9 || { echo "bench-tree: waiting for another run to end" >&2; flock 9; }
BASE=$(mktemp -d /dev/shm/crshim-bench-tree.XXXXXX) || exit 1

# run_one TOOL BIN N: prints one result line; returns 1 on a failure.
run_one() {
	local tool=$1 bin=$2 n=${3%m} dir=$BASE/$1-$3 root t0 t1 t2 i kib=0 what=
	[[ "$3" == *m ]] && kib=1024 what=", 1 MiB each"
	mkdir -p "$dir/img"
	setsid "$PROG" "$n" "$dir" "$kib" </dev/null >/dev/null 2>&1 9>&- &
	root=$!
	disown "$root"
	ROOTS+=("$root")
	for ((i = 0; i < 600; i++)); do
		[ -f "$dir/ready" ] && break
		sleep 0.05
	done
	[ -f "$dir/ready" ] || { echo "$tool $n: the tree did not start"; return 1; }
	ids "$root" >"$dir/before"
	t0=$(now)
	"$bin" dump -t "$root" -D "$dir/img" -o dump.log >"$dir/dump.out" 2>&1 ||
		{ echo "$tool $n: dump failed: $(head -n1 "$dir/dump.out")"; return 1; }
	t1=$(now)
	for ((i = 0; i < 200; i++)); do
		[ -z "$(ps -o pid= -s "$root")" ] && break
		sleep 0.05
	done
	local t1b
	t1b=$(now)
	"$bin" restore -D "$dir/img" -o restore.log -d --restore-sibling >"$dir/restore.out" 2>&1 ||
		{ echo "$tool $n: restore failed: $(head -n1 "$dir/restore.out")"; return 1; }
	t2=$(now)
	sleep 0.2
	ids "$root" >"$dir/after"
	local same="every pid/ppid/pgid/sid equal"
	if [ "$(wc -l <"$dir/before")" -ne "$n" ] || ! cmp -s "$dir/before" "$dir/after"; then
		same="TREE DIFFERS ($(wc -l <"$dir/before") -> $(wc -l <"$dir/after") processes)"
		diff "$dir/before" "$dir/after" | head -n 5 | sed 's/^/    /'
		STATUS=1
	fi
	LAST_DUMP=$(awk "BEGIN { print $t1 - $t0 }") LAST_RST=$(awk "BEGIN { print $t2 - $t1b }")
	printf '%-6s %4d processes%s: dump %.3f s, restore %.3f s; %s\n' "$tool" "$n" "$what" \
		"$LAST_DUMP" "$LAST_RST" "$same"
	ps -o pid= -s "$root" | xargs -r kill -KILL 2>/dev/null
	rm -rf "$dir"
}

echo "crshim bench: process trees, images in $BASE; ${CRIU:-no criu on PATH, crshim only}"
LAST_DUMP='' LAST_RST=''
for n in $SIZES; do
	LAST_DUMP='' LAST_RST=''
	run_one crshim "$CRSHIM" "$n" || STATUS=1
	cd=$LAST_DUMP cr=$LAST_RST
	LAST_DUMP='' LAST_RST=''
	[ -z "$CRIU" ] || run_one criu "$CRIU" "$n" || true
	if [ -n "$cd" ] && [ -n "$LAST_DUMP" ]; then
		printf 'ratio  %5s: crshim/criu dump %.2fx, restore %.2fx (1.00x or less: as fast as CRIU per process)\n' \
			"$n" "$(awk "BEGIN { print $cd / $LAST_DUMP }")" "$(awk "BEGIN { print $cr / $LAST_RST }")"
	fi
done
exit $STATUS
