#!/bin/bash
# crshim benchmark: dump and restore of a process holding 64 MiB and 1 GiB of random data, images on tmpfs.
#
#   usage: contrib/bench.sh /absolute/path/to/crshim      (`make bench` builds everything and runs this as root)
#   env:   CRSHIM_BENCH_SIZES="64 1024"   sizes in MiB
#          CRSHIM_BENCH_ROUNDS=2          runs of each tool per size, in turned order; the best time is printed,
#                                         and the median of the rounds below the table
#          CRSHIM_BENCH_WARMUP=1          untimed runs of crshim per size first (0: none): on this VM memory
#                                         the guest left free for a while goes back to the host (virtio_balloon
#                                         free page reporting), and the first run to touch it again pays for it
#
# For each size: start contrib/bench-mem (fills its memory, keeps a checksum), dump it, restore it, tell it to check
# its memory. Prints seconds and GB/s (10^9 bytes of data per second) for dump and restore, the image size and whether
# the data came back intact. If a real CRIU is given as CRIU=path (else `criu` on PATH) the same runs are done with it
# and the ratio is printed.
# Speed never fails the run; exit status 1 means a crshim step failed or the data did not verify.
set -euo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIZES=${CRSHIM_BENCH_SIZES:-64 1024}
ROUNDS=${CRSHIM_BENCH_ROUNDS:-2}
WARMUP=${CRSHIM_BENCH_WARMUP:-1}
BASE=/tmp/crshim-bench
KEEP=/tmp/crshim-bench-logs # logs of failed runs are copied here (the tmpfs goes away)
TIMEOUT=120     # seconds to wait for the program to fill or to verify its memory
STEP_TIMEOUT=300 # seconds after which a dump or restore counts as hung

MOUNTED=0
PIDS=()
STATUS=0
declare -A RES # RES[tool,size,field]

say() { printf '%s\n' "$*"; }
now() { echo "${EPOCHREALTIME/,/.}"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

bench_alive() { # pid: running (not a zombie) and still bench-mem
	local st
	[ -n "$1" ] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
	tr "\0" " " 2>/dev/null <"/proc/$1/cmdline" | grep -q bench-mem
}
# shellcheck disable=SC2317 # (called by the EXIT trap)
cleanup() {
	local rc=$? p
	for p in "${PIDS[@]}"; do
		if bench_alive "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
	done
	wait 2>/dev/null || true
	if [ "$MOUNTED" = 1 ]; then
		umount "$BASE" 2>/dev/null || umount -l "$BASE" 2>/dev/null || true
		rmdir "$BASE" 2>/dev/null || true
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	say "bench: $*" >&2
	exit 1
}

# ---------------------------------------------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run as root"
[ -x "$CRSHIM" ] || die "no crshim binary at $CRSHIM (run 'make' first)"
PROG=$(dirname "$CRSHIM")/contrib/bench-mem
if [ ! -x "$PROG" ]; then
	mkdir -p "$(dirname "$PROG")"
	cc -O2 -g -Wall -o "$PROG" "$HERE/bench-mem.c" || die "cannot build bench-mem"
fi

# The images go to a tmpfs of our own, big enough for the largest size plus the logs.
max=0
for s in $SIZES; do [ "$s" -gt "$max" ] && max=$s; done
if mountpoint -q "$BASE" 2>/dev/null; then umount "$BASE" || umount -l "$BASE"; fi
mkdir -p "$BASE"
if mount -t tmpfs -o "size=$((max + 256))m,mode=0700" crshim-bench "$BASE" 2>/dev/null; then
	MOUNTED=1
else
	rmdir "$BASE" 2>/dev/null || true
	BASE=/dev/shm/crshim-bench
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || die "cannot mount a tmpfs and /dev/shm is not one"
	rm -rf "$BASE"
	mkdir -m 0700 "$BASE"
fi

CRIU=${CRIU:-$(command -v criu || true)}
CRIU_NOTE=
if [ -z "$CRIU" ]; then
	CRIU_NOTE="criu: absent (no criu on PATH), crshim only"
elif [ "$(readlink -f "$CRIU")" = "$(readlink -f "$CRSHIM")" ] || cmp -s "$CRIU" "$CRSHIM"; then
	CRIU_NOTE="criu: $CRIU is crshim itself, not CRIU; crshim only"
	CRIU=
else
	CRIU_NOTE="criu: $CRIU ($("$CRIU" --version 2>&1 | head -n 1 | tr -s ' '))"
fi

say "crshim bench: dump + restore of a process's random data, images on tmpfs ($BASE)"
say "crshim: $CRSHIM ($("$CRSHIM" --version 2>&1 | head -n 1))"
say "$CRIU_NOTE"
say "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
say ""

# run_one TOOL BIN MIB: one dump + restore + verify; fills RES[TOOL,MIB,*]; returns 1 if a step failed.
run_one() {
	local tool=$1 bin=$2 mib=$3 dir img pid rpid t0 t1 t2 t3 result i avail
	dir=$BASE/$tool-$mib
	img=$dir/images
	RES[$tool,$mib,data]=-
	rm -rf "$dir"
	mkdir -p "$img"

	avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
	if [ "$avail" -lt $((2 * mib + 256)) ]; then
		RES[$tool,$mib,data]="not run: ${avail} MiB of memory available, need $((2 * mib + 256))"
		return 1
	fi

	setsid "$PROG" "$mib" "$dir" </dev/null >/dev/null 2>&1 &
	pid=$!
	disown "$pid" # our child, reaped by the shell, but no "Killed" notice when the dump kills it
	PIDS+=("$pid")
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		[ -f "$dir/ready" ] && break
		bench_alive "$pid" || break
		sleep 0.05
	done
	[ -f "$dir/ready" ] || { RES[$tool,$mib,data]="bench-mem did not get ready"; return 1; }

	t0=$(now)
	if ! timeout "$STEP_TIMEOUT" "$bin" dump -t "$pid" -D "$img" -o dump.log >"$dir/dump.out" 2>&1; then
		RES[$tool,$mib,data]="dump failed: $(tail -n 1 "$dir/dump.out") (log $(keep_logs "$dir")/dump.log)"
		return 1
	fi
	t1=$(now)
	for ((i = 0; i < 100; i++)); do bench_alive "$pid" || break; sleep 0.05; done
	if bench_alive "$pid"; then RES[$tool,$mib,data]="still running after the dump"; return 1; fi
	for ((i = 0; i < 100; i++)); do [ -e "/proc/$pid" ] || break; sleep 0.05; done
	RES[$tool,$mib,image]=$(du -sb --exclude='*.log' "$img" | cut -f1)
	RES[$tool,$mib,dump]=$(calc %.3f "$t1 - $t0")

	t2=$(now)
	if ! timeout "$STEP_TIMEOUT" "$bin" restore -D "$img" -d --pidfile "$dir/restored.pid" -o restore.log >"$dir/restore.out" 2>&1; then
		RES[$tool,$mib,data]="restore failed: $(tail -n 1 "$dir/restore.out") (log $(keep_logs "$dir")/restore.log)"
		return 1
	fi
	t3=$(now)
	rpid=$(tr -d ' \n' <"$dir/restored.pid" 2>/dev/null || true)
	PIDS+=("$rpid")
	RES[$tool,$mib,restore]=$(calc %.3f "$t3 - $t2")
	if [ "$rpid" != "$pid" ] || ! bench_alive "$rpid"; then
		RES[$tool,$mib,data]="restored pid '${rpid}' is not running bench-mem $pid"
		return 1
	fi

	kill -USR1 "$rpid"
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		[ -f "$dir/result" ] && break
		bench_alive "$rpid" || break
		sleep 0.05
	done
	sleep 0.05
	result=$(cat "$dir/result" 2>/dev/null || echo "BAD: no result (the restored program died?)")
	RES[$tool,$mib,data]=$result
	[[ "$result" == OK* ]] || keep_logs "$dir" >/dev/null
	rm -rf "$img" # give the tmpfs memory back before the next size
	[[ "$result" == OK* ]]
}

keep_logs() { # DIR: copy the logs of a failed run out of the tmpfs; prints where
	local to
	to=$KEEP/$(basename "$1")
	rm -rf "$to"
	mkdir -p "$to"
	cp "$1"/*.out "$1"/images/*.log "$to"/ 2>/dev/null || true
	echo "$to"
}

row() { printf '%-7s %8s %9s %10s %10s %12s %12s  %s\n' "$@"; }
report() { # TOOL MIB
	local tool=$1 mib=$2 bytes=$(($2 << 20)) d r img
	d=${RES[$tool,$mib,dump]:-} r=${RES[$tool,$mib,restore]:-} img=${RES[$tool,$mib,image]:-}
	row "$tool" "$mib MiB" "${d:--}" "$([ -n "$d" ] && calc %.2f "$bytes / $d / 1e9" || echo -)" \
		"${r:--}" "$([ -n "$r" ] && calc %.2f "$bytes / $r / 1e9" || echo -)" \
		"$([ -n "$img" ] && calc '%.1f MiB' "$img / 1048576" || echo -)" "${RES[$tool,$mib,data]:--}"
}

TOOLS=(crshim)
[ -n "$CRIU" ] && TOOLS+=(criu)
row tool size "dump s" "dump GB/s" "restore s" "restore GB/s" image data
# Each size ROUNDS times, the tools' order turned round each round (on a VM, memory the guest has not touched
# for a while goes back to the host, and the first tool to write it pays for that), the best time of each kept
# (and the median printed below the table); before them WARMUP untimed runs of crshim touch that memory again.
declare -A BEST FAILED ALL # ALL[tool,size,op]: every timed round's seconds
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
	if (NR) printf "%.3f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for mib in $SIZES; do
	for ((round = 1; round <= WARMUP; round++)); do # (untimed; a failure shows in the timed rounds)
		run_one crshim "$CRSHIM" "$mib" || true
	done
	for ((round = 1; round <= ROUNDS; round++)); do
		order=("${TOOLS[@]}")
		if ((round % 2 == 0)); then
			order=()
			for ((i = ${#TOOLS[@]} - 1; i >= 0; i--)); do order+=("${TOOLS[i]}"); done
		fi
		for tool in "${order[@]}"; do
			bin=$CRSHIM
			[ "$tool" = criu ] && bin=$CRIU
			if ! run_one "$tool" "$bin" "$mib"; then
				# CRIU failing (e.g. Debian's 3.17 on this kernel's vDSO layout) is reported, not fatal.
				[ "$tool" = crshim ] && STATUS=1
				FAILED[$tool,$mib]=${RES[$tool,$mib,data]}
				continue
			fi
			for op in dump restore; do
				ALL[$tool,$mib,$op]+=" ${RES[$tool,$mib,$op]}"
				b=${BEST[$tool,$mib,$op]:-}
				if [ -z "$b" ] || [ "$(calc %d "${RES[$tool,$mib,$op]} < $b")" = 1 ]; then
					BEST[$tool,$mib,$op]=${RES[$tool,$mib,$op]}
				fi
			done
		done
	done
	for tool in "${TOOLS[@]}"; do
		if [ -n "${FAILED[$tool,$mib]:-}" ]; then
			RES[$tool,$mib,dump]='' RES[$tool,$mib,restore]='' RES[$tool,$mib,data]=${FAILED[$tool,$mib]}
		else
			RES[$tool,$mib,dump]=${BEST[$tool,$mib,dump]:-} RES[$tool,$mib,restore]=${BEST[$tool,$mib,restore]:-}
		fi
		report "$tool" "$mib"
	done
done

say ""
for mib in $SIZES; do
	for tool in "${TOOLS[@]}"; do
		[ -z "${FAILED[$tool,$mib]:-}" ] || continue
		say "$tool $mib MiB: median of $ROUNDS rounds: dump $(median "${ALL[$tool,$mib,dump]:-}") s," \
			"restore $(median "${ALL[$tool,$mib,restore]:-}") s (the table: the best)"
	done
done

if [ -n "$CRIU" ]; then
	say ""
	for mib in $SIZES; do
		for op in dump restore; do
			a=${RES[crshim,$mib,$op]:-} b=${RES[criu,$mib,$op]:-}
			if [ -n "$a" ] && [ -n "$b" ]; then
				say "$mib MiB $op: criu/crshim time ratio $(calc %.2f "$b / $a") (> 1: crshim is faster)"
			else
				say "$mib MiB $op: no ratio (a run failed)"
			fi
		done
	done
fi

say ""
if [ "$STATUS" = 0 ]; then
	say "bench: all crshim runs restored their data intact"
else
	say "bench: FAILED: a crshim step failed or the data did not verify (see the data column)"
fi
exit "$STATUS"
