#!/bin/bash
# crshim demo: checkpoint a running counter, let it die, restore it, and show it counts on from where it was.
#
#   usage: contrib/demo.sh /absolute/path/to/crshim      (`make demo` builds everything and runs this as root)
#
# Exits 0 and prints SUCCESS when the restored program has the same PID and its first counter after the restore
# follows the last one written before the checkpoint; otherwise prints FAILURE and exits 1.
set -euo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEMO_DIR=${CRSHIM_DEMO_DIR:-/tmp/crshim-demo}
IMG=$DEMO_DIR/images
LOG=$DEMO_DIR/counter.log
COUNT_SECS=3

if [ -t 1 ]; then B=$'\e[1m' G=$'\e[1;32m' R=$'\e[1;31m' N=$'\e[0m'; else B='' G='' R='' N=''; fi
STEP=0
step() { STEP=$((STEP + 1)); printf '\n%s==> Step %d: %s%s\n' "$B" "$STEP" "$*" "$N"; }
say() { printf '    %s\n' "$*"; }
run() { printf '    $ %s\n' "$*"; "$@"; }
indent() { sed 's/^/    | /'; }

PID=
RESULT=FAILURE
# Running (not gone, not a zombie) and still our counter (a PID can be reused).
counter_alive() {
	local st
	[ -n "$1" ] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
	tr "\0" " " 2>/dev/null <"/proc/$1/cmdline" | grep -q demo-counter
}
cleanup() {
	local rc=$?
	if counter_alive "$PID"; then kill -KILL "$PID" 2>/dev/null || true; fi
	wait 2>/dev/null || true
	if [ "$RESULT" = SUCCESS ]; then
		rm -rf "$DEMO_DIR"
	else
		printf '\n    Logs and images kept for inspection in %s\n' "$DEMO_DIR"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	printf '\n%sFAILURE: %s%s\n' "$R" "$*" "$N"
	exit 1
}
# Counter of line N (1-based) of the log, and the pid written on it.
counter_at() { sed -n "${1}p" "$LOG" | awk '{ print $5 }'; }
pid_at() { sed -n "${1}p" "$LOG" | awk '{ print $3 }'; }
lines() { if [ -f "$LOG" ]; then wc -l <"$LOG"; else echo 0; fi; }
now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# One line about a process, from /proc (procps may be missing on a fresh machine).
show_proc() {
	local stat f
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	read -ra f <<<"${stat##*) }"
	printf '    | pid %s  ppid %s  pgid %s  sid %s  state %s  cmd: %s\n' "$1" "${f[1]}" "${f[2]}" "${f[3]}" "${f[0]}" \
		"$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline")"
}
show_log_tail() { # file
	if [ -f "$1" ]; then
		say "last lines of $1:"
		tail -n 15 "$1" | indent
	else
		say "(no log file $1)"
	fi
}

# ---------------------------------------------------------------------------------------------------------------------
step "Prepare"
[ "$(id -u)" = 0 ] || fail "run as root (checkpoint/restore needs it)"
[ -x "$CRSHIM" ] || fail "no crshim binary at $CRSHIM (run 'make' first)"
COUNTER=$(dirname "$CRSHIM")/contrib/demo-counter
if [ ! -x "$COUNTER" ]; then
	mkdir -p "$(dirname "$COUNTER")"
	run cc -O2 -g -Wall -Werror -o "$COUNTER" "$HERE/demo-counter.c" || fail "cannot build demo-counter"
fi
say "crshim:       $CRSHIM ($("$CRSHIM" --version 2>&1 | head -n 1))"
say "demo program: $COUNTER"
say "work dir:     $DEMO_DIR (images in $IMG)"
rm -rf "$DEMO_DIR"
mkdir -p "$IMG"

# ---------------------------------------------------------------------------------------------------------------------
step "Start the counter: a detached program (own session, stdio on /dev/null) that logs a counter every 0.2 s"
printf '    $ setsid %s %s </dev/null >/dev/null 2>&1 &\n' "$COUNTER" "$LOG"
setsid "$COUNTER" "$LOG" </dev/null >/dev/null 2>&1 &
PID=$!
# Not a job of this shell (no "Killed" notice when the dump kills it), but still our child: the shell reaps it, so
# its PID is free again for the restore even where PID 1 does not reap orphans.
disown "$PID"
for _ in $(seq 50); do [ "$(lines)" -ge 1 ] && break; sleep 0.1; done
counter_alive "$PID" || fail "the counter did not start"
say "started, pid $PID"
show_proc "$PID"

# ---------------------------------------------------------------------------------------------------------------------
step "Let it count for $COUNT_SECS seconds"
sleep "$COUNT_SECS"
say "tail $LOG:"
tail -n 3 "$LOG" | indent

# ---------------------------------------------------------------------------------------------------------------------
step "Checkpoint it: crshim dump (the program is killed after its state is saved)"
T0=$(now)
if ! run "$CRSHIM" dump -t "$PID" -D "$IMG" -o dump.log -v4; then
	show_log_tail "$IMG/dump.log"
	fail "crshim dump failed (log: $IMG/dump.log)"
fi
T1=$(now)
say "dump took $(elapsed "$T0" "$T1") s"
for _ in $(seq 50); do counter_alive "$PID" || break; sleep 0.1; done
counter_alive "$PID" && fail "pid $PID is still running after the dump"
for _ in $(seq 50); do [ -e "/proc/$PID" ] || break; sleep 0.1; done
say "images written:"
find "$IMG" -maxdepth 1 -type f -printf '%12s  %f\n' | sort -k2 | indent
say "total image size: $(du -sh "$IMG" | cut -f1)"

# ---------------------------------------------------------------------------------------------------------------------
step "Show the program is gone"
if [ -e "/proc/$PID" ]; then
	show_proc "$PID"
	fail "pid $PID still exists after the dump"
fi
say "no process with pid $PID (/proc/$PID does not exist)"
BEFORE=$(lines)
[ "$BEFORE" -ge 1 ] || fail "the counter wrote nothing"
LAST=$(counter_at "$BEFORE")
say "last line written before the checkpoint:"
tail -n 1 "$LOG" | indent

say "waiting 1 second: nothing may write to the log meanwhile"
sleep 1
[ "$(lines)" = "$BEFORE" ] || fail "the log grew while the program was supposed to be checkpointed"
say "the log still has $BEFORE lines: nothing is running"

# ---------------------------------------------------------------------------------------------------------------------
step "Restore it: crshim restore, detached"
T0=$(now)
if ! run "$CRSHIM" restore -D "$IMG" -d --pidfile "$DEMO_DIR/restored.pid" -o restore.log -v4; then
	show_log_tail "$IMG/restore.log"
	fail "crshim restore failed (log: $IMG/restore.log)"
fi
T1=$(now)
say "restore took $(elapsed "$T0" "$T1") s"
NEWPID=$(tr -d ' \n' <"$DEMO_DIR/restored.pid" 2>/dev/null || true)
say "pidfile says: ${NEWPID:-(empty)}"
[ "$NEWPID" = "$PID" ] || fail "the pidfile names pid '${NEWPID}', expected $PID"
counter_alive "$PID" || fail "no running demo-counter with pid $PID after the restore"
say "pid $PID is back:"
show_proc "$PID"

# ---------------------------------------------------------------------------------------------------------------------
step "Check that it counts on from where it was"
sleep 2
# On a busy machine the 0.2 s steps stretch: wait up to 10 s more for at least 3 new lines.
for _ in $(seq 100); do [ $(($(lines) - BEFORE)) -ge 3 ] && break; sleep 0.1; done
AFTER=$(lines)
NEW=$((AFTER - BEFORE))
say "before the checkpoint (last 3 lines):"
sed -n "$((BEFORE > 2 ? BEFORE - 2 : 1)),${BEFORE}p" "$LOG" | indent
say "after the restore (first lines):"
sed -n "$((BEFORE + 1)),$((BEFORE + 5))p" "$LOG" | indent
[ "$NEW" -ge 3 ] || fail "only $NEW new line(s) in 12 seconds after the restore: the program is not counting"
FIRST=$(counter_at $((BEFORE + 1)))
FIRSTPID=$(pid_at $((BEFORE + 1)))
[ "$FIRSTPID" = "$PID" ] || fail "the first line after the restore was written by pid $FIRSTPID, not $PID"
[[ "$FIRST" =~ ^[0-9]+$ && "$LAST" =~ ^[0-9]+$ ]] || fail "cannot read the counters ('$LAST', '$FIRST')"
if [ "$FIRST" -le "$LAST" ] || [ "$FIRST" -gt $((LAST + 2)) ]; then
	fail "before dump: $LAST, first after restore: $FIRST (expected $((LAST + 1)))"
fi
# The numbering after the restore must have no gaps or repeats.
prev=$FIRST
for ((i = BEFORE + 2; i <= AFTER; i++)); do
	c=$(counter_at "$i")
	[ "$c" = $((prev + 1)) ] || fail "line $i: counter $c follows $prev"
	prev=$c
done
counter_alive "$PID" || fail "the restored program died"
RESULT=SUCCESS
say "before dump: $LAST ... after restore: $(sed -n "$((BEFORE + 1)),$((BEFORE + 3))p" "$LOG" | awk '{ print $5 }' | paste -sd, | sed 's/,/, /g'), ..."

# ---------------------------------------------------------------------------------------------------------------------
step "Clean up: stop the restored program, remove $DEMO_DIR"
kill -TERM "$PID" 2>/dev/null || true
for _ in $(seq 50); do counter_alive "$PID" || break; sleep 0.1; done
say "stopped pid $PID"

printf '\n%sSUCCESS: pid %s was checkpointed at counter %s and restored; it went on with %s.%s\n' "$G" "$PID" \
	"$LAST" "$FIRST" "$N"
