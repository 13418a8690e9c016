#!/bin/bash
# A dump without --file-locks of a task that holds a file lock (static/file_locks_flock: an exclusive flock
# on fd 30) must fail as CRIU's does. Checks: exit 1, one stderr line naming the fd, the lock kind, the
# option and the task; the task keeps running, untraced, not stopped, with the same fd table and its lock;
# it still passes after SIGTERM. TAP output.
#
# file_locks_noopt.sh [--crshim PATH]      (env: CRSHIM, ZDTM_BIN, ZDTM_TMP)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BIN=${ZDTM_BIN:-$TOP/build/zdtm}
CRSHIM=${CRSHIM:-$TOP/build/crshim}
[ "${1:-}" = --crshim ] && CRSHIM=$2
TMPD=$(mktemp -d "${ZDTM_TMP:-/tmp}/zdtm.file_locks_noopt.XXXXXX")
PID=
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }
fds() { for f in $(ls "/proc/$1/fd" | sort -n); do echo "$f $(readlink "/proc/$1/fd/$f")"; done; }
cleanup() { [ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null; }
trap cleanup EXIT

echo "1..8"
(cd "$TMPD" && exec "$BIN/static/file_locks_flock" --pidfile="$TMPD/test.pid" --outfile="$TMPD/test.out") \
	>"$TMPD/start.log" 2>&1
PID=$(cat "$TMPD/test.pid" 2>/dev/null)
if [ -z "$PID" ] || [ ! -e "/proc/$PID" ]; then
	notok "test started"; echo "# $(cat "$TMPD/start.log" "$TMPD/test.out" 2>/dev/null)"; exit 1
fi
sleep 0.2
fds "$PID" >"$TMPD/fds.0"
timeout -k 5 60 "$CRSHIM" dump -t "$PID" -D "$TMPD" -o dump.log -v4 >"$TMPD/dump.out" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/dump.out"
check "dump exits 1 (got $rc)" '[ $rc -eq 1 ]'
check "one line on stderr" '[ "$(grep -c . "$TMPD/dump.out")" -eq 1 ]'
check "the line names fd 30, flock, --file-locks and task $PID" \
	'grep -q "fd 30 (.*flock_ex.file) holds a flock lock: dump with --file-locks" "$TMPD/dump.out" && grep -q "task $PID" "$TMPD/dump.out"'
sleep 0.1
st=$(field "$PID" State)
check "task still running, not stopped (State: $st)" '[ -n "$st" ] && [[ "${st:0:1}" != [TtZX] ]]'
check "task not traced (TracerPid: $(field "$PID" TracerPid))" '[ "$(field "$PID" TracerPid)" = 0 ]'
fds "$PID" >"$TMPD/fds.1"
check "fd table unchanged" 'cmp -s "$TMPD/fds.0" "$TMPD/fds.1"'
check "the lock is still held" 'grep -q "^lock:.*FLOCK.*WRITE" "/proc/$PID/fdinfo/30"'
kill -TERM "$PID"
for _ in $(seq 100); do [ -e "/proc/$PID" ] || break; sleep 0.05; done
check "test passes after SIGTERM" 'grep -q "^PASS$" "$TMPD/test.out" && ! grep -q "^FAIL" "$TMPD/test.out"'
PID=
if [ $failed -eq 0 ]; then rm -rf "$TMPD"; else echo "# work dir: $TMPD"; fi
[ $failed -eq 0 ]
