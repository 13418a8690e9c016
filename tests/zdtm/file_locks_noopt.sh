#!/bin/bash
# A dump without --file-locks of a task that holds a file lock (static/file_locks_flock: an exclusive flock
# on fd 30) must fail as CRIU's does: fd_unsupported.sh's checks (exit 1, one stderr line naming the fd, the
# lock kind, the option and the task; the task keeps running, untraced, not stopped, same fd table; it still
# passes after SIGTERM), and the lock is still held. TAP output.
#
# file_locks_noopt.sh [--crshim PATH]      (env: CRSHIM, ZDTM_BIN, ZDTM_TMP)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lock_held() {
	check "the lock is still held" 'grep -q "^lock:.*FLOCK.*WRITE" "/proc/$PID/fdinfo/30"'
}
export -f lock_held
exec "$HERE/fd_unsupported.sh" "$@" --test file_locks_flock --expect "fd 30 (" \
	--expect "flock_ex.file) holds a flock lock: dump with --file-locks" --then lock_held
