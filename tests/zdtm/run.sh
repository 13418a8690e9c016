#!/bin/bash
# ZDTM-style runner for crshim. TAP output (usable by prove). See README.md.
#
# run.sh [--crshim PATH] [--mode cr|checkpoint|iters|nocr|dumpfail] [--iters N] [--keep] [--list] [TEST...]
# run.sh --mode fault --fault NAME|NUMBER|all [TEST...]   tests under fault points (see fault_tests; a point that
#                                does not fire for a named TEST outside its own set: skipped)
# run.sh --mode group [TEST...]   the tests under one parent, dumped and restored together
# run.sh --mode user [TEST...]    as cr, by a non-root user (ZDTM_USER) with a capability-only crshim copy
# run.sh --mode ns|uns|cuns [TEST...]  each test in namespaces of its own (uns, cuns: owned by a user namespace)
# run.sh --mode rootless [TEST...] as cuns, in a non-root user's own user namespace, crshim run there by that user
# run.sh --mode compat [TEST...]  as cr, dumped by the crshim of tests/zdtm/compat-base, restored by CRSHIM
# run.sh --selftest        check that broken states are reported as "not ok"
# --repeat N: each test N times in a row; --load N: N CPU- and fork-heavy jobs run beside the tests
#
# Environment: CRSHIM, MODE, ITERS, FAULT, REPEAT, LOAD, ZDTM_BIN (built tests, default build/zdtm),
# ZDTM_TMP (work dirs, default /tmp), ZDTM_TIMEOUT (seconds per crshim call, default 60; a test's .desc
# `timeout: N` raises it, and the runner's waits for the test, to N for that test).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BIN=${ZDTM_BIN:-$TOP/build/zdtm}

# Run under a child subreaper so daemonized and restored tests are reaped at once
# (pid 1 on some machines reaps zombies late, keeping their pids taken).
if [ -z "${ZDTM_REAPED:-}" ] && [ -x "$BIN/zdtm_reaper" ]; then
	export ZDTM_REAPED=1
	exec "$BIN/zdtm_reaper" "$0" "$@"
fi
# The reaper adopts what a failed restore leaves behind (mode fault checks its children, also in nested runs).
[ -n "${ZDTM_REAPED:-}" ] && export ZDTM_REAPER_PID=${ZDTM_REAPER_PID:-$PPID}

CRSHIM=${CRSHIM:-$TOP/build/crshim}
MODE=${MODE:-cr}
ITERS=${ITERS:-3}
FAULT=${FAULT:-}
REPEAT=${REPEAT:-1}
LOAD=${LOAD:-0}
KEEP=0
LIST=0
SELFTEST=0
TMPBASE=${ZDTM_TMP:-${TMPDIR:-/tmp}}
CTIMEOUT=${ZDTM_TIMEOUT:-60}
CTIMEOUT0=$CTIMEOUT
TWAIT=0 # the running test's .desc timeout (0: none): the least bound of every wait for it (wait_gone, ...)
ARCH=$(uname -m)
NAMES=()
TTYRUN=()
INHFD=
SNAPOF=()

usage() {
	sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit "$1"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--crshim) CRSHIM=$2; shift 2 ;;
	--crshim=*) CRSHIM=${1#*=}; shift ;;
	--mode) MODE=$2; shift 2 ;;
	--mode=*) MODE=${1#*=}; shift ;;
	--iters) ITERS=$2; shift 2 ;;
	--iters=*) ITERS=${1#*=}; shift ;;
	--fault) FAULT=$2; shift 2 ;;
	--fault=*) FAULT=${1#*=}; shift ;;
	--repeat) REPEAT=$2; shift 2 ;;
	--repeat=*) REPEAT=${1#*=}; shift ;;
	--load) LOAD=$2; shift 2 ;;
	--load=*) LOAD=${1#*=}; shift ;;
	--keep) KEEP=1; shift ;;
	--list) LIST=1; shift ;;
	--selftest) SELFTEST=1; shift ;;
	--snap) SNAPOF=("$2" "$3"); shift 3 ;; # internal (mode group): reference snapshot of the test in PIDFILE
	-h|--help) usage 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	*) NAMES+=("$1"); shift ;;
	esac
done

# mode uns: mode ns with a user namespace of the test's own owning the network, IPC and UTS namespaces (uid
# and gid map below); mode cuns: owning all of them, PID and mount ones too, as a rootless container's (the
# test enters it first; its /dev has the host's device nodes bound, named as external mounts); mode rootless:
# as cuns, but the user namespace is a non-root user's own (ZDTM_USER's, made by that user and mapping only
# it), and the test and crshim run in it as that user, as a rootless container and its runtime do (modes.sh)
UNS=0 CUNS=0 ROOTLESS=0
MODENAME=$MODE
if [ "$MODE" = uns ]; then
	UNS=1 MODE=ns
elif [ "$MODE" = cuns ]; then
	UNS=1 CUNS=1 MODE=ns
elif [ "$MODE" = rootless ]; then
	UNS=1 CUNS=1 ROOTLESS=1 MODE=ns
fi
# mode fault with FAULT_NS=ns|uns|cuns: each test in the namespaces of that mode (a failed restore of a tree
# born in its user namespace leaves nothing either)
NSWITH=0
if [ "$MODE" = fault ] && [ -n "${FAULT_NS:-}" ]; then
	case "$FAULT_NS" in
	ns) ;;
	uns) UNS=1 ;;
	cuns) UNS=1 CUNS=1 ;;
	*) echo "run.sh: FAULT_NS is ns, uns or cuns, not $FAULT_NS" >&2; exit 2 ;;
	esac
	NSWITH=1
fi
ns_mode() { [ "$MODE" = ns ] || [ "$NSWITH" = 1 ]; }
UNS_MAP=${ZDTM_UNS_MAP:-0 100000 65536}
case "$MODE" in
cr|checkpoint|nocr|dumpfail|group|snaps|ns|user|compat|pagesrv|lazy) ;;
fault) [ -n "$FAULT" ] || { echo "run.sh: mode fault needs --fault NAME|NUMBER|all (FAULT=...)" >&2; exit 2; } ;;
iters) [[ "$ITERS" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad --iters $ITERS" >&2; exit 2; } ;;
*) echo "run.sh: unknown mode $MODE (cr, checkpoint, iters, nocr, dumpfail, fault, group, snaps, ns, uns, cuns, rootless, user, compat, pagesrv, lazy)" >&2; exit 2 ;;
esac

# A restore needs the PIDs it saved to be free. With the kernel's default pid_max of 32768 (hosts without systemd;
# systemd raises it to 4194304), a busy machine wraps its PIDs within seconds and hands a PID of the killed tree to
# another process before the restore: "clone3 child N: File exists", a failure of the test machine, not of the
# tree. As root, raise pid_max the way systemd hosts have it (ZDTM_PID_MAX=keep leaves it alone).
raise_pid_max() {
	local want=4194304 have
	have=$(cat /proc/sys/kernel/pid_max 2>/dev/null) || return 0
	[ "$(id -u)" = 0 ] && [ "${ZDTM_PID_MAX:-}" != keep ] && [ "$have" -lt $want ] || return 0
	if echo $want >/proc/sys/kernel/pid_max; then
		echo "# pid_max raised from $have to $want, as systemd hosts have it (ZDTM_PID_MAX=keep leaves it)"
	else
		echo "# pid_max stays $have: it could not be raised"
	fi
}
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad --repeat $REPEAT (REPEAT)" >&2; exit 2; }
[[ "$LOAD" =~ ^[0-9]+$ ]] || { echo "run.sh: bad --load $LOAD (LOAD)" >&2; exit 2; }

# ---------------------------------------------------------------- background load (--load N)
# N jobs, each in a session of its own, that fork and exec a short-lived program and spin the CPU in turn;
# stopped (whole process groups) when the runner exits; each job also ends by itself once the runner is gone (a
# runner killed by SIGKILL runs no trap: its jobs would spin on and load the machine for hours).
LOADPIDS=()
load_start() {
	local i
	for ((i = 0; i < LOAD; i++)); do
		setsid bash -c 'while kill -0 "$1" 2>/dev/null; do /bin/true; (:); for ((i = 0; i < 3000; i++)); do :; done; done' \
			load "$$" </dev/null >/dev/null 2>&1 &
		LOADPIDS+=($!)
	done
	[ "$LOAD" -gt 0 ] && echo "# load: $LOAD CPU- and fork-heavy jobs (${LOADPIDS[*]})"
	return 0
}
load_stop() {
	local p
	for p in "${LOADPIDS[@]+"${LOADPIDS[@]}"}"; do kill -KILL -- "-$p" "$p" 2>/dev/null; done
	for p in "${LOADPIDS[@]+"${LOADPIDS[@]}"}"; do wait "$p" 2>/dev/null; done
	LOADPIDS=()
}

# ---------------------------------------------------------------- .desc files
# One "key: value" per line, '#' comments. Keys: opts, args, skip, flags, arch, mode-skip, snap-ignore, tty, inhfd,
# restore-expect, cgroups, ipc-keys (ns_left; @PID@ in a cgroup is the test's pid), pre-restore (a shell command run
# before each restore with $TPID set, e.g. to remove the test's cgroups), dump-expect (the dump must fail with one line holding this
# text), cuns-dump-expect (the same in mode cuns only), dump-notice (a dump that works must say this text on stderr, e.g. a state it could not save), user-dump-notice (the same in mode user only), ns (always: the test runs in its own namespaces and root in every mode), ns-skip (why the test cannot
# run in mode ns), uns-skip (why not in modes uns and cuns), uns-partial-skip (why not in mode uns, whose user
# namespace owns only the network, IPC and UTS namespaces), cuns-skip (why not in mode cuns, nor rootless), rootless-skip (why not in mode rootless), host-agent (yes: host_agent_start), needs-root (mode user: skipped, with this reason), user-refuse (mode user: crshim must refuse
# with one line naming this capability; see modes.sh), user-start: root (mode user: root starts the test),
# test-opts (yes: the running test wrote options of its own to test.opts in its dir, one per line), env (one
# VAR=value in the environment of the test's run, its crshim calls too, e.g. LC_ALL=C).
# static/NAME or transition/NAME
test_dir() {
	if [ -f "$HERE/transition/$1.c" ] && [ ! -f "$HERE/static/$1.c" ]; then echo transition; else echo static; fi
}

desc_get() { # name key: the value of "key:" in the test's .desc (shell builtins only: called ~15 times a test)
	local f="$HERE/static/$1.desc" l
	[ -f "$HERE/transition/$1.c" ] && [ ! -f "$HERE/static/$1.c" ] && f="$HERE/transition/$1.desc"
	[ -f "$f" ] || return 0
	while IFS= read -r l || [ -n "$l" ]; do
		[[ "$l" == "$2:"* ]] || continue
		l=${l#"$2:"}
		printf '%s\n' "${l#"${l%%[![:space:]]*}"}"
		return 0
	done <"$f"
}

is_noauto() {
	[[ " $(desc_get "$1" flags) " == *" noauto "* ]]
}

all_tests() {
	local f n
	for f in "$HERE"/static/*.c "$HERE"/transition/*.c; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .c)
		is_noauto "$n" || echo "$n"
	done
}

# ---------------------------------------------------------------- snapshots
# What the outside can see of a task (maps, fds, status, process tree): stable across C/R if the restore is right.
# lib/snap.c says what is compared and what SNAP_IGNORE (the .desc's snap-ignore) leaves out.
snapshot() { # pid
	SNAP_IGNORE=${SNAP_IGNORE:-} "$BIN/zdtm_snap" "$1" 2>&1
}

status_field() { # pid key (builtins only: polled)
	# the file in one read: read line by line, bash reads it again for every line, and a task that
	# changes meanwhile (its State) shifts the lines under it (a line lost: "traced by " with no pid)
	local s='' l
	IFS= read -r -d '' s 2>/dev/null <"/proc/$1/status"
	s=$'\n'$s
	l=${s#*$'\n'"$2":}
	[ "$l" != "$s" ] || return 0
	l=${l%%$'\n'*}
	printf '%s\n' "${l#"${l%%[![:space:]]*}"}"
}

# alive = exists and not a zombie
alive() {
	local st
	[ -e "/proc/$1" ] || return 1
	st=$(status_field "$1" State)
	[ -n "$st" ] && [ "${st:0:1}" != Z ] && [ "${st:0:1}" != X ]
}

# A test's .desc `timeout: N` (a big tree, slow to start, dump, restore and end on a loaded machine): N seconds
# at least for each crshim call (CTIMEOUT), each wait for the test (start, gone after the dump, PID free, exit
# after SIGTERM: wait_gone and wait_free) for that test; ZDTM_TIMEOUT, if larger, still holds for the calls.
test_timeout() { # name: sets CTIMEOUT and TWAIT for it; 1 (REASON set) if its timeout: is no number
	local t
	t=$(desc_get "$1" timeout)
	CTIMEOUT=$CTIMEOUT0 TWAIT=0
	[ -n "$t" ] || return 0
	[[ "$t" =~ ^[1-9][0-9]*$ ]] || { REASON="bad 'timeout: $t' in its .desc (seconds)"; return 1; }
	TWAIT=$t
	[ "$t" -le "$CTIMEOUT" ] || CTIMEOUT=$t
}

twait() { # seconds: the larger of it and the test's timeout
	echo $(($1 > TWAIT ? $1 : TWAIT))
}

wait_gone() { # pid seconds (at least the test's timeout: twait)
	local n=$(($(twait "$2") * 20))
	while alive "$1"; do
		n=$((n - 1))
		[ $n -le 0 ] && return 1
		sleep 0.05
	done
	return 0
}

# Wait for the pid to disappear completely (not even a zombie): restore needs it free.
wait_free() { # pid seconds (at least the test's timeout: twait)
	local n=$(($(twait "$2") * 20))
	while [ -e "/proc/$1" ]; do
		n=$((n - 1))
		[ $n -le 0 ] && return 1
		sleep 0.05
	done
	return 0
}

# ---------------------------------------------------------------- one test
DIAG=()
diag() { DIAG+=("$@"); }
diag_file() { # file [lines]
	local l
	[ -f "$1" ] || { diag "($1 missing)"; return; }
	diag "--- tail of ${1##*/}:"
	while IFS= read -r l; do diag "  $l"; done < <(tail -n "${2:-15}" "$1")
}

REASON=
TPID=
TDIR=

bad() { REASON=$1; return 0; }

# inhfd: yes: the test's keeper (lib/inhfd.c) wrote the --external value for the dump (inhfd.ext, may be
# empty) and the --inherit-fd key (inhfd.key); zdtm_inhfd gets the fd from the keeper for each restore.
inhfd_ext() {
	[ "$INHFD" = yes ] && [ -s "$TDIR/inhfd.ext" ] && [ -n "$(cat "$TDIR/inhfd.ext")" ] || return 0
	echo "--external=$(cat "$TDIR/inhfd.ext")"
}

# ---------------------------------------------------------------- namespaces (mode ns, .desc ns: always)
# The test starts as PID 1 of new PID, mount, net, IPC and UTS namespaces under $TDIR/root (lib/ns.c); the
# host paths it needs are bound into it at the same place and named as external mounts at dump and restore.
NSDUMP=()
NSRST=()
ns_setup() { # name
	NSDUMP=() NSRST=()
	unset ZDTM_NSROOT ZDTM_NSBINDS ZDTM_NSUSER ZDTM_NSUSER_ALL SNAP_NSPID
	ns_mode || [ "$(desc_get "$1" ns)" = always ] || return 0
	local binds=(ro=/usr ro=/etc "ro=$BIN" "rw=$TDIR") b i=0
	mkdir -p "$TDIR/root" || return 1
	export ZDTM_NSROOT="$TDIR/root" ZDTM_NSBINDS
	ZDTM_NSBINDS=$(IFS=,; echo "${binds[*]}")
	NSRST=(--root "$TDIR/root")
	# .desc ns-ext: auto: the binds are not named, the dump finds them (--external mnt[]) and the restore
	# binds them from where it found them (--ext-mount-map auto)
	if [ "$(desc_get "$1" ns-ext)" = auto ]; then
		binds=()
		NSDUMP=(--external "mnt[]")
		NSRST+=(--ext-mount-map auto)
	fi
	for b in "${binds[@]}"; do
		NSDUMP+=(--external "mnt[${b#*=}]:nsmnt$i")
		# /etc's with CRIU's older spelling, --ext-mount-map KEY:PATH
		if [ "${b#*=}" = /etc ]; then
			NSRST+=(--ext-mount-map "nsmnt$i:${b#*=}")
		else
			NSRST+=(--external "mnt[nsmnt$i]:${b#*=}")
		fi
		i=$((i + 1))
	done
	if [ "$ROOTLESS" = 1 ]; then # the test's uid 0 is ZDTM_USER here
		chown -R "$ZDTM_USER:" "$TDIR" || return 1
	elif [ "$UNS" = 1 ] && ns_mode; then
		# the test's uid 0 is ${UNS_MAP#* } here: its dir is its
		export ZDTM_NSUSER="$UNS_MAP"
		local u=${UNS_MAP#* }
		u=${u%% *}
		chown -R "$u:$u" "$TDIR" || return 1
	fi
	if [ "$CUNS" = 1 ] && ns_mode; then
		export ZDTM_NSUSER_ALL=1 SNAP_NSPID=1
		for b in null zero full random urandom tty; do # lib/ns.c devs()
			NSDUMP+=(--external "mnt[/dev/$b]:nsdev$b")
			NSRST+=(--external "mnt[nsdev$b]:/dev/$b")
		done
	fi
}

# .desc host-agent: yes: a shell in the runner's namespaces (the host's) runs the commands the test puts into
# $TDIR/host.req (ns_world.h nsw_hsh), in every mode: what a test in namespaces of its own cannot see or reach
# (modes ns and uns: no path to the host's). Output in host.out, status in host.rc; host.stop ends it.
HAGENT=
host_agent_start() { # name
	HAGENT=
	unset ZDTM_HOSTAGENT
	[ "$(desc_get "$1" host-agent)" = yes ] || return 0
	mkfifo "$TDIR/host.wake" || return 1
	(
		cd "$TDIR" || exit 1
		exec 9<>host.wake
		until [ -e host.stop ]; do
			if [ -e host.req ] && mv host.req host.run; then
				timeout -k 5 60 bash host.run >host.out 2>&1 </dev/null
				echo $? >host.rc.new && mv host.rc.new host.rc
			fi
			read -r -t 0.05 -u 9 _
		done
	) &
	HAGENT=$!
	export ZDTM_HOSTAGENT=$TDIR
}

host_agent_stop() {
	unset ZDTM_HOSTAGENT
	[ -n "$HAGENT" ] || return 0
	touch "$TDIR/host.stop"
	wait "$HAGENT"
	HAGENT=
}

crshim_dump() { # dir extra-opts...
	local d=$1; shift
	local ext
	ext=$(inhfd_ext)
	mkdir -p "$d"
	[ ${#USERRUN[@]} = 0 ] || chown "$ZDTM_USER:" "$d"
	timeout -k 5 "$CTIMEOUT" "${USERRUN[@]}" "${DUMP_CRSHIM:-$CRSHIM}" "${DUMPVERB:-dump}" -t "$TPID" -D "$d" -o dump.log \
		-v4 "$@" ${ext:+"$ext"} "${NSDUMP[@]}" "${OPTS[@]}" >"$d/dump.out" 2>&1
	crshim_status dump "$d" $? || return 1
	local say # .desc dump-notice (user-dump-notice in mode user): a line of the dump's stderr holds it
	say=$(desc_get "${name:-}" dump-notice) # (mode group: no name)
	[ "$MODE" != user ] || [ -z "$(desc_get "$name" user-dump-notice)" ] || say=$(desc_get "$name" user-dump-notice)
	if [ -n "$say" ] && [ "${DUMPVERB:-dump}" = dump ] && ! grep -qF -- "$say" "$d/dump.out"; then
		diag_file "$d/dump.out" 5
		bad "the dump did not say '$say'"
		return 1
	fi
}

crshim_status() { # step dir rc: 0 when rc is, else why the step (dump, restore) failed, from its .out and .log
	local what=$1 d=$2 rc=$3
	[ "$rc" -eq 0 ] && return 0
	diag_file "$d/$what.out" 5
	diag_file "$d/$what.log" 20
	[ "$rc" -eq 124 ] && bad "$what timed out after ${CTIMEOUT}s" && return 1
	bad "$what failed (exit $rc): $(head -c 300 "$d/$what.out" | head -n1)"
	return 1
}

pre_restore() { # (mode group restores many tests at once: no name, no pre-restore)
	local c
	c=$(desc_get "${name:-}" pre-restore)
	[ -z "$c" ] || TPID=$TPID sh -c "$c"
}

crshim_restore() { # dir
	local d=$1
	pre_restore
	rm -f "$TDIR/restore.pid"
	local inh=() inhrun=()
	if [ "$INHFD" = yes ]; then
		inhrun=("$BIN/zdtm_inhfd" "$TDIR/inhfd.sock" 100)
		inh=(--inherit-fd "fd[100]:$(cat "$TDIR/inhfd.key")")
	fi
	# the restore's checks alone first (restore --check-only, engine/restore-check.c): these images pass them
	# (an --inherit-fd restore: its fd is taken from the keeper once, by the restore itself)
	if [ "$INHFD" != yes ]; then
		timeout -k 5 "$CTIMEOUT" "${USERRUN[@]}" "$CRSHIM" restore --check-only -D "$d" -o restore-check.log -v4 \
			"${NSRST[@]}" "${OPTS[@]}" "${ROPTS[@]}" >"$d/restore-check.out" 2>&1
		crshim_status restore-check "$d" $? || return 1
	fi
	timeout -k 5 "$CTIMEOUT" "${USERRUN[@]}" "${TTYRUN[@]}" "${inhrun[@]}" "$CRSHIM" restore -D "$d" -o restore.log -v4 -d \
		--pidfile "$TDIR/restore.pid" "${inh[@]}" "${NSRST[@]}" "${OPTS[@]}" "${ROPTS[@]}" >"$d/restore.out" 2>&1
	crshim_status restore "$d" $? || return 1
	local rpid
	rpid=$(tr -d ' \n' <"$TDIR/restore.pid" 2>/dev/null)
	[ -n "$rpid" ] || { diag_file "$d/restore.log" 20; bad "restore wrote no --pidfile"; return 1; }
	# mode cuns: the tree is born in its user namespace, which cannot choose PIDs in ours: fresh ones
	if [ "$CUNS" = 1 ] && [ "$rpid" != "$TPID" ]; then
		TPID=$rpid
		echo "$TPID" >"$TDIR/test.pid"
	fi
	[ "$rpid" = "$TPID" ] || { bad "restored pid $rpid != original $TPID"; return 1; }
	alive "$TPID" || { diag_file "$d/restore.log" 20; diag_file "$TDIR/test.out" 10; bad "restored task $TPID is not running"; return 1; }
}

# flags: restore-busy (checkpoint mode): restoring while the pid is still in use
# must fail cleanly (exit 1, one stderr line) and leave the running task alone; so must restore --check-only
# (first: the same refusal, nothing made).
restore_busy() { # dir
	local d=$1 rc how want
	for how in --check-only -d; do
		timeout -k 5 "$CTIMEOUT" "$CRSHIM" restore "$how" -D "$d" -o restore-busy.log -v4 \
			--pidfile "$TDIR/busy.pid" "${OPTS[@]}" "${ROPTS[@]}" >"$d/busy.out" 2>&1
		rc=$?
		if [ $rc -ne 1 ] || [ "$(grep -c . "$d/busy.out")" -ne 1 ]; then
			diag_file "$d/busy.out" 5
			diag_file "$d/restore-busy.log" 10
			bad "restore $how while pid $TPID is in use: exit $rc with $(grep -c . "$d/busy.out") stderr lines, want exit 1 and one line"
			return 1
		fi
		want=$(desc_get "$name" restore-expect)
		if [ -n "$want" ] && ! grep -qF -- "$want" "$d/busy.out"; then
			diag_file "$d/busy.out" 5
			bad "restore $how refused, but not with '$want'"
			return 1
		fi
		diag "refused as expected ($how): $(head -n1 "$d/busy.out")"
	done
	alive "$TPID" || { bad "the running task died when a restore of its pid was refused"; return 1; }
	compare_snap "a refused restore of a busy pid" "$TDIR/snap.busy" || return 1
}

# The reference snapshot, taken as soon as the test is ready (mode group: by each member's starter, through
# run.sh --snap). The test may still be on its way into its wait (mask, state): once two in a row agree.
snap_ref() { # pid file
	local tries=40
	snapshot "$1" >"$2"
	while [ $tries -gt 0 ]; do
		sleep 0.05
		snapshot "$1" >"$2.b"
		cmp -s "$2" "$2.b" && break
		mv "$2.b" "$2"
		tries=$((tries - 1))
	done
	rm -f "$2.b"
}

compare_snap() { # label file
	local l tries=20
	# A task just restored (or released) may still be on its way back into its
	# syscall (restorer exit, sigreturn, syscall restart): allow it up to ~1 s to
	# settle; a real difference stays and is reported.
	snapshot "$TPID" >"$2"
	while ! cmp -s "$TDIR/snap.0" "$2" && [ $tries -gt 0 ]; do
		sleep 0.05
		tries=$((tries - 1))
		snapshot "$TPID" >"$2"
	done
	if ! cmp -s "$TDIR/snap.0" "$2"; then
		diag "--- diff before/after $1 (- before, + after):"
		while IFS= read -r l; do diag "  $l"; done < <(diff -U0 "$TDIR/snap.0" "$2" | grep -v '^\(---\|+++\)' | head -n 40)
		bad "state seen from outside changed after $1"
		return 1
	fi
}

check_running() { # after leave-running dump
	local st tr
	alive "$TPID" || { bad "task died during dump --leave-running"; return 1; }
	st=$(status_field "$TPID" State)
	case "${st:0:1}" in
	T|t) bad "task left stopped after dump --leave-running ($st)"; return 1 ;;
	esac
	tr=$(status_field "$TPID" TracerPid)
	[ "$tr" = 0 ] || { bad "task still traced by $tr after dump --leave-running"; return 1; }
}

# ---------------------------------------------------------------- mode fault
# One test under fault point FPOINT (FKIND fatal|degrade), with CRSHIM_FAULT set for that crshim call only.
# fatal dump-*: exit 1 naming the point, the task running untraced and unchanged, no inventory.img and no
#   other file left in the images dir; the test still PASSes at SIGTERM (below).
# fatal restore*: a normal dump, then the faulty restore: exit 1 naming the point, the pid gone, no new
#   process, the images unchanged; then a normal restore of the same images passes.
# degrade: dump and restore both with the fault, the point must fire (log) and C/R must pass.
img_sum() { # dir: names and contents of everything but logs and our output
	(cd "$1" && find . -type f ! -name '*.log' ! -name '*.out' -printf '%P\n' | sort | xargs -r md5sum)
}

sock_files() { # socket files under the test's dir: path, inode, ctime (a new file may reuse the inode)
	find "$TDIR" -type s -printf '%P %i %C@\n' 2>/dev/null | sort
}

lock_left() { # who: with --tcp-established, no network lock of the test may stay (nft table crshim_PID)
	if [[ " ${OPTS[*]} " == *" --tcp-established "* ]] && command -v nft >/dev/null &&
		nft list tables 2>/dev/null | grep -q -w "crshim_$TPID"; then
		bad "$1 left the network lock (nft table inet crshim_$TPID)"
		return 1
	fi
}

sysv_left() { # dir: System V shm segments of the images (ipc-shm.img) that exist (a failed restore removes them)
	[ -e "$1/ipc-shm.img" ] || return 0
	local ids
	ids=$("$CRSHIM" show "$1/ipc-shm.img" 2>/dev/null | sed -n 's/^ *"id": \([0-9]*\).*/\1/p')
	for i in $ids; do awk -v i="$i" 'NR > 1 && $2 == i { print i }' /proc/sysvipc/shm; done | tr '\n' ' '
}

reaper_kids() { # processes the reaper adopted, except us
	[ -n "${ZDTM_REAPER_PID:-}" ] || return 0
	ps -o pid= --ppid "$ZDTM_REAPER_PID" 2>/dev/null | tr -d ' ' | grep -v -x -e "$$" | sort
}

# What a dump puts into the tasks it reads and must take out again: the mappings (its scratch mapping with its code)
# and the pipe fds of every process of the test's tree; compared before and after a dump that failed (the snapshot has the root's maps and fds only).
# One grep over every maps file and one find over every fd dir (a process gone meanwhile is skipped): a readlink per
# fd took over 20 minutes for sk_unix_many_tree's 12040 fds on a loaded machine.
tree_vm_pipes() {
	local pids
	pids=$(tree_pids "$TPID")
	[ -n "$pids" ] || return 0
	{
		# shellcheck disable=SC2086 # (one word each)
		grep -H '' $(printf '/proc/%s/maps ' $pids) 2>/dev/null |
			awk '{ a = $1; sub(/^[^:]*:/, "", a); split($1, f, "/"); print "process " f[3] ": mapping " a " " $2 " " $6 }'
		# shellcheck disable=SC2046,SC2086
		find $(printf '/proc/%s/fd ' $pids) -mindepth 1 -maxdepth 1 -lname 'pipe:*' -printf '%h %f %l\n' 2>/dev/null |
			awk '{ split($1, f, "/"); print "process " f[3] ": fd " $2 " " $3 }'
	} | sort
}

expect_fault_fail() { # verb rc outfile
	if [ "$2" -ne 1 ] || [ "$(grep -c . "$3")" -ne 1 ] || ! grep -q "fault injected at $FPOINT" "$3"; then
		diag_file "$3" 5
		bad "$1 under $FPOINT: exit $2 with $(grep -c . "$3") stderr lines, want exit 1 and one line naming the point"
		return 1
	fi
	diag "$1: $(head -n1 "$3")"
}

# A point that did not fire for the test (its dump or restore never reached it): 1 when the point's own set
# (fault_own_tests) names the test, a failure (the point stopped firing); else 0 with FNOFIRE set, the reason:
# the run goes on as one of mode cr (a dump that passed is restored) and the test, which must still PASS, is
# reported skipped at its end (run_steps). So TEST... on the command line under FAULT=all skips the points
# that test does not reach.
FNOFIRE=
fault_nofire() { # what-passed
	local own
	own=$(fault_own_tests "$FPOINT")
	[[ " $own " != *" $name "* ]] || return 1
	FNOFIRE="did not fire for it ($1); not in the point's own set"
	diag "point $FPOINT did not fire ($1); its own set (fault_own_tests): $own"
}

fault_steps() {
	local d="$TDIR/dump" out="$TDIR/fault.out" rc left sum0 sum1 kids0 kids1 socks0 mnts0 p rpid
	if [ "$FKIND" = degrade ]; then
		CRSHIM_FAULT=$FPOINT crshim_dump "$d" || return 1
		wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
		wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
		CRSHIM_FAULT=$FPOINT crshim_restore "$d" || return 1
		grep -q "fault injected at $FPOINT" "$d/dump.log" "$d/restore.log" ||
			fault_nofire "not in dump.log/restore.log" ||
			{ bad "point $FPOINT did not fire (not in dump.log/restore.log)"; return 1; }
		compare_snap "C/R under $FPOINT" "$TDIR/snap.1" || return 1
		return 0
	fi
	if [[ "$FPOINT" == dump-* ]]; then
		local vm0 fopts=()
		vm0=$(tree_vm_pipes)
		mkdir -p "$d"
		eval "fopts=($(desc_get "$name" fault-dump-opts))"
		# (the failed dump's line stays in fault.out: a test may check what it says against what it sees)
		CRSHIM_FAULT=$FPOINT timeout -k 5 "$CTIMEOUT" "$CRSHIM" dump -t "$TPID" -D "$d" -o dump.log -v4 \
			"${NSDUMP[@]}" "${OPTS[@]}" "${fopts[@]}" >"$out" 2>&1
		rc=$?
		if [ $rc = 0 ] && ! grep -q "fault injected at $FPOINT" "$out" "$d/dump.log" && fault_nofire "the dump passed"; then
			wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
			wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
			crshim_restore "$d" || { REASON="restore of the dump that passed: $REASON"; return 1; }
			compare_snap "C/R ($FPOINT did not fire)" "$TDIR/snap.1" || return 1
			return 0
		fi
		expect_fault_fail dump $rc "$out" || return 1
		sleep 0.1
		check_running || { REASON="after a dump failed at $FPOINT: $REASON"; return 1; }
		compare_snap "a dump failed at $FPOINT" "$TDIR/snap.1" || return 1
		left=$(comm -13 <(echo "$vm0") <(tree_vm_pipes) | grep . | head -n 5 | tr '\n' ';')
		[ -z "$left" ] || { bad "the failed dump left in the tree: $left"; return 1; }
		[ ! -e "$d/inventory.img" ] || { bad "the failed dump left inventory.img"; return 1; }
		left=$(cd "$d" && ls -A | grep -v -x -e dump.log | tr '\n' ' ')
		[ -z "$left" ] || { bad "the failed dump left files: $left"; return 1; }
		lock_left "the failed dump" || return 1
		# fault-redump: yes: then a dump and a restore of the tree that went on, as in mode cr (what the
		# failed dump put back must be saved as what it is)
		if [ "$(desc_get "$name" fault-redump)" = yes ]; then
			crshim_dump "$TDIR/dump2" || { REASON="the dump after the failed one: $REASON"; return 1; }
			wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
			wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
			crshim_restore "$TDIR/dump2" || { REASON="the restore after the failed dump: $REASON"; return 1; }
			compare_snap "C/R after a dump failed at $FPOINT" "$TDIR/snap.1" || return 1
		fi
		return 0
	fi
	crshim_dump "$d" || return 1
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	sum0=$(img_sum "$d")
	kids0=$(reaper_kids)
	socks0=$(sock_files)
	mnts0=$(test_mounts)
	pre_restore
	local inh=() inhrun=() # (inhfd: the keeper's fd, e.g. a network namespace the restore checks early)
	if [ "$INHFD" = yes ]; then
		inhrun=("$BIN/zdtm_inhfd" "$TDIR/inhfd.sock" 100)
		inh=(--inherit-fd "fd[100]:$(cat "$TDIR/inhfd.key")")
	fi
	CRSHIM_FAULT=$FPOINT timeout -k 5 "$CTIMEOUT" "${inhrun[@]}" "$CRSHIM" restore -D "$d" -o restore-fault.log -v4 -d \
		--pidfile "$TDIR/fault.pid" "${inh[@]}" "${NSRST[@]}" "${OPTS[@]}" "${ROPTS[@]}" >"$out" 2>&1
	rc=$?
	if [ $rc = 0 ] && ! grep -q "fault injected at $FPOINT" "$out" "$d/restore-fault.log" &&
		fault_nofire "the restore passed"; then
		rpid=$(tr -d ' \n' <"$TDIR/fault.pid" 2>/dev/null)
		# (mode cuns: fresh PIDs, as crshim_restore takes them)
		[ "$CUNS" = 1 ] && [ -n "$rpid" ] && TPID=$rpid && echo "$TPID" >"$TDIR/test.pid"
		if [ "$rpid" != "$TPID" ] || ! alive "$TPID"; then
			diag_file "$d/restore-fault.log" 20
			bad "the restore that passed left no task $TPID running (pidfile: $rpid)"
			return 1
		fi
		compare_snap "a restore ($FPOINT did not fire)" "$TDIR/snap.1" || return 1
		return 0
	fi
	expect_fault_fail restore $rc "$out" || return 1
	wait_free "$TPID" 5 || { bad "the failed restore left pid $TPID ($(status_field "$TPID" State))"; return 1; }
	kids1=$(reaper_kids)
	# (the tree's processes crshim killed but did not reap, its root's children, are the reaper's to reap)
	for _ in $(seq 30); do [ "$kids0" = "$kids1" ] && break; sleep 0.1; kids1=$(reaper_kids); done
	[ "$kids0" = "$kids1" ] || { bad "the failed restore left processes: $(comm -13 <(echo "$kids0") <(echo "$kids1") | tr '\n' ' ')"; return 1; }
	sum1=$(img_sum "$d")
	[ "$sum0" = "$sum1" ] || { bad "the failed restore changed the images"; return 1; }
	left=$(comm -13 <(echo "$socks0") <(sock_files) | grep . | tr '\n' ' ')
	[ -z "$left" ] || { bad "the failed restore left socket files: $left"; return 1; }
	left=$(sysv_left "$d")
	[ -z "$left" ] || { bad "the failed restore left System V shared memory segments: $left"; return 1; }
	left=$(comm -13 <(echo "$mnts0") <(ns_left) | grep . | tr '\n' ' ')
	[ -z "$left" ] || { bad "the failed restore left $left"; return 1; }
	lock_left "the failed restore" || return 1
	if [[ " ${OPTS[*]} " == *" --tcp-established "* ]]; then
		# the connections were only in the images and their lock is gone: a retry needs a new dump; the
		# test and its peers outside the tree (lib/sockpeer.c, adopted by the reaper) go
		diag "--tcp-established: no retry of the same images; test and peers killed"
		for p in $(comm -13 <(echo "$KIDS_START") <(echo "$kids0")); do kill -KILL "$p" 2>/dev/null; done
		return 3
	fi
	crshim_restore "$d" || { REASON="normal restore after the failure: $REASON"; return 1; }
	compare_snap "a restore after a failure at $FPOINT" "$TDIR/snap.1" || return 1
}

# What a failed restore of a namespace test may not leave here (ns/): the outer end of a veth named by
# --external veth[IFNAME]:OUTNAME in the test's opts, cgroups named in its .desc (cgroups: DIR under
# /sys/fs/cgroup/*), System V semaphores and message queues of sem/msg keys in its .desc (ipc-keys: KEY, decimal
# as /proc/sysvipc shows them).
ns_left() {
	local o n k c
	for o in "${OPTS[@]}"; do
		[[ $o == veth\[*\]:* ]] || continue
		n=${o#*]:}
		n=${n%%@*}
		ip link show "$n" >/dev/null 2>&1 && echo "network device $n"
	done
	for c in $(desc_get "$name" cgroups); do
		c=${c//@PID@/$TPID}
		for k in /sys/fs/cgroup/*/"$c" /sys/fs/cgroup/"$c"; do
			[ -d "$k" ] && echo "cgroup $k"
		done
	done
	for k in $(desc_get "$name" ipc-keys); do
		awk -v k="$k" 'NR > 1 && $1 == k { print "System V object of key " k }' /proc/sysvipc/sem /proc/sysvipc/msg
	done
	test_mounts
}

# The mounts under the test's dir (its --root) here or in the namespace of pid 1 (those the test made itself in
# the runner's namespace were there before the restore: ns_left's caller leaves them out), each with its id: one
# stacked on a mount point the test had is seen
test_mounts() {
	awk -v d="$TDIR" 'index($5, d) == 1 { print "mount " $5 " (id " $1 ")" }' /proc/self/mountinfo /proc/1/mountinfo | sort -u
}

# Tests run under a point: TEST... on the command line for all points, FAULT_TESTS for the fatal ones;
# otherwise a few that exercise the point (the fallbacks need the memory/timer tests), 4-7 for the fatal ones
# (trees: fork00, and subreaper00 whose restore has helper tasks for dead session leaders; pidns00 and pidns_tree:
# a PID namespace's init that fails takes its namespace with it, the error must still name the point).
# (posix_timers is only under no-timer-restore-ids: its CPU-time timer misses ticks on a loaded machine.)
fault_tests() { # point
	if [ ${#NAMES[@]} -gt 0 ]; then
		echo "${NAMES[*]}"
		return
	fi
	fault_own_tests "$1"
}

# The point's own set, the tests that must reach it: one of them for which the point did not fire fails (a
# point that stopped firing); a test named on the command line outside it is skipped then (fault_nofire).
fault_own_tests() { # point
	case "$1" in
	no-timer-restore-ids) echo "posix_timers itimers pid" ;;
	timer-signals-early) echo "posix_timer_overrun_thread posix_timer_overrun sig_pending" ;;
	dump-timer-taken) echo "${FAULT_TESTS:-posix_timer_pending_overrun posix_timer_pending_rel}" ;;
	dump-timer-stale) echo "${FAULT_TESTS:-posix_timer_stale_back posix_timer_pending_rel posix_timer_stale_near}" ;;
	dump-timer-rearm) echo "${FAULT_TESTS:-posix_timer_stale_back posix_timer_stale_near}" ;;
	dump-timer-lost) echo "${FAULT_TESTS:-posix_timer_stale_lost}" ;;
	restore-cgroup-mid) echo "${FAULT_TESTS:-cgroup_soft cgroup_strict}" ;;
	restore-mnt-mid) echo "${FAULT_TESTS:-nsmnt_submounts nsmnt_tmpfs_files nsmnt_bind_file nsmnt_overmount}" ;;
	restore-mnt-late) echo "${FAULT_TESTS:-nsmnt_ghost nsmnt_sk_unix}" ;;
	restore-mnt-nested) echo "${FAULT_TESTS:-nsmnt_child_ns nsmnt_child_pivot nsmnt_child_sock nsmnt_child_back}" ;;
	restore-ns-net-mid) echo "${FAULT_TESTS:-sk_unix_netns netns_veth_ext netns_routes}" ;;
	restore-ns-made|dump-ns) echo "${FAULT_TESTS:-pid pidns00 sk_unix_netns netns_veth_ext uts_hostname timens_offsets ipcns_sem ipcns_msg ipcns_shm}" ;;
	no-prefill) echo "mem_256m heap_brk vma_many" ;;
	tcp-queue-changed) echo "sk_inet_tcp_established sk_inet6_tcp_established sk_inet_tcp_loop" ;;
	no-populate) echo "mem_256m mem_sparse heap_brk stack_grow" ;;
	no-pagemap-scan|no-vm-readv) echo "mem_sparse mprotect_sub vma_many file_map_private shm_anon mem_big_vmas" ;;
	no-vdso-syscall) echo "pid sig_handlers itimers vdso_clock" ;;
	# (cow_own_tree: a failed dump must leave the tree's copy-on-write sharing as it was; dump-mm.c reads
	# shared pages through /proc/PID/mem, as process_vm_readv's pin would unshare them)
	dump-mm-mid|dump-enospc|dump-img-write) echo "${FAULT_TESTS:-mem_256m vma_many fd_files sig_pending fork00 cow_own_tree}" ;;
	dump-before-kill) echo "${FAULT_TESTS:-pid fd_files sig_pending shm_anon thread00 fork00 subreaper00 zombie_leader pidns00 pidns_tree cow_own_tree posix_timer_fault_count posix_timer_fault_count_lr}" ;;
	dump-restore-check) echo "${FAULT_TESTS:-pid fd_files sig_pending shm_anon thread00 fork00 subreaper00 zombie_leader pidns00 pidns_tree cow_own_tree}" ;;
	restore-before-load|restore-after-load|restore-after-detach) echo "${FAULT_TESTS:-pid fd_files sig_pending shm_anon shm_sysv_rmid thread00 fork00 subreaper00 zombie_leader sk_unix_bound_path sk_inet_tcp_established pidns00 pidns_tree}" ;;
	restorer-before-creds|restore-before-resume) echo "${FAULT_TESTS:-pid fd_files sig_pending creds thread00 fork00 subreaper00 zombie_leader pidns00 pidns_tree}" ;;
	*) echo "${FAULT_TESTS:-pid fd_files sig_pending shm_anon thread00 fork00 subreaper00 zombie_leader pidns00 pidns_tree}" ;;
	esac
}

run_fault_mode() {
	local points p nr name kind tests total=0 t
	# The points of incremental dumps need a chain: mode snaps tests them (SNAPS_FAULT=NAME); restore-lazy-mid
	# needs lazy-pages: mode lazy (LAZY_FAULT=restore-lazy-mid).
	mapfile -t points < <("$CRSHIM" check --faults | awk -v f="$FAULT" 'NR > 1 && (f == "all" || $1 == f || $2 == f) &&
		$2 != "predump-track-mid" && $2 != "dump-dedup" && $2 != "restore-lazy-mid" { print $1, $2, $4 }')
	[ ${#points[@]} -gt 0 ] || { echo "run.sh: no fault point '$FAULT' (crshim check --faults)" >&2; exit 2; }
	for p in "${points[@]}"; do
		read -r nr name kind <<<"$p"
		tests=$(fault_tests "$name")
		set -- $tests
		total=$((total + $#))
	done
	echo "1..$total"
	echo "# mode fault ($FAULT: ${#points[@]} points$([ "$NSWITH" = 1 ] && echo ", in the namespaces of mode $FAULT_NS")), crshim $CRSHIM, kernel $(uname -r)"
	trap 'cleanup_test; exit 130' INT TERM
	for p in "${points[@]}"; do
		read -r nr name kind <<<"$p"
		tests=$(fault_tests "$name")
		echo "# fault point $name ($nr, $kind): $tests"
		FPOINT=$name FKIND=$kind FPREFIX="$name: "
		for t in $tests; do
			run_test "$t"
		done
	done
	FPREFIX=
	for t in "${SKIPS[@]+"${SKIPS[@]}"}"; do echo "# skipped: $t"; done
	echo "# $FAILED of $total failed, $SKIPPED skipped, $((total - FAILED - SKIPPED)) passed (${#points[@]} points, ${SECONDS}s)"
	[ $FAILED -eq 0 ]
	exit $?
}

# ---------------------------------------------------------------- modes user and compat
USERRUN=()
# shellcheck source=tests/zdtm/modes.sh
. "$HERE/modes.sh"
# shellcheck source=tests/zdtm/pagesrv.sh
. "$HERE/pagesrv.sh"
# shellcheck source=tests/zdtm/lazy.sh
. "$HERE/lazy.sh"

# ---------------------------------------------------------------- mode group
# Several tests at once under one parent (zdtm_group, a subreaper that adopts the daemonized tests): the
# group's tree is dumped and restored as one, then each test is compared with its snapshot, stopped and
# must PASS. Tests with crshim options (.desc opts) or skipped ones are left out.
group_members() { # names...: the ones that can share one dump
	local t
	for t in "$@"; do
		[ -f "$HERE/$(test_dir "$t")/$t.c" ] || continue
		[ -z "$(desc_get "$t" skip)$(desc_get "$t" opts)$(desc_get "$t" ropts)$(desc_get "$t" env)" ] || continue
		local am ms
		am=$(desc_get "$t" arch)
		[ -z "$am" ] || [[ " $am " == *" $ARCH "* ]] || continue
		ms=$(desc_get "$t" mode-skip)
		[[ " $ms " != *" group "* ]] || continue
		echo "$t"
	done
}

# Every member is checked as in mode cr: its reference snapshot taken as soon as it is ready (its starter
# runs run.sh --snap before zdtm_group starts the next one), gone and its pid free after the dump, the same
# pid running after the restore, the snapshot unchanged, then SIGTERM and PASS.
group_start_cmd() { # test dir
	local t=$1 d=$2 bin args ign
	bin="$BIN/$(test_dir "$t")/$t"
	args=$(desc_get "$t" args)
	ign=$(desc_get "$t" snap-ignore | tr -s ' ' '|')
	printf '%s' "cd '$d' && timeout -k 5 $(twait 120) '$bin' --pidfile='$d/test.pid' --outfile='$d/test.out' $args >'$d/start.log' 2>&1 && ZDTM_REAPED=1 SNAP_IGNORE='$ign' '$HERE/run.sh' --snap '$d/test.pid' '$d/snap.0'"
}

group_member_check() { # rc-of-the-group-C/R: sets REASON, returns 1 on a failure
	[ "$1" = 0 ] || { bad "not restored"; return 1; }
	[ -s "$TDIR/snap.0" ] || { bad "no reference snapshot"; return 1; }
	alive "$TPID" || { diag_file "$TDIR/test.out" 10; bad "restored task $TPID is not running"; return 1; }
	compare_snap "the group's C/R" "$TDIR/snap.1" || return 1
	kill -TERM "$TPID" 2>/dev/null
	wait_gone "$TPID" 30 || { bad "test did not exit within $(twait 30)s after SIGTERM"; return 1; }
	if grep -q '^FAIL' "$TDIR/test.out" || ! grep -q '^PASS$' "$TDIR/test.out"; then
		diag_file "$TDIR/test.out" 10
		bad "$(grep -m1 '^FAIL' "$TDIR/test.out" || echo "no PASS")"
		return 1
	fi
}

group_cr() { # gpid: one dump and one restore of the whole group; every member gone in between
	local p
	crshim_dump "$TDIR/dump" || return 1
	for p in "$1" "${pids[@]}"; do
		wait_gone "$p" 10 || { bad "task $p still running after dump"; return 1; }
		wait_free "$p" 30 || { bad "pid $p still taken (zombie) after dump"; return 1; }
	done
	crshim_restore "$TDIR/dump"
}

run_group_mode() {
	local gdir gpid t i cmds=() members=() pids=() rc
	mapfile -t members < <(group_members "${NAMES[@]}")
	echo "1..$((${#members[@]} + 1))"
	echo "# mode group: ${members[*]}, crshim $CRSHIM, kernel $(uname -r)"
	[ ${#members[@]} -gt 0 ] || { echo "not ok 1 - group: no test to run"; exit 1; }
	gdir=$(mktemp -d "$TMPBASE/zdtm.group.XXXXXX") || exit 1
	local gto=$CTIMEOUT0 gwait=0 # the largest .desc timeout of the members holds for the whole group
	for t in "${members[@]}"; do
		test_timeout "$t" || { echo "not ok 1 - group: $t: $REASON"; exit 1; }
		[ "$TWAIT" -le "$gwait" ] || gwait=$TWAIT
		[ "$CTIMEOUT" -le "$gto" ] || gto=$CTIMEOUT
	done
	CTIMEOUT=$gto TWAIT=$gwait
	for t in "${members[@]}"; do
		mkdir -p "$gdir/$t"
		cmds+=("$(group_start_cmd "$t" "$gdir/$t")")
	done
	DIAG=()
	TDIR=$gdir TPID=
	if ! "$BIN/zdtm_group" "$gdir/group.pid" "${cmds[@]}" >"$gdir/group.log" 2>&1; then
		diag_file "$gdir/group.log" 5
		report fail "group" "the group did not start"
		for t in "${members[@]}"; do # the members that did start
			p=$(tr -d ' \n' <"$gdir/$t/test.pid" 2>/dev/null) && [ -n "$p" ] && ps -o pid= -s "$p" | xargs -r kill -KILL 2>/dev/null
		done
		exit 1
	fi
	gpid=$(tr -d ' \n' <"$gdir/group.pid")
	for t in "${members[@]}"; do
		pids+=("$(tr -d ' \n' <"$gdir/$t/test.pid")")
	done
	TDIR=$gdir TPID=$gpid OPTS=() ROPTS=()
	REASON=
	rc=0
	group_cr "$gpid" || rc=1
	if [ $rc = 0 ]; then
		report ok "group: dump + restore of ${#members[@]} tests under $gpid"
	else
		report fail "group: dump + restore of ${#members[@]} tests under $gpid" "$REASON"
	fi
	for i in "${!members[@]}"; do
		t=${members[$i]}
		DIAG=()
		REASON=
		TDIR=$gdir/$t TPID=${pids[$i]}
		SNAP_IGNORE=$(desc_get "$t" snap-ignore | tr -s ' ' '|')
		if group_member_check $rc; then
			report ok "$t"
		else
			report fail "$t" "$REASON"
		fi
	done
	for p in $( (tree_pids "$gpid"; ps -o pid= -s "$gpid") | sort -u); do kill -KILL "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do ps -o pid= -s "$p" | xargs -r kill -KILL 2>/dev/null; done
	[ $FAILED -eq 0 ] && [ $KEEP = 0 ] && rm -rf "$gdir"
	[ $FAILED -eq 0 ] || echo "# work dir: $gdir"
	echo "# $FAILED of $((${#members[@]} + 1)) failed"
	[ $FAILED -eq 0 ]
	exit $?
}

run_steps() { # name
	local name=$1 bin="$BIN/$(test_dir "$1")/$1" i d
	local args=()
	eval "args=($(desc_get "$name" args))"
	eval "OPTS=($(desc_get "$name" opts))"
	eval "ROPTS=($(desc_get "$name" ropts))"
	SNAP_IGNORE=$(desc_get "$name" snap-ignore | tr -s ' ' '|')
	# tty: yes: the test starts, and crshim restores it, on a terminal of its own (zdtm_pty: a new pty)
	TTYRUN=()
	[ "$(desc_get "$name" tty)" = yes ] && TTYRUN=("$BIN/zdtm_pty")
	INHFD=$(desc_get "$name" inhfd)

	[ -x "$bin" ] || { bad "not built: $bin"; return 1; }
	KIDS_START=$(reaper_kids) # mode fault: what the reaper had before the test (its peers are new)
	ns_setup "$name" || { bad "cannot make the test's root $TDIR/root"; return 1; }
	host_agent_start "$name" || { bad "cannot start the host agent in $TDIR"; return 1; }
	rootless_hold || { bad "mode rootless: $REASON"; return 1; }
	local startrun=("${USERRUN[@]}") # mode user: as the user, unless the test says user-start: root
	[ ${#ROOTLESS_START[@]} = 0 ] || startrun=("${ROOTLESS_START[@]}")
	[ "$(desc_get "$name" user-start)" != root ] || [ "$MODE" != user ] || startrun=()
	(cd "$TDIR" && ZDTM_RCWD=$TDIR exec timeout -k 5 "$(twait 120)" "${startrun[@]}" "${TTYRUN[@]}" "$bin" --pidfile="$TDIR/test.pid" --outfile="$TDIR/test.out" "${args[@]}") \
		>"$TDIR/start.log" 2>&1
	local rc=$?
	if grep -q '^SKIP:' "$TDIR/test.out" 2>/dev/null; then
		REASON="SKIP $(sed -n 's/^SKIP:[[:space:]]*//p' "$TDIR/test.out" | head -n1)"
		return 2
	fi
	if [ $rc -ne 0 ] || [ ! -s "$TDIR/test.pid" ]; then
		diag_file "$TDIR/start.log" 5
		diag_file "$TDIR/test.out" 10
		bad "test did not start (exit $rc)"
		return 1
	fi
	TPID=$(tr -d ' \n' <"$TDIR/test.pid")
	alive "$TPID" || { diag_file "$TDIR/test.out" 10; bad "test $TPID not running after start"; return 1; }
	snap_ref "$TPID" "$TDIR/snap.0"
	# test-opts: yes: options only the running test knows (e.g. a namespace inode in --external TYPE[INO/IF]),
	# one per line in its dir's test.opts, written before it was ready: for the dump and every restore
	if [ "$(desc_get "$name" test-opts)" = yes ]; then
		[ -s "$TDIR/test.opts" ] || { bad "test-opts: yes, but the test wrote no $TDIR/test.opts"; return 1; }
		local o
		while IFS= read -r o; do [ -z "$o" ] || OPTS+=("$o"); done <"$TDIR/test.opts"
	fi

	local runmode=$MODE dexp
	dexp=$(desc_get "$name" dump-expect)
	[ -n "$dexp" ] && [[ "$MODE" == @(cr|iters|ns|checkpoint|user|compat|lazy|snaps) ]] && runmode=refused
	if [ "$CUNS" = 1 ] && [ "$MODE" = ns ] && [ -n "$(desc_get "$name" cuns-dump-expect)" ]; then
		dexp=$(desc_get "$name" cuns-dump-expect)
		runmode=refused
	fi
	case "$runmode" in
	refused) # .desc dump-expect (cuns-dump-expect): TEXT: the dump must fail with one line holding TEXT, the tree unchanged
		d="$TDIR/dump"
		if crshim_dump "$d"; then
			bad "the dump worked; it must fail with '$dexp'"
			return 1
		fi
		if [ "$(grep -c . "$d/dump.out")" -ne 1 ] || ! grep -qF -- "$dexp" "$d/dump.out"; then
			diag_file "$d/dump.out" 5
			bad "the dump failed, but not with one line holding '$dexp'"
			return 1
		fi
		REASON=
		diag "refused as expected: $(head -n1 "$d/dump.out")"
		check_running || return 1
		compare_snap "a refused dump" "$TDIR/snap.1" || return 1
		;;
	nocr)
		sleep 0.3
		compare_snap "a pause (no C/R)" "$TDIR/snap.1" || return 1
		;;
	checkpoint)
		d="$TDIR/dump"
		crshim_dump "$d" --leave-running || return 1
		check_running || return 1
		compare_snap "dump --leave-running" "$TDIR/snap.1" || return 1
		lock_left "dump --leave-running" || return 1
		if [[ " $(desc_get "$name" flags) " == *" restore-busy "* ]]; then
			restore_busy "$d" || return 1
		fi
		;;
	dumpfail)
		# dumps that must fail (image dir is a file, image dir not writable, bad
		# option) must leave the task running, untraced and unchanged
		local how
		: >"$TDIR/not-a-dir"
		local hows=("-D $TDIR/not-a-dir" "-D /proc/sys -o $TDIR/dumpfail.log" "-D $TDIR/dumpfail --no-such-option")
		# a full file system half way through the images (root only)
		mkdir -p "$TDIR/small"
		if mount -t tmpfs -o size=48k zdtm-small "$TDIR/small" 2>/dev/null; then
			hows+=("-D $TDIR/small -o $TDIR/dumpfail.log")
		fi
		for how in "${hows[@]}"; do
			mkdir -p "$TDIR/dumpfail"
			# shellcheck disable=SC2086
			timeout -k 5 "$CTIMEOUT" "$CRSHIM" dump -t "$TPID" -o dump.log $how -v4 "${OPTS[@]}" \
				>"$TDIR/dumpfail.out" 2>&1
			rc=$?
			if [ $rc -ne 1 ] || [ "$(grep -c . "$TDIR/dumpfail.out")" -lt 1 ]; then
				umount "$TDIR/small" 2>/dev/null
				diag_file "$TDIR/dumpfail.out" 5
				bad "dump $how: exit $rc, want 1 with an error line"
				return 1
			fi
			diag "dump $how: $(head -n1 "$TDIR/dumpfail.out")"
			sleep 0.1
			check_running || { umount "$TDIR/small" 2>/dev/null; REASON="after a failed dump ($how): $REASON"; return 1; }
			compare_snap "a failed dump ($how)" "$TDIR/snap.1" || { umount "$TDIR/small" 2>/dev/null; return 1; }
		done
		umount "$TDIR/small" 2>/dev/null
		;;
	fault)
		fault_steps
		case $? in 0) ;; 3) return 0 ;; *) return 1 ;; esac
		;;
	snaps)
		snaps_steps || return 1
		;;
	pagesrv)
		pagesrv_steps || return 1
		;;
	lazy)
		lazy_steps
		case $? in 0) ;; 3) return 0 ;; *) return 1 ;; esac
		;;
	user)
		user_steps "$name" || return 1
		;;
	compat)
		compat_steps "$name" || return 1
		;;
	cr|iters|ns)
		local n=1 rdelay
		[ "$MODE" = iters ] && n=$ITERS
		for ((i = 1; i <= n; i++)); do
			d="$TDIR/dump.$i"
			crshim_dump "$d" || { REASON="iteration $i: $REASON"; return 1; }
			if ! wait_gone "$TPID" 10; then
				bad "iteration $i: task $TPID still running after dump (without --leave-running)"
				return 1
			fi
			wait_free "$TPID" 30 || { bad "iteration $i: pid $TPID still taken (zombie) after dump"; return 1; }
			rdelay=$(desc_get "$name" restore-delay) # (seconds checkpointed: timer tests)
			[ -z "$rdelay" ] || sleep "$rdelay"
			crshim_restore "$d" || { REASON="iteration $i: $REASON"; return 1; }
			compare_snap "restore #$i" "$TDIR/snap.$i" || { REASON="iteration $i: $REASON"; diag_file "$d/restore.log" 5; return 1; }
			lock_left "restore #$i" || return 1
			# keep disk use bounded: drop the images of passed iterations
			[ $KEEP = 1 ] || [ $i -eq $n ] || rm -rf "$d"
		done
		;;
	esac

	kill -TERM "$TPID" 2>/dev/null
	if ! wait_gone "$TPID" 30; then
		diag_file "$TDIR/test.out" 10
		bad "test did not exit within $(twait 30)s after SIGTERM (State: $(status_field "$TPID" State))"
		return 1
	fi
	if grep -q '^FAIL' "$TDIR/test.out"; then
		diag_file "$TDIR/test.out" 15
		bad "$(grep -m1 '^FAIL' "$TDIR/test.out")"
		return 1
	fi
	if ! grep -q '^PASS$' "$TDIR/test.out"; then
		diag_file "$TDIR/test.out" 15
		bad "no PASS in the test output (test crashed?)"
		return 1
	fi
	[ -z "$FNOFIRE" ] || { REASON="SKIP $FNOFIRE"; return 2; } # mode fault: fault_nofire
	return 0
}

# mode snaps: SNAPS (default 3) pre-dumps with --track-mem, each the parent of the next, while the test
# runs and changes its memory; then the dump with the last as parent, the restore from the chain, and the
# test checks its final state at SIGTERM. Every pre-dump must leave the task running and untraced.
# SNAPS_OPTS (e.g. --auto-dedup) go to every pre-dump and the dump. SNAPS_FAULT=predump-track-mid: a first
# pre-dump fails at that point (exit 1, one line naming it), the task runs on untracked (no VMA registered
# with a userfaultfd: no "uw" in smaps), the failed dir holds no keeper socket and no image; the chain then
# goes on. SNAPS_FAULT=dump-dedup: the dump (with --auto-dedup) succeeds, says the dedup was not done, and
# the parent is unchanged.
snaps_fault_predump() {
	local d="$TDIR/pre.fail" out="$TDIR/pre.fail.out" rc left
	mkdir -p "$d"
	FPOINT=predump-track-mid
	CRSHIM_FAULT=$FPOINT timeout -k 5 "$CTIMEOUT" "$CRSHIM" pre-dump -t "$TPID" -D "$d" -o dump.log -v4 \
		--track-mem ${SNAPS_OPTS:-} "${OPTS[@]}" >"$out" 2>&1
	rc=$?
	expect_fault_fail pre-dump $rc "$out" || return 1
	check_running || { REASON="after a pre-dump failed at $FPOINT: $REASON"; return 1; }
	grep -q '^VmFlags:.* uw' /proc/"$TPID"/smaps &&
		{ bad "a VMA of the task is still registered with a userfaultfd (uw) after the failed pre-dump"; return 1; }
	left=$(cd "$d" && ls -A | grep -v -x -e dump.log | tr '\n' ' ')
	[ -z "$left" ] || { bad "the failed pre-dump left: $left"; return 1; }
}

snaps_steps() {
	local i n=${SNAPS:-3} d prev= sum0 sum1
	if [ "${SNAPS_FAULT:-}" = predump-track-mid ]; then
		snaps_fault_predump || return 1
	fi
	for ((i = 1; i <= n; i++)); do
		d="$TDIR/pre.$i"
		DUMPVERB=pre-dump crshim_dump "$d" --track-mem ${prev:+--prev-images-dir "$prev"} ${SNAPS_OPTS:-} ||
			{ REASON="pre-dump $i: $REASON"; return 1; }
		check_running || { REASON="after pre-dump $i: $REASON"; return 1; }
		prev="../pre.$i"
		sleep 0.2 # the test goes on changing its memory
	done
	d="$TDIR/dump.1"
	if [ "${SNAPS_FAULT:-}" = dump-dedup ]; then
		sum0=$(img_sum "$TDIR/pre.$n")
		CRSHIM_FAULT=dump-dedup crshim_dump "$d" --track-mem --prev-images-dir "../pre.$n" --auto-dedup || return 1
		sum1=$(img_sum "$TDIR/pre.$n")
		grep -q "auto-dedup not done.*fault injected" "$d/dump.log" ||
			{ bad "the dump did not say the dedup failed at dump-dedup"; return 1; }
		[ "$sum0" = "$sum1" ] || { bad "the parent changed although the dedup failed"; return 1; }
	else
		crshim_dump "$d" --track-mem --prev-images-dir "../pre.$n" ${SNAPS_OPTS:-} || return 1
	fi
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump (without --leave-running)"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	[ -L "$d/parent" ] || { bad "the dump made no parent link"; return 1; }
	[ ! -e "$TDIR/pre.$n/mem-track.sock" ] || { bad "the last pre-dump's keeper is still there after the dump"; return 1; }
	! grep -q "the parent's keeper:" "$d/dump.log" ||
		{ bad "the dump could not end the last pre-dump's keeper: $(grep -m1 "the parent's keeper:" "$d/dump.log")"; return 1; }
	if [[ " ${SNAPS_OPTS:-} " == *" --auto-dedup "* ]]; then
		grep -q "auto-dedup:" "$d/dump.log" || { bad "--auto-dedup: the dump did not dedup its parents"; return 1; }
	fi
	crshim_restore "$d" || return 1
	compare_snap "restore" "$TDIR/snap.1" || { diag_file "$d/restore.log" 5; return 1; }
	lock_left "restore" || return 1
}

tree_pids() { # pid: it and its descendants, parents first (shell builtins only: no process per process)
	local q=("$1") i=0 f kids=()
	while [ "$i" -lt "${#q[@]}" ]; do
		echo "${q[i]}"
		for f in /proc/"${q[i]}"/task/*/children; do
			kids=()
			[ -r "$f" ] && read -r -a kids <"$f" 2>/dev/null
			[ ${#kids[@]} -eq 0 ] || q+=("${kids[@]}")
		done
		i=$((i + 1))
	done
}

# A failed test goes with its whole tree: its descendants, whatever is still in its session (children
# left behind by a dead root, now the reaper's) and what the reaper adopted during the test (KIDS0).
# A test that is no session leader has no such session.
cleanup_test() {
	local p k pids
	[ -n "$TPID" ] || return 0
	pids=$( (tree_pids "$TPID"; ps -o pid= -s "$TPID" 2>/dev/null
		for k in $(comm -13 <(echo "$KIDS0") <(reaper_kids)); do tree_pids "$k"; done) |
		tr -d ' ' | grep . | sort -u)
	for p in $pids; do kill -KILL "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; done
	for p in $pids; do TWAIT=0 wait_gone "$p" 5; done
	# the cgroups a killed cgroup_* test made for itself (cgroup_test.h; it removes them when it ends)
	for p in /sys/fs/cgroup/*/zdtm-cgroup-"$TPID"; do
		[ -d "$p" ] && find "$p" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

# What a test left behind when it ended: processes the reaper adopted since KIDS0 (the reaper waits for
# every one of them, so one would hang the run) and members of the test's session. They get 10 s to go
# (a sockpeer server finishing), then they are killed and the test fails.
leftovers() {
	local i left
	for ((i = 0; i < 100; i++)); do
		left=$( (comm -13 <(echo "$KIDS0") <(reaper_kids); [ -n "$TPID" ] && ps -o pid= -s "$TPID" 2>/dev/null) |
			tr -d ' ' | grep . | sort -u)
		[ -n "$left" ] || return 0
		sleep 0.1
	done
	local p q desc=
	for p in $left; do desc+="$p($(cat /proc/"$p"/comm 2>/dev/null)) "; done
	for p in $left; do
		for q in $(tree_pids "$p"); do kill -KILL "$q" 2>/dev/null; kill -CONT "$q" 2>/dev/null; done
	done
	bad "left processes behind after it ended: ${desc% }"
	return 1
}

# The mounts a test made in the runner's namespace under its dir (the sources of its external mounts:
# nsmnt_ext_auto), deepest first.
umount_under() { # dir
	local m
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m"; done
}

KIDS0=
TAPN=0
FAILED=0
SKIPPED=0
SKIPS=() # "NAME: reason" of each skipped one (mode fault lists them at its end)
report() { # status name reason
	local l
	TAPN=$((TAPN + 1))
	case "$1" in
	ok) echo "ok $TAPN - ${FPREFIX:-}$2${RSUFFIX:-}" ;;
	skip)
		echo "ok $TAPN - ${FPREFIX:-}$2${RSUFFIX:-} # SKIP $3"
		SKIPPED=$((SKIPPED + 1)) SKIPS+=("${FPREFIX:-}$2${RSUFFIX:-}: $3")
		;;
	*) echo "not ok $TAPN - ${FPREFIX:-}$2${RSUFFIX:-}: $3"; FAILED=$((FAILED + 1)) ;;
	esac
	for l in "${DIAG[@]+"${DIAG[@]}"}"; do echo "# $l"; done
}

run_test() { # name
	local name=$1 s am ms
	DIAG=()
	REASON=
	TPID=
	FNOFIRE=
	OPTS=() ROPTS=()
	if [ ! -f "$HERE/$(test_dir "$name")/$name.c" ]; then
		report fail "$name" "no such test"
		return 1
	fi
	s=$(desc_get "$name" skip)
	[ -n "$s" ] && { report skip "$name" "$s"; return; }
	am=$(desc_get "$name" arch)
	if [ -n "$am" ] && [[ " $am " != *" $ARCH "* ]]; then
		report skip "$name" "arch $ARCH not in: $am"
		return
	fi
	ms=$(desc_get "$name" ns-skip)
	if ns_mode && [ -n "$ms" ]; then
		report skip "$name" "not in mode ns: $ms"
		return
	fi
	ms=$(desc_get "$name" uns-skip)
	if [ "$UNS" = 1 ] && [ -n "$ms" ]; then
		report skip "$name" "not in mode $MODENAME: $ms"
		return
	fi
	ms=$(desc_get "$name" cuns-skip)
	if [ "$CUNS" = 1 ] && [ -n "$ms" ]; then
		report skip "$name" "not in mode cuns$([ "$ROOTLESS" = 0 ] || echo " (nor $MODENAME)"): $ms"
		return
	fi
	ms=$(desc_get "$name" uns-partial-skip)
	if [ "$UNS" = 1 ] && [ "$CUNS" = 0 ] && [ -n "$ms" ]; then
		report skip "$name" "not in mode uns: $ms"
		return
	fi
	ms=$(desc_get "$name" mode-skip)
	if [[ " $ms " == *" $MODE "* ]]; then
		report skip "$name" "not run in mode $MODE"
		return
	fi
	mode_skip_reason "$name" && { report skip "$name" "$REASON"; return; }
	if ! TDIR=$(mktemp -d "$TMPBASE/zdtm.$name.XXXXXX"); then
		report fail "$name" "cannot make a work dir under $TMPBASE (ZDTM_TMP)"
		return
	fi
	[ ${#USERRUN[@]} = 0 ] || chown "$ZDTM_USER:" "$TDIR"
	KIDS0=$(reaper_kids)
	test_timeout "$name" || { report fail "$name" "$REASON"; rm -rf "$TDIR"; return 1; }
	local tenv
	tenv=$(desc_get "$name" env)
	[ -z "$tenv" ] || export "${tenv?}"
	run_steps "$name"
	local rc=$?
	[ -z "$tenv" ] || unset "${tenv%%=*}"
	CTIMEOUT=$CTIMEOUT0 TWAIT=0
	host_agent_stop
	rootless_release
	{ [ $rc -ne 0 ] && [ -z "$FNOFIRE" ]; } || leftovers || rc=1
	cleanup_test
	umount_under "$TDIR"
	case $rc in
	0) report ok "$name" ;;
	2) report skip "$name" "${REASON#SKIP }" ;;
	*) diag "work dir: $TDIR"; report fail "$name" "$REASON" ;;
	esac
	if [ $rc -ne 1 ] && [ $KEEP = 0 ]; then
		rm -rf "$TDIR"
	fi
	[ $rc -ne 1 ]
}

# ---------------------------------------------------------------- selftest
# The runner must not be able to pass a broken state.
selftest() {
	local n=0 bad=0 out rc fake
	fake=$(mktemp -d "$TMPBASE/zdtm.selftest.XXXXXX")
	# drift PID...: selftest_drift changes its state (SIGUSR1); wait until it did (its comm is the last change)
	cat >"$fake/drift" <<-'EOF'
	#!/bin/sh
	for p in "$@"; do
		kill -USR1 "$p" || exit 1
		n=0
		until [ "$(cat "/proc/$p/comm" 2>/dev/null)" = selftest-drift ]; do
			n=$((n + 1))
			[ $n -le 1000 ] || exit 1
			sleep 0.01
		done
	done
	EOF
	chmod +x "$fake/drift"
	# a "crshim" whose dump does nothing (task keeps running: a selftest_drift is made to drift meanwhile)
	# and whose restore succeeds
	cat >"$fake/crshim-noop" <<-EOF
	#!/bin/sh
	[ "\$1" = dump ] && [ "\$2" = -t ] && [ "\$(cat "/proc/\$3/comm")" = selftest_drift ] && exec "$fake/drift" "\$3"
	exit 0
	EOF
	chmod +x "$fake/crshim-noop"
	# the real crshim, after whose restore a restored selftest_drift drifts
	cat >"$fake/crshim-drift" <<-EOF
	#!/bin/sh
	"$CRSHIM" "\$@" || exit
	[ "\$1" != restore ] || exec "$fake/drift" \$(pgrep -x selftest_drift)
	EOF
	chmod +x "$fake/crshim-drift"
	# a crshim whose restore under a fault fails as it should but leaves a process behind (for longer than
	# fault_steps waits for the reaper's children to settle: a sleep of 5 s ended first at load 20), and whose
	# dump under a fault "succeeds"
	cat >"$fake/crshim-leak" <<-EOF
	#!/bin/sh
	if [ "\$1" = restore ] && [ -n "\$CRSHIM_FAULT" ]; then
		sleep 60 </dev/null >/dev/null 2>&1 &
		echo "crshim: restore failed: fault injected at \$CRSHIM_FAULT (CRSHIM_FAULT)" >&2
		exit 1
	fi
	[ "\$1" = dump ] && [ -n "\$CRSHIM_FAULT" ] && exit 0
	exec "$CRSHIM" "\$@"
	EOF
	chmod +x "$fake/crshim-leak"
	st() { # expect(ok|notok|skip) description grep-pattern run.sh-args...
		local want=$1 what=$2 pat=$3; shift 3
		n=$((n + 1))
		out=$("${BASH_SOURCE[0]}" "$@" 2>&1)
		rc=$?
		local good=1
		if [ "$want" = notok ]; then
			[ $rc -ne 0 ] && grep -q '^not ok ' <<<"$out" && grep -q -- "$pat" <<<"$out" || good=0
		elif [ "$want" = skip ]; then
			[ $rc -eq 0 ] && grep -q '^ok 1 .* # SKIP ' <<<"$out" && grep -q -- "$pat" <<<"$out" || good=0
		else
			[ $rc -eq 0 ] && grep -q '^ok 1 ' <<<"$out" || good=0
		fi
		if [ $good = 1 ]; then
			echo "ok $n - $what"
		else
			echo "not ok $n - $what (exit $rc)"
			sed 's/^/# /' <<<"$out" | head -n 30
			bad=$((bad + 1))
		fi
	}
	echo "1..12"
	st ok "a healthy test passes without C/R" "" --mode nocr pid
	st notok "a test that writes FAIL is reported" "deliberate failure" --mode nocr selftest_fail
	st notok "a state change seen from outside (maps, fds, status) is reported" "^#   +fd 3 -> /dev/null" \
		--crshim "$fake/crshim-noop" --mode checkpoint selftest_drift
	st notok "a failing dump is reported" "dump failed" --crshim /bin/false --mode cr pid
	st notok "a task that survives a dump without -R is reported" "still running after dump" \
		--crshim "$fake/crshim-noop" --mode cr pid
	st notok "a missing test is reported" "no such test" --mode nocr no_such_test_xyz
	st notok "a process left behind by a passing test is reported" "left processes behind" \
		--mode nocr selftest_leftover
	st notok "mode fault: a process left by a failed restore is reported" "left processes" \
		--crshim "$fake/crshim-leak" --mode fault --fault restore-files pid
	st notok "mode fault: a dump that does not fail at a fatal point is reported" "want exit 1" \
		--crshim "$fake/crshim-leak" --mode fault --fault dump-early pid
	# (dump-timer-taken: only a task with a pending timer signal reaches it; its own set: fault_own_tests)
	st skip "mode fault: a point that does not fire for a named test outside its own set: skipped" \
		"^# skipped: dump-timer-taken: pid: did not fire" --mode fault --fault dump-timer-taken pid
	FAULT_TESTS=pid st notok "mode fault: a point that does not fire for a test of its own set is reported" \
		"dump under dump-timer-taken: exit 0" --mode fault --fault dump-timer-taken
	# mode group: the group's C/R is ok (line 1), the drifting member must be not ok
	st notok "mode group: a member whose state changes is reported" "^not ok 3 - selftest_drift: state seen" \
		--crshim "$fake/crshim-drift" --mode group pid selftest_drift
	rm -rf "$fake"
	[ $bad -eq 0 ]
}

if [ ${#SNAPOF[@]} = 2 ]; then
	p=$(tr -d ' \n' <"${SNAPOF[0]}") && alive "$p" || exit 1
	snap_ref "$p" "${SNAPOF[1]}"
	exit 0
fi

if [ $SELFTEST = 1 ]; then
	selftest
	exit $?
fi

trap load_stop EXIT
load_start

if [ "$MODE" = fault ]; then
	[ -x "$CRSHIM" ] || { echo "1..0 # SKIP crshim not found at $CRSHIM"; exit 1; }
	NAMES=("${NAMES[@]#static/}")
	run_fault_mode
fi

if [ "$MODE" = group ]; then
	[ -x "$CRSHIM" ] || { echo "1..0 # SKIP crshim not found at $CRSHIM"; exit 1; }
	[ ${#NAMES[@]} -gt 0 ] || NAMES=(pid fork00 pipe00 pipe_shared session00 pgrp_orphan zombie00 stopped00 sig_pending fd_files)
	NAMES=("${NAMES[@]#static/}")
	NAMES=("${NAMES[@]#transition/}")
	raise_pid_max
	trap 'exit 130' INT TERM
	run_group_mode
fi
if [ ${#NAMES[@]} -eq 0 ]; then
	mapfile -t NAMES < <(all_tests)
fi
NAMES=("${NAMES[@]#static/}")
NAMES=("${NAMES[@]#transition/}")

if [ $LIST = 1 ]; then
	printf '%s\n' "${NAMES[@]}"
	exit 0
fi

if [ "$MODE" != nocr ] && [ ! -x "$CRSHIM" ]; then
	echo "1..0 # SKIP crshim not found at $CRSHIM"
	exit 1
fi
raise_pid_max
case "$MODE" in
user) user_setup ;;
ns) [ "$ROOTLESS" = 0 ] || rootless_setup ;;
compat) compat_setup ;;
esac

echo "1..$((${#NAMES[@]} * REPEAT))"
echo "# mode $MODENAME$([ "$MODE" = iters ] && echo " x$ITERS")$([ "$REPEAT" -gt 1 ] && echo ", each test $REPEAT times")$([ "$LOAD" -gt 0 ] && echo ", load $LOAD"), crshim $CRSHIM, kernel $(uname -r)${MODE_NOTE:-}"
trap 'cleanup_test; exit 130' INT TERM
TIMES=()
timed_test() { # name: run_test, and keep its wall time (ms) for the list of the slowest tests at the end
	local t0=${EPOCHREALTIME/./} rc=0
	run_test "$1" || rc=$?
	TIMES+=("$(((${EPOCHREALTIME/./} - t0) / 1000)) $1")
	return $rc
}
for t in "${NAMES[@]}"; do
	if [ "$REPEAT" = 1 ]; then
		timed_test "$t"
		continue
	fi
	passed=0 streak=0 best=0
	for ((r = 1; r <= REPEAT; r++)); do
		RSUFFIX=" [$r/$REPEAT]"
		if run_test "$t"; then
			passed=$((passed + 1)) streak=$((streak + 1))
		else
			streak=0
		fi
		[ $streak -gt $best ] && best=$streak
	done
	RSUFFIX=
	echo "# $t: $passed of $REPEAT passed (longest run in a row: $best)"
done
TOTAL=$((${#NAMES[@]} * REPEAT))
if [ "${#TIMES[@]}" -gt 5 ]; then
	echo "# slowest: $(printf '%s\n' "${TIMES[@]}" | sort -rn | head -12 |
		awk '{ printf "%s%s %.1fs", (NR > 1 ? ", " : ""), $2, $1 / 1000 }')"
fi
echo "# $FAILED of $TOTAL failed, $SKIPPED skipped, $((TOTAL - FAILED - SKIPPED)) passed (mode $MODENAME, ${SECONDS}s)"
[ $FAILED -eq 0 ]
