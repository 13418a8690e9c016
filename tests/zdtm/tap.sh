# Sourced by the .sh checks of tests/zdtm (fd_unsupported.sh, inhfd_missing.sh, pidns_twice.sh): where the
# binaries are, and the TAP helpers. Env: CRSHIM, ZDTM_BIN. After sourcing: HERE, TOP, BIN, CRSHIM; n and
# failed (counts); ok/notok TEXT; check TEXT 'condition' (eval'ed); alive PID (exists, not a zombie).
# shellcheck shell=bash
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BIN=${ZDTM_BIN:-$TOP/build/zdtm}
CRSHIM=${CRSHIM:-$TOP/build/crshim}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
