#!/bin/bash
# A terminal dumped as external (static/inhfd_tty dumped with --external tty[RDEV:DEV]) and restored without
# --inherit-fd: exit 1 with one stderr line naming the key and --inherit-fd, the pid stays free, no process of
# the test is left (only its keeper), the images are unchanged. Then the restore with --inherit-fd (through
# zdtm_inhfd, as the runner does) works and the test passes. TAP output.
#
# inhfd_missing.sh [--crshim PATH]   (env: CRSHIM, ZDTM_BIN, ZDTM_TMP)
set -u
# shellcheck source=tests/zdtm/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
[ "${1:-}" = --crshim ] && CRSHIM=$2
TMPD=$(mktemp -d "${ZDTM_TMP:-/tmp}/zdtm.inhfd_missing.XXXXXX")
IMG=$TMPD/img
PID=
gone() { for _ in $(seq 100); do [ -e "/proc/$1" ] || return 0; sleep 0.1; done; return 1; }
# the processes working in the test's dir: the test, its child, the keeper
ours() { for p in $(ls /proc | grep '^[0-9]*$'); do [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$TMPD" ] && echo "$p"; done; }
images() { (cd "$IMG" && find . -type f ! -name '*.log' ! -name '*.out' -exec md5sum {} + | sort); }
cleanup() { for p in $(ours); do kill -KILL "$p" 2>/dev/null; done; }
trap cleanup EXIT

echo "1..9"
(cd "$TMPD" && exec "$BIN/static/inhfd_tty" --pidfile="$TMPD/test.pid" --outfile="$TMPD/test.out") \
	>"$TMPD/start.log" 2>&1
PID=$(cat "$TMPD/test.pid" 2>/dev/null)
if [ -z "$PID" ] || ! alive "$PID"; then
	notok "test started"; echo "# $(cat "$TMPD/start.log" "$TMPD/test.out" 2>/dev/null)"; exit 1
fi
KEY=$(cat "$TMPD/inhfd.key")
mkdir -p "$IMG"
timeout -k 5 60 "$CRSHIM" dump -t "$PID" -D "$IMG" -o dump.log -v4 --external "$(cat "$TMPD/inhfd.ext")" \
	>"$TMPD/dump.out" 2>&1
rc=$?
check "dump with --external $(cat "$TMPD/inhfd.ext") (exit $rc)" '[ $rc -eq 0 ] && gone "$PID"'
sum0=$(images)
ours0=$(ours)
timeout -k 5 60 "$CRSHIM" restore -D "$IMG" -o restore-noinh.log -v4 -d --pidfile "$TMPD/noinh.pid" \
	>"$TMPD/noinh.out" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/noinh.out"
check "restore without --inherit-fd exits 1 (got $rc)" '[ $rc -eq 1 ]'
check "one line on stderr" '[ "$(grep -c . "$TMPD/noinh.out")" -eq 1 ]'
check "it names the key $KEY and --inherit-fd" 'grep -qF -- "$KEY" "$TMPD/noinh.out" && grep -qF -- "--inherit-fd" "$TMPD/noinh.out"'
check "pid $PID stays free" '! [ -e "/proc/$PID" ]'
check "no process left (only the keeper: $ours0)" '[ "$(ours)" = "$ours0" ]'
check "the images are unchanged" '[ "$(images)" = "$sum0" ]'
timeout -k 5 60 "$BIN/zdtm_inhfd" "$TMPD/inhfd.sock" 100 "$CRSHIM" restore -D "$IMG" -o restore.log -v4 -d \
	--pidfile "$TMPD/restore.pid" --inherit-fd "fd[100]:$KEY" >"$TMPD/restore.out" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/restore.out"
check "restore with --inherit-fd fd[100]:$KEY (exit $rc)" '[ $rc -eq 0 ] && alive "$PID"'
kill -TERM "$PID" 2>/dev/null
gone "$PID"
check "the test passes" 'grep -q "^PASS$" "$TMPD/test.out" && ! grep -q "^FAIL" "$TMPD/test.out"'
[ $failed -eq 0 ] || { sed 's/^/# /' "$TMPD/test.out"; echo "# work dir: $TMPD"; exit 1; }
sleep 0.2
[ -z "$(ours)" ] || echo "# left: $(ours)"
rm -rf "$TMPD"
