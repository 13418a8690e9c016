#!/bin/bash
# --display-stats, stats-dump / stats-restore and the progress line (shim/stats.c). A process holding
# 64 MiB of random data (contrib/bench-mem) is dumped and restored:
#  - with stderr on a file: no progress line there nor in the log; --display-stats prints CRIU's table on
#    stdout with the pages written (>= 64 MiB of them) and the times; stats-dump / stats-restore are
#    written and `crshim show` decodes them with the same counts; the data comes back intact;
#  - under a pty (`script`): the progress line ("dump: 1/1 tasks, N/M MB of pages, R MB/s") is on the
#    terminal, never in the log (CRSHIM_PROGRESS_AFTER_MS=0: at once instead of after one second).
# --big: the same under a pty with 1 GiB and the real one-second delay (slow: not in `make test`).
# TAP output.
#
# stats.sh [--crshim PATH] [--big]      (env: CRSHIM, ZDTM_TMP)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRSHIM=${CRSHIM:-$HERE/../../build/crshim}
BIG=0
while [ $# -gt 0 ]; do
	case $1 in
	--crshim) CRSHIM=$2; shift ;;
	--big) BIG=1 ;;
	*) echo "usage: $0 [--crshim PATH] [--big]" >&2; exit 2 ;;
	esac
	shift
done
CRSHIM=$(readlink -f "$CRSHIM")
TMPD=$(mktemp -d "${ZDTM_TMP:-/tmp}/zdtm-stats.XXXXXX")
N=0 FAILS=0 PID=
ok() { N=$((N + 1)); echo "ok $N - $*"; }
bad() { N=$((N + 1)); FAILS=$((FAILS + 1)); echo "not ok $N - $*"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
diag_file() { sed -n "1,${2:-10}p" "$1" 2>/dev/null | sed 's/^/# /'; }
cleanup() {
	[ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT
KEEP=${KEEP:-0}
[ "$KEEP" = 0 ] || trap 'echo "# kept $TMPD"' EXIT

cc -O2 -D_GNU_SOURCE -o "$TMPD/bench-mem" "$HERE/../../contrib/bench-mem.c" || { echo "Bail out! cannot build bench-mem"; exit 1; }
command -v script >/dev/null || { echo "Bail out! no script(1) for the pty"; exit 1; }

start() { # dir MIB: bench-mem running, its pid in PID
	mkdir -p "$1/img"
	setsid "$TMPD/bench-mem" "$2" "$1" </dev/null >/dev/null 2>&1 &
	PID=$!
	for _ in $(seq 1 1200); do [ -f "$1/ready" ] && return 0; sleep 0.05; done
	bad "bench-mem $2 MiB did not get ready"
	return 1
}

verify() { # dir: the restored bench-mem checks its data
	local rp
	rp=$(tr -d ' \n' <"$1/r.pid" 2>/dev/null)
	PID=$rp
	[ -n "$rp" ] && kill -USR1 "$rp" 2>/dev/null
	for _ in $(seq 1 1200); do [ -s "$1/result" ] && break; sleep 0.05; done
	sleep 0.1
	VD=$1
	check "data intact after the restore ($(head -c 60 "$VD/result" 2>/dev/null))" 'grep -q "^OK" "$VD/result"'
	PID=
}

show_num() { # file field: the field of `crshim show file`
	"$CRSHIM" show "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"
}

# 1. stderr on a file: the table on stdout, no progress line anywhere; the stats files
D=$TMPD/plain
if start "$D" 64; then
	CRSHIM_PROGRESS_AFTER_MS=0 timeout -k 5 120 "$CRSHIM" dump -t "$PID" -D "$D/img" -o dump.log -v4 \
		--display-stats >"$D/dump.out" 2>"$D/dump.err"
	rc=$?
	check "dump --display-stats exits 0 (got $rc)" '[ $rc -eq 0 ]' || diag_file "$D/dump.err"
	PID=
	check "dump: CRIU's table on stdout" 'grep -q "^Displaying dump stats:" "$D/dump.out" &&
		grep -q "^Freezing time: [0-9]* us" "$D/dump.out" && grep -q "^Frozen time: [1-9][0-9]* us" "$D/dump.out" &&
		grep -q "^Memory dump time: [0-9]* us" "$D/dump.out" && grep -q "^Memory write time: [1-9][0-9]* us" "$D/dump.out"'
	written=$(sed -n 's/^Memory pages written: \([0-9]*\) .*/\1/p' "$D/dump.out")
	check "dump: pages written ${written:-?} >= 64 MiB of pages" '[ "${written:-0}" -ge 16384 ]'
	check "dump: stderr empty (no progress line when it is not a terminal)" '[ ! -s "$D/dump.err" ]' ||
		diag_file "$D/dump.err"
	check "dump: no progress line in the log" '! grep -q "MB of pages" "$D/img/dump.log"'
	check "stats-dump written, crshim show decodes it (pages_written ${written:-?})" \
		'[ "$(show_num "$D/img/stats-dump" pages_written)" = "$written" ]'
	CRSHIM_PROGRESS_AFTER_MS=0 timeout -k 5 120 "$CRSHIM" restore -D "$D/img" -d --pidfile "$D/r.pid" \
		-o restore.log -v4 --display-stats >"$D/restore.out" 2>"$D/restore.err"
	rc=$?
	check "restore --display-stats exits 0 (got $rc)" '[ $rc -eq 0 ]' || diag_file "$D/restore.err"
	check "restore: CRIU's table on stdout, pages restored = written" 'grep -q "^Displaying restore stats:" "$D/restore.out" &&
		grep -q "^Restore time: [1-9][0-9]* us" "$D/restore.out" && grep -q "^Forking time: [0-9]* us" "$D/restore.out" &&
		grep -q "^Pages restored: $written " "$D/restore.out"'
	check "restore: stderr empty, no progress line in the log" '[ ! -s "$D/restore.err" ] &&
		! grep -q "MB of pages" "$D/img/restore.log"'
	check "stats-restore written, crshim show decodes it" \
		'[ "$(show_num "$D/img/stats-restore" pages_restored)" = "$written" ]'
	verify "$D"
fi

# 2. under a pty: the progress line on the terminal, not in the log
# The line is there when the run took long enough for it (--big: more than a second, as its log says),
# absent when the run ended before its first line was due.
line_check() { # what file log re
	local t
	LC_FILE=$2 LC_LOG=$3 LC_RE=$4
	t=$(sed -n 's/.* \(done\|restored task [0-9]* (.*)\) in \([0-9.]*\) s.*/\2/p' "$3" | tail -n 1)
	if [ "$AFTER" = 0 ] || awk "BEGIN { exit !(${t:-0} >= 1.3) }"; then
		check "$1: the progress line on the terminal (run took ${t:-?} s)" 'grep -a -q "$LC_RE" "$LC_FILE"' ||
			diag_file "$2" 3
	elif awk "BEGIN { exit !(${t:-0} < 0.95) }"; then
		check "$1: no progress line in a run of ${t:-?} s" '! grep -a -q "MB of pages" "$LC_FILE"'
	else
		ok "$1: run of ${t:-?} s, about the delay: line not checked"
	fi
	check "$1: no progress line in the log" '! grep -q "MB of pages" "$LC_LOG"'
}

pty_run() { # dir MIB after-ms
	local d=$1
	AFTER=$3
	if ! start "$d" "$2"; then return; fi
	CRSHIM_PROGRESS_AFTER_MS=$3 timeout -k 5 300 script -qec \
		"'$CRSHIM' dump -t $PID -D '$d/img' -o dump.log -v4" "$d/dump.tty" >/dev/null 2>&1
	rc=$?
	check "pty ($2 MiB): dump exits 0 (got $rc)" '[ $rc -eq 0 ]' || diag_file "$d/dump.tty"
	PID=
	line_check "pty ($2 MiB) dump" "$d/dump.tty" "$d/img/dump.log" \
		"dump: [0-9/ a-z,]*[0-9]*/[0-9]* MB of pages, [0-9]* MB/s"
	CRSHIM_PROGRESS_AFTER_MS=$3 timeout -k 5 300 script -qec \
		"'$CRSHIM' restore -D '$d/img' -d --pidfile '$d/r.pid' -o restore.log -v4" "$d/restore.tty" \
		>/dev/null 2>&1
	rc=$?
	check "pty ($2 MiB): restore exits 0 (got $rc)" '[ $rc -eq 0 ]' || diag_file "$d/restore.tty"
	line_check "pty ($2 MiB) restore" "$d/restore.tty" "$d/img/restore.log" \
		"restore: [0-9/ a-z,]*[0-9]*/[0-9]* MB of pages, [0-9]* MB/s"
	verify "$d"
}
if [ "$BIG" = 1 ]; then
	pty_run "$TMPD/big" 1024 1000
else
	pty_run "$TMPD/pty" 64 0
fi

echo "1..$N"
[ "$FAILS" = 0 ]
