#!/bin/bash
# A dump that must fail on an fd kind crshim does not support yet (static/fd_unsupported: a userfaultfd on
# fd 9). Checks: exit 1, one stderr line naming the fd, its kind and the task; the task keeps running,
# untraced, not stopped, with the same fd table; it still passes after SIGTERM. TAP output.
#
# fd_unsupported.sh [--crshim PATH] [--test NAME --expect TEXT] [--then FUNC] [--dump-child]   (env: CRSHIM, ZDTM_BIN, ZDTM_TMP)
# --test/--expect: another static test whose dump must fail that way (each TEXT, --expect repeatable: a fixed
# string the line must hold), e.g. sk_unix_scm_rights. --dump-child: dump the test's first child instead of the
# test (the line must name it, and it is the one that must keep running untraced), e.g. pidns_notinit.
# --then FUNC: one more step after the failed dump, before SIGTERM: an exported shell function that makes
# exactly one `check "what" 'condition'` (it sees PID, TMPD, CRSHIM), e.g. unlink_largefile.sh.
set -u
# shellcheck source=tests/zdtm/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
TEST=fd_unsupported
EXPECT=()
THEN=()
DCHILD=0
while [ $# -ge 1 ]; do
	case $1 in
	--dump-child) DCHILD=1; shift; continue ;;
	--crshim) CRSHIM=$2 ;;
	--test) TEST=$2 ;;
	--expect) EXPECT+=("$2") ;;
	--then) THEN+=("$2") ;;
	esac
	shift 2 || break
done
[ ${#EXPECT[@]} -gt 0 ] || EXPECT=('fd 9 is a userfaultfd (anon_inode:[userfaultfd]), not supported yet')
TMPD=$(mktemp -d "${ZDTM_TMP:-/tmp}/zdtm.$TEST.XXXXXX")
PID=
field() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null; }
fds() { for f in $(ls "/proc/$1/fd" | sort -n); do echo "$f $(readlink "/proc/$1/fd/$f")"; done; }
cleanup() { [ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null; }
trap cleanup EXIT

echo "1..$((7 + ${#THEN[@]}))"
(cd "$TMPD" && exec "$BIN/static/$TEST" --pidfile="$TMPD/test.pid" --outfile="$TMPD/test.out") \
	>"$TMPD/start.log" 2>&1
PID=$(cat "$TMPD/test.pid" 2>/dev/null)
if [ -z "$PID" ] || [ ! -e "/proc/$PID" ]; then
	notok "test started"; echo "# $(cat "$TMPD/start.log" "$TMPD/test.out" 2>/dev/null)"; exit 1
fi
sleep 0.2
DPID=$PID # the task to dump
[ $DCHILD = 0 ] || DPID=$(tr ' ' '\n' <"/proc/$PID/task/$PID/children" | grep -m1 .)
fds "$DPID" >"$TMPD/fds.0"
timeout -k 5 60 "$CRSHIM" dump -t "$DPID" -D "$TMPD" -o dump.log -v4 >"$TMPD/dump.out" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/dump.out"
check "dump exits 1 (got $rc)" '[ $rc -eq 1 ]'
check "one line on stderr" '[ "$(grep -c . "$TMPD/dump.out")" -eq 1 ]'
has_all() { for x in "${EXPECT[@]}"; do grep -qF -- "$x" "$TMPD/dump.out" || return 1; done; }
check "$TEST: the line says '${EXPECT[*]}' and names task $DPID" 'has_all && grep -q "task $DPID" "$TMPD/dump.out"'
sleep 0.1
st=$(field "$DPID" State)
check "task still running, not stopped (State: $st)" '[ -n "$st" ] && [[ "${st:0:1}" != [TtZX] ]]'
check "task not traced (TracerPid: $(field "$DPID" TracerPid))" '[ "$(field "$DPID" TracerPid)" = 0 ]'
fds "$DPID" >"$TMPD/fds.1"
check "fd table unchanged" 'cmp -s "$TMPD/fds.0" "$TMPD/fds.1"'
for step in "${THEN[@]+"${THEN[@]}"}"; do "$step"; done
kill -TERM "$PID"
for _ in $(seq 100); do [ -e "/proc/$PID" ] || break; sleep 0.05; done
check "test passes after SIGTERM" 'grep -q "^PASS$" "$TMPD/test.out" && ! grep -q "^FAIL" "$TMPD/test.out"'
PID=
if [ $failed -eq 0 ]; then rm -rf "$TMPD"; else echo "# work dir: $TMPD"; fi
[ $failed -eq 0 ]
