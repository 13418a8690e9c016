#!/bin/bash
# crshim benchmark of process trees: dump and restore of trees of 100 and 500 sleeping processes, and of 500
# with 1 MiB of private memory each (images on tmpfs), and a check that the restored tree (restored with --restore-sibling, so the root keeps its parent) has every pid, ppid, pgid and sid equal (`ps -eo pid,ppid,pgid,sid`
# of the tree's session before and after). With CRIU=path (or a real `criu` on PATH) the same runs are done with it.
#
#   usage: contrib/bench-tree.sh /absolute/path/to/crshim     (`make bench` runs it after bench.sh, as root)
#   env:   CRSHIM_BENCH_TREES="100 500 500m" (Nm: N processes with 1 MiB each; Nf: each opened /dev/null
#          itself as fds 0-2, N descriptions of one inode), e.g. "500 500m 500f 2000 2000m"
#          CRIU=/path/to/criu (else a criu on PATH): the same runs with it, and crshim's time / CRIU's
#          CRSHIM_BENCH_ROUNDS=3: timed rounds over the sizes (each round runs crshim, then CRIU, per size)
#          CRSHIM_BENCH_WARMUP=1: untimed rounds first (crshim only, each size), 0 for none
# On this VM memory the guest left free for a while goes back to the host (virtio_balloon free page
# reporting), and the first run to touch it again pays for that: the first 2000m round right after the small
# trees took ~1.75x as long. So an untimed warm-up round runs first, and after the timed rounds a
# summary gives, per tool and size, the best (minimum) and the median of them, wall and CPU, and
# the ratios of both.
# Each tree runs in a cpuacct cgroup of its own (cgroup v1 cpuacct, else v2 cpu.stat), which crshim or CRIU
# join for its dump and restore: besides the wall time, the CPU seconds (user+sys) of the dump (the tool and
# the tree's tasks, e.g. their parasite and their exit) and of the restore (the tool and the restored tasks)
# are printed; on a loaded machine they compare better than the wall times.
# Speed never fails the run; exit status 1 means a step failed or a restored tree differs.
set -uo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIZES=${CRSHIM_BENCH_TREES:-100 500 500m}
ROUNDS=${CRSHIM_BENCH_ROUNDS:-3}
WARMUP=${CRSHIM_BENCH_WARMUP:-1}
BASE= # a directory of this run's own under /dev/shm (made below)
STATUS=0
ROOTS=()

now() { echo "${EPOCHREALTIME/,/.}"; }
ids() { ps -o pid=,ppid=,pgid=,sid= -s "$1" | sort -n; } # every process of session SID
tree_gone() { # root: kill every process of its session, drop the run's cgroup (a tree a failed dump
	# left running is not left there until the end: 2000 processes each, and their cgroup)
	ps -o pid= -s "$1" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	cg_drop
}
# shellcheck disable=SC2317 # (called by the EXIT trap)
cleanup() {
	local r
	for r in "${ROOTS[@]}"; do
		ps -o pid= -s "$r" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	done
	[ -z "$BASE" ] || rm -rf "$BASE"
	cg_drop
}
trap cleanup EXIT

ME=bench-tree
# shellcheck source=contrib/bench-cg.sh
. "$HERE/bench-cg.sh" # cg_new, cg_drop, cg_ns, in_cg: the CPU seconds; loadavg; bench_lock

[ "$(id -u)" = 0 ] || { echo "bench-tree: run as root" >&2; exit 1; }
PROG=$(dirname "$CRSHIM")/contrib/bench-tree
if [ ! -x "$PROG" ]; then
	mkdir -p "$(dirname "$PROG")"
	cc -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -o "$PROG" "$HERE/bench-tree.c" || exit 1
fi
CRIU=${CRIU:-$(command -v criu || true)} # CRIU=/path/to/criu (make bench CRIU=...): side by side, with the ratio
if [ -n "$CRIU" ] && { [ "$(readlink -f "$CRIU")" = "$(readlink -f "$CRSHIM")" ] || cmp -s "$CRIU" "$CRSHIM"; }; then
	CRIU=
fi
# One bench at a time (the times of two at once say nothing), each in a directory of its own.
bench_lock
BASE=$(mktemp -d /dev/shm/crshim-bench-tree.XXXXXX) || exit 1

# run_one TOOL BIN N: prints one result line; returns 1 on a failure.
run_one() {
	local tool=$1 bin=$2 n=${3%[mf]} dir=$BASE/$1-$3 root t0 t1 t2 i kib=0 what='' files=''
	[[ "$3" == *m ]] && kib=1024 what=", 1 MiB each"
	[[ "$3" == *f ]] && files=f what=", each its own /dev/null"
	mkdir -p "$dir/img"
	cg_new
	( # (in a subshell of its own, not in_cg's: the root's PID is $!)
		[ -z "$CG" ] || echo "$BASHPID" >"$CG/cgroup.procs"
		exec setsid "$PROG" "$n" "$dir" "$kib" ${files:+"$files"} </dev/null >/dev/null 2>&1 8>&-
	) &
	root=$!
	disown "$root"
	ROOTS+=("$root")
	for ((i = 0; i < 600; i++)); do
		[ -f "$dir/ready" ] && break
		sleep 0.05
	done
	[ -f "$dir/ready" ] || { echo "$tool $n: the tree did not start"; tree_gone "$root"; return 1; }
	ids "$root" >"$dir/before"
	local c0 c1 c2
	LAST_LOAD=$(loadavg)
	c0=$(cg_ns)
	t0=$(now)
	# (--timeout: CRIU's seize of the tree must end within 10 s by default, which 2000 processes at load 35
	# do not: "Timeout reached"; crshim takes the option and has no such limit)
	in_cg "$bin" dump -t "$root" -D "$dir/img" -o dump.log --timeout 600 >"$dir/dump.out" 2>&1 ||
		{ echo "$tool $n: dump failed: $(last_error "$dir/dump.out" "$dir/img/dump.log")"; tree_gone "$root"; return 1; }
	t1=$(now)
	for ((i = 0; i < 200; i++)); do
		[ -z "$(ps -o pid= -s "$root")" ] && break
		sleep 0.05
	done
	local t1b
	c1=$(cg_ns)
	t1b=$(now)
	in_cg "$bin" restore -D "$dir/img" -o restore.log -d --restore-sibling >"$dir/restore.out" 2>&1 ||
		{ echo "$tool $n: restore failed: $(last_error "$dir/restore.out" "$dir/img/restore.log")"; tree_gone "$root"; return 1; }
	t2=$(now)
	c2=$(cg_ns)
	sleep 0.2
	ids "$root" >"$dir/after"
	local same="every pid/ppid/pgid/sid equal"
	if [ "$(wc -l <"$dir/before")" -ne "$n" ] || ! cmp -s "$dir/before" "$dir/after"; then
		same="TREE DIFFERS ($(wc -l <"$dir/before") -> $(wc -l <"$dir/after") processes)"
		diff "$dir/before" "$dir/after" | head -n 5 | sed 's/^/    /'
		STATUS=1
	fi
	LAST_DUMP=$(awk "BEGIN { print $t1 - $t0 }") LAST_RST=$(awk "BEGIN { print $t2 - $t1b }")
	LAST_CDUMP=$(awk "BEGIN { print ($c1 - $c0) / 1e9 }") LAST_CRST=$(awk "BEGIN { print ($c2 - $c1) / 1e9 }")
	printf '%-6s %4d processes%s: dump %.3f s (CPU %.3f s), restore %.3f s (CPU %.3f s), load %s; %s\n' "$tool" \
		"$n" "$what" "$LAST_DUMP" "$LAST_CDUMP" "$LAST_RST" "$LAST_CRST" "$LAST_LOAD" "$same"
	tree_gone "$root"
	rm -rf "$dir"
}

LAST_DUMP='' LAST_RST='' LAST_CDUMP='' LAST_CRST='' LAST_LOAD=''
echo "crshim bench: process trees, images in $BASE; ${CRIU:-no criu on PATH, crshim only}"
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $(cg_note)"
ratio() { awk "BEGIN { if ($2 > 0) printf \"%.2fx\", $1 / $2; else print \"-\" }"; }
declare -A RES # RES[tool,size,what]: the timed rounds' values (what: dump, rst, cdump, crst), space-separated
keep() {       # tool size: the last run's values into RES
	RES[$1,$2,dump]+=" $LAST_DUMP" RES[$1,$2,rst]+=" $LAST_RST"
	RES[$1,$2,cdump]+=" $LAST_CDUMP" RES[$1,$2,crst]+=" $LAST_CRST" RES[$1,$2,load]+=" $LAST_LOAD"
}
for ((round = 1; round <= WARMUP; round++)); do
	echo "warm-up round $round (untimed, crshim only: memory the VM gave back to the host is touched again)"
	for n in $SIZES; do
		run_one crshim "$CRSHIM" "$n" >"$BASE/warm-up.out" || STATUS=1 # (not in a subshell: ROOTS, CG)
		sed 's/^/warm-up /' "$BASE/warm-up.out"
	done
done
for ((round = 1; round <= ROUNDS; round++)); do
	[ "$ROUNDS" = 1 ] || echo "round $round"
	for n in $SIZES; do
		LAST_DUMP='' LAST_RST=''
		run_one crshim "$CRSHIM" "$n" && keep crshim "$n" || STATUS=1
		cd=$LAST_DUMP cr=$LAST_RST ccd=$LAST_CDUMP ccr=$LAST_CRST
		LAST_DUMP='' LAST_RST=''
		[ -z "$CRIU" ] || { run_one criu "$CRIU" "$n" && keep criu "$n"; } || true
		if [ -n "$cd" ] && [ -n "$LAST_DUMP" ]; then
			printf 'ratio  %5s: crshim/criu dump %s (CPU %s), restore %s (CPU %s) (1.00x or less: as fast as CRIU per process)\n' \
				"$n" "$(ratio "$cd" "$LAST_DUMP")" "$(ratio "$ccd" "$LAST_CDUMP")" \
				"$(ratio "$cr" "$LAST_RST")" "$(ratio "$ccr" "$LAST_CRST")"
		fi
	done
done
# The summary: best (minimum) and median of the timed rounds, wall and CPU seconds, per tool and size.
echo "summary of $ROUNDS timed round(s): best / median in seconds (CPU best / median)"
TOOLS=crshim
[ -z "$CRIU" ] || TOOLS="crshim criu"
declare -A SUM # SUM[tool,i]: dump best, median, CPU best, median, restore best, median, CPU best, median
sumr() {       # i: crshim's SUM value i over CRIU's
	local a=${SUM[crshim,$1]} b=${SUM[criu,$1]}
	if [ "$a" = - ] || [ "$b" = - ]; then echo -; else ratio "$a" "$b"; fi
}
for n in $SIZES; do
	for tool in $TOOLS; do
		if [ -z "${RES[$tool,$n,dump]:-}" ]; then
			printf '%-6s %5s: no timed run succeeded\n' "$tool" "$n"
			SUM[$tool,0]=- SUM[$tool,1]=- SUM[$tool,2]=- SUM[$tool,3]=-
			SUM[$tool,4]=- SUM[$tool,5]=- SUM[$tool,6]=- SUM[$tool,7]=-
			continue
		fi
		i=0
		for what in dump cdump rst crst; do
			read -r lo med <<<"$(minmed "${RES[$tool,$n,$what]:-}")"
			SUM[$tool,$i]=$lo SUM[$tool,$((i + 1))]=$med
			i=$((i + 2))
		done
		printf '%-6s %5s: dump %s / %s s (CPU %s / %s), restore %s / %s s (CPU %s / %s), load %s\n' "$tool" "$n" \
			"${SUM[$tool,0]}" "${SUM[$tool,1]}" "${SUM[$tool,2]}" "${SUM[$tool,3]}" \
			"${SUM[$tool,4]}" "${SUM[$tool,5]}" "${SUM[$tool,6]}" "${SUM[$tool,7]}" "$(minmax "${RES[$tool,$n,load]}")"
	done
	[ -z "$CRIU" ] || printf 'ratio  %5s: crshim/criu best / median: dump %s / %s (CPU %s / %s), restore %s / %s (CPU %s / %s)\n' \
		"$n" "$(sumr 0)" "$(sumr 1)" "$(sumr 2)" "$(sumr 3)" "$(sumr 4)" "$(sumr 5)" "$(sumr 6)" "$(sumr 7)"
done
exit $STATUS
