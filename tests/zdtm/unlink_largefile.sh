#!/bin/bash
# A dump that must fail on an unlinked file above --ghost-limit (static/unlink_largefile: 2 MiB of data on
# fd 7): fd_unsupported.sh's checks (exit 1, one stderr line naming the fd, the deleted file, the limit and
# the task; the task keeps running, untraced, not stopped, same fd table; it still passes after SIGTERM), and
# then the same with --ghost-limit 4M must dump (leave-running) fine. TAP output.
#
# unlink_largefile.sh [--crshim PATH]      (env: CRSHIM, ZDTM_BIN, ZDTM_TMP)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ghost_limit_4m() {
	mkdir -p "$TMPD/big"
	timeout -k 5 60 "$CRSHIM" dump -t "$PID" -D "$TMPD/big" -o dump.log -v4 -R --ghost-limit 4M \
		>"$TMPD/dump2.out" 2>&1
	rc=$?
	check "with --ghost-limit 4M the dump passes (got $rc)" '[ $rc -eq 0 ] && [ -s "$TMPD/big/ghost-$PID.img" ]'
}
export -f ghost_limit_4m
exec "$HERE/fd_unsupported.sh" "$@" --test unlink_largefile --expect "fd 7 is a deleted file (" \
	--expect "unlink_largefile.file (deleted)) with more than 1048576 bytes of data (size 2097152)" \
	--expect "above --ghost-limit 1048576" --then ghost_limit_4m
