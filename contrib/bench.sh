#!/bin/bash
# crshim benchmark: dump and restore of a process holding 64 MiB and 1 GiB of random data, images on tmpfs.
# (A tmpfs makes each 4 KiB page of the pages file on its own: the same dump into a dir on ext4 takes ~0.6x
# the time here, as ext4 writes large folios; engine/mem/README.md "Why tmpfs". Both tools write to it.)
#
#   usage: contrib/bench.sh /absolute/path/to/crshim      (`make bench` builds everything and runs this as root)
#   env:   CRSHIM_BENCH_SIZES="64 1024"   sizes in MiB
#          CRSHIM_BENCH_ROUNDS=2          runs of each tool per size, in turned order; the best time is printed,
#                                         and the median of the rounds below the table
#          CRSHIM_BENCH_WARMUP=1          untimed runs of crshim per size first (0: none): on this VM memory
#                                         the guest left free for a while goes back to the host (virtio_balloon
#                                         free page reporting), and the first run to touch it again pays for it
#          CRSHIM_BENCH_RT=1              the timed dump and restore steps, and the program while it is dumped
#                                         (its exit is part of the dump), at SCHED_FIFO priority 1 (chrt), for
#                                         each tool: on a loaded machine, numbers near an idle one's (the other
#                                         processes wait meanwhile; the kernel's RT throttling leaves them 5%)
#
# For each size: start contrib/bench-mem (fills its memory, keeps a checksum), dump it, restore it, tell it to check
# its memory. Prints seconds and GB/s (10^9 bytes of data per second) for dump and restore, the image size and whether
# the data came back intact. If a real CRIU is given as CRIU=path (else `criu` on PATH) the same runs are done with it
# and the ratio (crshim's time / CRIU's) is printed.
# Beside each wall time: the CPU seconds (user+sys) of the tool and bench-mem (a cgroup of each run's own, see
# bench-cg.sh: a dump's includes bench-mem's exit, which frees its memory) and the 1-minute load average. On a
# loaded machine the wall time tells how long the step waited for a CPU, the CPU time what it cost.
# Speed never fails the run; exit status 1 means a crshim step failed or the data did not verify. Any other stop
# prints one line "bench: stopped: ..." on stderr and exits non-zero.
#
# Part unix-tree (CRSHIM_BENCH_PARTS="mem unix-tree", the default; `make bench-unix-tree` runs it alone): trees of N
# processes that all hold the same P unix socket pairs (contrib/bench-sktree.c; N * 2P socket fds), dumped and
# restored by crshim (and CRIU): seconds, CPU seconds and the ratio to CRIU, as above.
#   env:   CRSHIM_BENCH_SKTREES="300x20 300x100"  NxP trees timed ("": none)
#          CRSHIM_BENCH_SKCOUNT=100x20            the tree of the count check ("": none)
# Its check can fail: crshim's reads of /proc (openat, readlink(at), getdents64) during a dump of the count tree,
# counted by strace, must stay under a linear bound (4 per fd of the tree + 100 per process; else exit status 1): a
# dump quadratic in the tree's fds (reading every process's fds again for each process) makes about N per fd and
# fails it, at any load.
set -euo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIZES=${CRSHIM_BENCH_SIZES:-64 1024}
ROUNDS=${CRSHIM_BENCH_ROUNDS:-2}
WARMUP=${CRSHIM_BENCH_WARMUP:-1}
RT=() # CRSHIM_BENCH_RT=1: the command prefix of the timed steps (chrt -f 1)
# the parts run: mem (the data above) and unix-tree (a tree holding many unix socket fds: below, sk_part)
PARTS=${CRSHIM_BENCH_PARTS:-mem unix-tree}
[[ " $PARTS " == *" mem "* ]] || SIZES=
BASE= # a tmpfs of this run's own, mounted on a fresh dir under /tmp (else a dir under /dev/shm)
KEEP=/tmp/crshim-bench-logs # logs of failed runs are copied here (the tmpfs goes away)
TIMEOUT=120     # seconds to wait for the program to fill or to verify its memory
STEP_TIMEOUT=300 # seconds after which a dump or restore counts as hung

MOUNTED=0
PIDS=()
STATUS=0
ME=bench
# shellcheck source=contrib/bench-cg.sh
. "$HERE/bench-cg.sh"
# A command that fails outside a condition stops the script (set -e): say which, not nothing (a `criu --version
# | head -n 1` that got SIGPIPE under load once ended the whole run before its first line).
ERR_AT='' SAID=0
trap '[ "$BASHPID" != "$$" ] || ERR_AT="line $LINENO: $BASH_COMMAND"' ERR
set -E
declare -A RES # RES[tool,size,field]

say() { printf '%s\n' "$*"; }
now() { echo "${EPOCHREALTIME/,/.}"; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }

proc_alive() { # pid: exists and is not a zombie (whatever it runs: right after the fork it is still bash)
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
bench_alive() { # pid: running (not a zombie) and still bench-mem
	[ -n "$1" ] && proc_alive "$1" || return 1
	tr "\0" " " 2>/dev/null <"/proc/$1/cmdline" | grep -q bench-mem
}
kill_left() { # the bench-mem processes of earlier runs that are still there (a failed step left them)
	local p i
	for p in "${PIDS[@]}"; do
		if bench_alive "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
	done
	for p in "${PIDS[@]}"; do
		for ((i = 0; i < 200; i++)); do proc_alive "$p" || break; sleep 0.05; done
	done
	PIDS=()
}
# shellcheck disable=SC2317 # (called by the EXIT trap)
cleanup() {
	local rc=$? p
	trap - ERR
	set +eE
	if [ "$rc" != 0 ] && [ "$SAID" = 0 ]; then
		printf 'bench: stopped: exit status %s%s\n' "$rc" "${ERR_AT:+ at $ERR_AT}" >&2
	fi
	for p in "${PIDS[@]}"; do
		if bench_alive "$p"; then kill -KILL "$p" 2>/dev/null || true; fi
	done
	wait 2>/dev/null || true
	if [ "$MOUNTED" = 1 ]; then
		umount "$BASE" 2>/dev/null || umount -l "$BASE" 2>/dev/null || true
	fi
	[ -z "$BASE" ] || rm -rf "$BASE" 2>/dev/null
	cg_drop
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	say "bench: $*" >&2
	SAID=1
	exit 1
}

# ---------------------------------------------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run as root"
[ -x "$CRSHIM" ] || die "no crshim binary at $CRSHIM (run 'make' first)"
PROG=$(dirname "$CRSHIM")/contrib/bench-mem
if [ ! -x "$PROG" ]; then
	mkdir -p "$(dirname "$PROG")"
	cc -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -o "$PROG" "$HERE/bench-mem.c" ||
		die "cannot build bench-mem"
fi
CRIU=${CRIU:-$(command -v criu || true)}
CRIU_NOTE=
if [ -z "$CRIU" ]; then
	CRIU_NOTE="criu: absent (no criu on PATH), crshim only"
elif [ ! -f "$CRIU" ] || [ ! -x "$CRIU" ]; then
	die "CRIU=$CRIU: no executable file there"
elif [ "$(readlink -f "$CRIU")" = "$(readlink -f "$CRSHIM")" ] || cmp -s "$CRIU" "$CRSHIM"; then
	CRIU_NOTE="criu: $CRIU is crshim itself, not CRIU; crshim only"
	CRIU=
else
	# (the whole output read: a `| head -n 1` gets CRIU 4.2, which writes its two lines with two write()s, killed
	# by SIGPIPE when head is quicker, and pipefail and set -e end the script here without a word)
	CRIU_NOTE="criu: $CRIU ($("$CRIU" --version 2>&1 | sed -n '1s/  */ /gp'))"
fi
[ "${CRSHIM_BENCH_RT:-0}" = 0 ] || RT=(chrt -f 1)
[ ${#RT[@]} = 0 ] || chrt -f 1 true || die "CRSHIM_BENCH_RT=1: chrt -f 1 does not work here"
bench_lock

# The images go to a tmpfs of our own, big enough for the largest size plus the logs.
max=0
for s in $SIZES; do [ "$s" -gt "$max" ] && max=$s; done
BASE=$(mktemp -d /tmp/crshim-bench.XXXXXX) || die "cannot make a directory under /tmp"
if mount -t tmpfs -o "size=$((max + 256))m,mode=0700" crshim-bench "$BASE" 2>/dev/null; then
	MOUNTED=1
else
	rmdir "$BASE" 2>/dev/null || true
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || die "cannot mount a tmpfs and /dev/shm is not one"
	BASE=$(mktemp -d /dev/shm/crshim-bench.XXXXXX) || die "cannot make a directory under /dev/shm"
fi

say "crshim bench: dump + restore of a process's random data, images on tmpfs ($BASE)"
say "crshim: $CRSHIM ($("$CRSHIM" --version 2>&1 | sed -n 1p))"
say "$CRIU_NOTE"
say "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "$(cg_note)"
[ ${#RT[@]} = 0 ] || say "CRSHIM_BENCH_RT=1: dump and restore steps (and the dumped program) at SCHED_FIFO priority 1"
say ""

wait_ready() { # DIR PID: until the program PID wrote DIR/ready (1: it died first, or TIMEOUT)
	local i
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		[ -f "$1/ready" ] && return 0
		proc_alive "$2" || break
		sleep 0.05
	done
	[ -f "$1/ready" ]
}
ask_result() { # PID DIR ALIVE: SIGUSR1 to the restored program, then its DIR/result (ALIVE PID: it still runs)
	local i
	kill -USR1 "$1"
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		[ -f "$2/result" ] && break
		"$3" "$1" || break
		sleep 0.05
	done
	sleep 0.05
	cat "$2/result" 2>/dev/null || echo "BAD: no result (the restored program died?)"
}

# tool_step TOOL KEY BIN DIR VERB ARGS...: `BIN VERB -D DIR/images ARGS -o VERB.log` in the run's cgroup (its
# output in DIR/VERB.out), its wall time from STEP_T0 to STEP_T1; 1 if it failed (RES[TOOL,KEY,data] says why).
STEP_T0='' STEP_T1=''
tool_step() {
	local tool=$1 key=$2 bin=$3 dir=$4 verb=$5
	shift 5
	STEP_T0=$(now)
	if ! in_cg timeout "$STEP_TIMEOUT" "${RT[@]}" "$bin" "$verb" -D "$dir/images" "$@" -o "$verb.log" >"$dir/$verb.out" 2>&1; then
		RES[$tool,$key,data]="$verb failed: $(last_error "$dir/$verb.out" "$dir/images/$verb.log") (log $(keep_logs "$dir")/$verb.log)"
		return 1
	fi
	STEP_T1=$(now)
}
step_res() { # TOOL KEY WHAT C0 C1: RES[TOOL,KEY,WHAT] the last step's wall s, RES[..,cWHAT] the CPU s from C0 to C1
	RES[$1,$2,$3]=$(calc %.3f "$STEP_T1 - $STEP_T0")
	RES[$1,$2,c$3]=$(calc %.3f "($5 - $4) / 1e9")
}
# timed_restore TOOL KEY BIN DIR C1: the restore of DIR/images (detached, DIR/restored.pid), timed into RES as
# above (its CPU: the cgroup's from C1, the dump's end); 1 if it failed.
timed_restore() {
	tool_step "$1" "$2" "$3" "$4" restore -d --pidfile "$4/restored.pid" || return 1
	step_res "$1" "$2" restore "$5" "$(cg_ns)"
}

# run_one TOOL BIN MIB: one dump + restore + verify, bench-mem and the tool in a cgroup of their own (cg_new);
# fills RES[TOOL,MIB,*] (dump, restore: wall s; cdump, crestore: CPU s; load: the load average as the dump
# started); returns 1 if a step failed.
run_one() {
	local tool=$1 bin=$2 mib=$3 dir img pid rpid c0 c1 result i avail
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

	kill_left
	cg_drop
	cg_new
	( # (a subshell of its own, not in_cg's: bench-mem's pid is $!)
		[ -z "$CG" ] || echo "$BASHPID" >"$CG/cgroup.procs"
		exec setsid "$PROG" "$mib" "$dir" </dev/null >/dev/null 2>&1
	) &
	pid=$!
	disown "$pid" # our child, reaped by the shell, but no "Killed" notice when the dump kills it
	PIDS+=("$pid")
	wait_ready "$dir" "$pid" || {
		RES[$tool,$mib,data]="bench-mem did not get ready ($(proc_alive "$pid" && echo "still filling" || echo died))"
		return 1
	}

	RES[$tool,$mib,load]=$(loadavg)
	[ ${#RT[@]} = 0 ] || chrt -f -p 1 "$pid" >/dev/null 2>&1 || true
	c0=$(cg_ns)
	tool_step "$tool" "$mib" "$bin" "$dir" dump -t "$pid" || return 1
	for ((i = 0; i < 100; i++)); do bench_alive "$pid" || break; sleep 0.05; done
	if bench_alive "$pid"; then RES[$tool,$mib,data]="still running after the dump"; return 1; fi
	for ((i = 0; i < 100; i++)); do [ -e "/proc/$pid" ] || break; sleep 0.05; done
	c1=$(cg_ns) # (the dump's CPU: the tool's and bench-mem's, its exit that frees the memory too)
	RES[$tool,$mib,image]=$(du -sb --exclude='*.log' "$img" | cut -f1)
	step_res "$tool" "$mib" dump "$c0" "$c1"

	timed_restore "$tool" "$mib" "$bin" "$dir" "$c1" || return 1
	rpid=$(tr -d ' \n' <"$dir/restored.pid" 2>/dev/null || true)
	PIDS+=("$rpid")
	if [ "$rpid" != "$pid" ] || ! bench_alive "$rpid"; then
		RES[$tool,$mib,data]="restored pid '${rpid}' is not running bench-mem $pid"
		return 1
	fi

	# (a tool that restores the scheduling policy gave it SCHED_FIFO back: its check runs as before the dump)
	[ ${#RT[@]} = 0 ] || chrt -o -p 0 "$rpid" >/dev/null 2>&1 || true
	result=$(ask_result "$rpid" "$dir" bench_alive)
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

# The table: per tool and size the best (minimum) of the timed rounds, of the wall and of the CPU seconds each, with
# GB/s of both (10^9 bytes per second of wall time, per second of CPU time), and the load averages the rounds
# started at.
row() { printf '%-6s %8s %8s %6s %7s %6s  %9s %6s %7s %6s  %-11s %10s  %s\n' "$@"; }
gbs() { if [ -n "$2" ] && [ "$(calc %d "($2 > 0)")" = 1 ]; then calc %.2f "$1 / $2 / 1e9"; else echo -; fi; }
report() { # TOOL MIB
	local tool=$1 mib=$2 bytes=$(($2 << 20)) img d cd r cr
	img=${RES[$tool,$mib,image]:-}
	if [ -n "${FAILED[$tool,$mib]:-}" ] || [ -z "${ALL[$tool,$mib,dump]:-}" ]; then
		row "$tool" "$mib MiB" - - - - - - - - - - "${FAILED[$tool,$mib]:-no timed run}"
		return 0
	fi
	read -r d _ <<<"$(minmed "${ALL[$tool,$mib,dump]}")"
	read -r cd _ <<<"$(minmed "${ALL[$tool,$mib,cdump]}")"
	read -r r _ <<<"$(minmed "${ALL[$tool,$mib,restore]}")"
	read -r cr _ <<<"$(minmed "${ALL[$tool,$mib,crestore]}")"
	row "$tool" "$mib MiB" "$d" "$(gbs "$bytes" "$d")" "$cd" "$(gbs "$bytes" "$cd")" \
		"$r" "$(gbs "$bytes" "$r")" "$cr" "$(gbs "$bytes" "$cr")" "$(minmax "${ALL[$tool,$mib,load]}")" \
		"$([ -n "$img" ] && calc '%.1f MiB' "$img / 1048576" || echo -)" "${RES[$tool,$mib,data]:--}"
}
runline() { # PREFIX TOOL MIB: the last run's numbers
	local t=$2 m=$3
	say "$1$t $m MiB: dump ${RES[$t,$m,dump]:--} s (CPU ${RES[$t,$m,cdump]:--} s), restore" \
		"${RES[$t,$m,restore]:--} s (CPU ${RES[$t,$m,crestore]:--} s), load ${RES[$t,$m,load]:--}: ${RES[$t,$m,data]:--}"
}

TOOLS=(crshim)
[ -n "$CRIU" ] && TOOLS+=(criu)
# Each size ROUNDS times, the tools' order turned round each round (on a VM, memory the guest has not touched
# for a while goes back to the host, and the first tool to write it pays for that), the best time of each kept
# (and the median printed below the table); before them WARMUP untimed runs of crshim touch that memory again.
declare -A FAILED ALL # ALL[tool,size,what]: every timed round's value (dump restore cdump crestore load)
round_tools() { # ROUND: the tools in that round's order (turned round on even rounds) in ORDER
	local i
	ORDER=("${TOOLS[@]}")
	(($1 % 2 == 0)) || return 0
	ORDER=()
	for ((i = ${#TOOLS[@]} - 1; i >= 0; i--)); do ORDER+=("${TOOLS[i]}"); done
}
tool_bin() { if [ "$1" = criu ]; then echo "$CRIU"; else echo "$CRSHIM"; fi; }
res_clear() { RES[$1,$2,dump]='' RES[$1,$2,restore]='' RES[$1,$2,cdump]='' RES[$1,$2,crestore]=''; } # TOOL KEY
res_keep() { # TOOL KEY: the round's values into ALL
	local what
	for what in dump restore cdump crestore load; do ALL[$1,$2,$what]+=" ${RES[$1,$2,$what]}"; done
}
for mib in $SIZES; do
	for ((round = 1; round <= WARMUP; round++)); do # (untimed; a failure shows in the timed rounds)
		res_clear crshim "$mib"
		run_one crshim "$CRSHIM" "$mib" || true
		runline "warm-up (untimed) " crshim "$mib"
	done
	for ((round = 1; round <= ROUNDS; round++)); do
		round_tools "$round"
		for tool in "${ORDER[@]}"; do
			res_clear "$tool" "$mib"
			if ! run_one "$tool" "$(tool_bin "$tool")" "$mib"; then
				runline "round $round: " "$tool" "$mib"
				# CRIU failing (e.g. Debian's 3.17 on this kernel's vDSO layout) is reported, not fatal.
				[ "$tool" = crshim ] && STATUS=1
				FAILED[$tool,$mib]=${RES[$tool,$mib,data]}
				continue
			fi
			runline "round $round: " "$tool" "$mib"
			res_keep "$tool" "$mib"
		done
	done
done
cg_drop

say ""
say "best of $ROUNDS timed round(s) each (wall s, and CPU s: user+sys of the tool and bench-mem); GB/s = 10^9 bytes per s"
row tool size "dump s" GB/s "CPU s" GB/s "restore s" GB/s "CPU s" GB/s "load" image data
for mib in $SIZES; do
	for tool in "${TOOLS[@]}"; do report "$tool" "$mib"; done
done

say ""
for mib in $SIZES; do
	for tool in "${TOOLS[@]}"; do
		if [ -n "${FAILED[$tool,$mib]:-}" ] || [ -z "${ALL[$tool,$mib,dump]:-}" ]; then continue; fi
		say "$tool $mib MiB: median of $ROUNDS round(s): dump $(minmed "${ALL[$tool,$mib,dump]}" | cut -d' ' -f2) s" \
			"(CPU $(minmed "${ALL[$tool,$mib,cdump]}" | cut -d' ' -f2) s), restore" \
			"$(minmed "${ALL[$tool,$mib,restore]}" | cut -d' ' -f2) s (CPU $(minmed "${ALL[$tool,$mib,crestore]}" | cut -d' ' -f2) s)"
	done
done

ratio() { # WHAT MIB: crshim's best / CRIU's best, "-" without both
	local a b
	a=$(minmed "${ALL[crshim,$2,$1]:-}" | cut -d' ' -f1) b=$(minmed "${ALL[criu,$2,$1]:-}" | cut -d' ' -f1)
	if [ -n "${FAILED[crshim,$2]:-}${FAILED[criu,$2]:-}" ] || [ "$a" = - ] || [ "$b" = - ] ||
		[ "$(calc %d "($b > 0)")" != 1 ]; then
		echo -
	else
		calc %.2fx "$a / $b"
	fi
}
if [ -n "$CRIU" ]; then
	say ""
	for mib in $SIZES; do
		say "ratio $mib MiB: crshim/criu best: dump $(ratio dump "$mib") (CPU $(ratio cdump "$mib")), restore" \
			"$(ratio restore "$mib") (CPU $(ratio crestore "$mib")) (1.00x or less: as fast as CRIU or faster)"
	done
fi

# ---------------------------------------------------------------------------------------------------------------------
# unix-tree part: a tree of processes that all hold the same unix socket pairs (bench-sktree: N processes,
# PAIRS pairs, N * 2 * PAIRS socket fds, as CRIU's session03 has), dumped and restored by each tool, timed as above
# (wall and CPU seconds, best and median of the rounds, the ratio to CRIU). Then the check that can fail: the
# dump's reads of /proc counted under strace (openat, readlink, readlinkat, getdents64 of crshim and its
# helpers), which must stay linear: at most SK_PER_FD per fd of the tree plus SK_PER_TASK per process. A dump
# that reads every process's fds again for each process (da125ac's bug, a readlink per fd of the tree per
# process: 400 thousand calls for the 100-process tree of the check) fails it on any machine at any load;
# its time is only printed.
SKTREES=${CRSHIM_BENCH_SKTREES-300x20 300x100}
SKCOUNT=${CRSHIM_BENCH_SKCOUNT-100x20}
SK_PER_FD=4 SK_PER_TASK=100
SKROOTS=() SKPID=

sk_start() { # DIR N PAIRS: starts the tree in the run's cgroup, its root's pid in SKPID; 1 if it did not get ready
	local dir=$1 pid
	( # (a subshell of its own, not in_cg's: the root's pid is $!)
		[ -z "$CG" ] || echo "$BASHPID" >"$CG/cgroup.procs"
		exec setsid "$SKPROG" "$2" "$3" "$dir" </dev/null >/dev/null 2>&1 8>&- # (not bench_lock's fd)
	) &
	pid=$!
	disown "$pid"
	SKROOTS+=("$pid")
	SKPID=$pid
	wait_ready "$dir" "$pid"
}
sk_kill() { # the trees of this part still there (their sessions)
	local p
	for p in "${SKROOTS[@]}"; do ps -o pid= -s "$p" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true; done
	SKROOTS=()
}

# sk_one TOOL BIN SPEC (NxPAIRS): one dump + restore + check; fills RES[TOOL,SPEC,*] as run_one does.
sk_one() {
	local tool=$1 bin=$2 spec=$3 n=${3%x*} pairs=${3#*x} dir img pid rpid c0 c1 i result
	dir=$BASE/$tool-sk$spec img=$dir/images
	RES[$tool,$spec,data]=-
	rm -rf "$dir" && mkdir -p "$img"
	sk_kill
	cg_drop
	cg_new
	sk_start "$dir" "$n" "$pairs" || { RES[$tool,$spec,data]="bench-sktree did not get ready"; return 1; }
	pid=$SKPID
	RES[$tool,$spec,load]=$(loadavg)
	c0=$(cg_ns)
	tool_step "$tool" "$spec" "$bin" "$dir" dump -t "$pid" || return 1
	for ((i = 0; i < 200; i++)); do [ -z "$(ps -o pid= -s "$pid")" ] && break; sleep 0.05; done
	[ -z "$(ps -o pid= -s "$pid")" ] || { RES[$tool,$spec,data]="the tree still runs after the dump"; return 1; }
	c1=$(cg_ns)
	step_res "$tool" "$spec" dump "$c0" "$c1"
	timed_restore "$tool" "$spec" "$bin" "$dir" "$c1" || return 1
	rpid=$(tr -d ' \n' <"$dir/restored.pid" 2>/dev/null || true)
	[ "$rpid" = "$pid" ] || { RES[$tool,$spec,data]="restored pid '$rpid', not $pid"; return 1; }
	result=$(ask_result "$rpid" "$dir" proc_alive)
	RES[$tool,$spec,data]=$result
	sk_kill
	rm -rf "$img"
	[[ "$result" == OK* ]]
}

# The check: crshim's reads of /proc during a dump of the SKCOUNT tree, counted by strace -c (not timed).
sk_count() {
	local spec=$SKCOUNT n=${SKCOUNT%x*} pairs=${SKCOUNT#*x} dir pid fds calls bound
	dir=$BASE/count-sk$spec
	rm -rf "$dir" && mkdir -p "$dir/images"
	command -v strace >/dev/null || { say "unix-tree count: FAILED: not run: no strace (apt-get install strace)"; return 1; }
	sk_kill
	cg_drop
	sk_start "$dir" "$n" "$pairs" || { say "unix-tree count: FAILED: bench-sktree did not get ready"; return 1; }
	pid=$SKPID
	fds=$(ps -o pid= -s "$pid" | while read -r p; do find "/proc/$p/fd" -mindepth 1 -maxdepth 1 | wc -l; done |
		awk '{ s += $1 } END { print s + 0 }') || fds=0
	[ "$fds" -gt 0 ] || { say "unix-tree count: FAILED: no fd of the tree seen"; sk_kill; return 1; }
	if ! timeout "$STEP_TIMEOUT" strace -f -qq --seccomp-bpf -c -o "$dir/strace.out" -e trace=openat,readlink,readlinkat,getdents64 \
		"$CRSHIM" dump -t "$pid" -D "$dir/images" -o dump.log >"$dir/dump.out" 2>&1; then
		say "unix-tree count: FAILED: the dump under strace failed: $(last_error "$dir/dump.out" "$dir/images/dump.log")"
		sk_kill
		return 1
	fi
	sk_kill
	calls=$(awk '$NF == "total" { print $4 }' "$dir/strace.out")
	bound=$((SK_PER_FD * fds + SK_PER_TASK * n))
	say "unix-tree count: the dump of $n processes with $fds fds ($((2 * pairs)) socket fds each) read /proc $calls" \
		"times ($(calc %.2f "${calls:-0} / $fds") per fd; $(awk '$NF != "total" && $4 ~ /^[0-9]+$/ { printf "%s%s %s", s, $NF, $4; s = ", " }' "$dir/strace.out"));" \
		"linear bound $SK_PER_FD per fd + $SK_PER_TASK per process: $bound"
	[ -n "$calls" ] && [ "$calls" -le "$bound" ] && return 0
	say "unix-tree count: FAILED: more reads than the linear bound (a dump quadratic in the tree's fds?)"
	return 1
}

sk_bm() { # WHAT: "BEST s (median MED)" of tool's rounds of spec (sk_part's)
	local a m
	read -r a m <<<"$(minmed "${ALL[$tool,$spec,$1]}")"
	echo "$a s (median $m)"
}

sk_part() {
	local spec tool round
	# (the trees this part started go too however the script ends; cleanup sees the exit status still)
	trap 'SKRC=$?; sk_kill; (exit $SKRC); cleanup' EXIT
	SKPROG=$(dirname "$CRSHIM")/contrib/bench-sktree
	if [ ! -x "$SKPROG" ]; then
		mkdir -p "$(dirname "$SKPROG")"
		cc -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -o "$SKPROG" "$HERE/bench-sktree.c" ||
			die "cannot build bench-sktree"
	fi
	say ""
	say "unix-tree: trees of N processes holding the same P unix socket pairs (NxP: N * 2P socket fds)"
	for spec in $SKTREES; do
		[[ "$spec" =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "CRSHIM_BENCH_SKTREES: '$spec' is not NxPAIRS"
		for ((round = 1; round <= ROUNDS; round++)); do
			round_tools "$round"
			for tool in "${ORDER[@]}"; do
				res_clear "$tool" "$spec"
				if ! sk_one "$tool" "$(tool_bin "$tool")" "$spec"; then
					[ "$tool" = crshim ] && STATUS=1
					FAILED[$tool,$spec]=${RES[$tool,$spec,data]}
				fi
				say "round $round: $tool $spec: dump ${RES[$tool,$spec,dump]:--} s (CPU ${RES[$tool,$spec,cdump]:--} s)," \
					"restore ${RES[$tool,$spec,restore]:--} s (CPU ${RES[$tool,$spec,crestore]:--} s), load" \
					"${RES[$tool,$spec,load]:--}: ${RES[$tool,$spec,data]}"
				[ -n "${FAILED[$tool,$spec]:-}" ] || res_keep "$tool" "$spec"
			done
		done
		cg_drop
		for tool in "${TOOLS[@]}"; do
			if [ -n "${FAILED[$tool,$spec]:-}" ] || [ -z "${ALL[$tool,$spec,dump]:-}" ]; then continue; fi
			say "unix-tree $tool $spec: best of $ROUNDS: dump $(sk_bm dump) (CPU $(sk_bm cdump)), restore" \
				"$(sk_bm restore) (CPU $(sk_bm crestore)), load $(minmax "${ALL[$tool,$spec,load]}")"
		done
		[ -z "$CRIU" ] || say "unix-tree ratio $spec: crshim/criu best: dump $(ratio dump "$spec") (CPU" \
			"$(ratio cdump "$spec")), restore $(ratio restore "$spec") (CPU $(ratio crestore "$spec"))"
	done
	[ -z "$SKCOUNT" ] || sk_count || STATUS=1
}
[[ " $PARTS " != *" unix-tree "* ]] || sk_part

say ""
if [ "$STATUS" = 0 ]; then
	say "bench: all crshim runs restored their data intact"
else
	say "bench: FAILED: a crshim step failed or the data did not verify (see the data column)"
fi
SAID=1
exit "$STATUS"
