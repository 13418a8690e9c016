# shellcheck shell=bash
# Sourced by bench-lazy.sh and bench-pagesrv.sh, after they set ME (their name) and CRSHIM: what both do
# around a bench-mem process. BASE is a fresh dir on /dev/shm; the EXIT trap kills the bench-mem process (PID)
# and the crshim daemon (SRVPID) and removes BASE.
PROG=$(dirname "$CRSHIM")/contrib/bench-mem
BASE=$(mktemp -d "/dev/shm/crshim-$ME.XXXXXX")
PID='' SRVPID=''

cleanup() {
	[ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null || true
	[ -z "$SRVPID" ] || kill -KILL "$SRVPID" 2>/dev/null || true
	rm -rf "$BASE"
}
trap cleanup EXIT
die() {
	echo "$ME: $*" >&2
	exit 1
}
now() { echo "${EPOCHREALTIME/,/.}"; }
[ "$(id -u)" = 0 ] || die "run as root"
[ -x "$PROG" ] || die "no $PROG (make $ME builds it)"

bench_mem_start() { # MiB run-dir: start bench-mem in a session of its own, PID once its memory is filled
	setsid "$PROG" "$1" "$2" </dev/null >/dev/null 2>&1 &
	disown
	for _ in $(seq 1200); do [ -f "$2/ready" ] && break; sleep 0.1; done
	[ -f "$2/ready" ] || die "bench-mem did not get ready"
	PID=$(cat "$2/ready")
}

bench_mem_check() { # run-dir: ask the restored bench-mem to verify its memory, print its verdict
	rm -f "$1/result"
	kill -USR1 "$PID"
	for _ in $(seq 1200); do [ -f "$1/result" ] && break; sleep 0.1; done
	cat "$1/result" 2>/dev/null || echo "BAD: no result"
}
