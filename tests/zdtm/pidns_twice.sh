#!/bin/bash
# A tree that is PID 1 of its own PID namespace, dumped with --leave-running, restored twice while the
# original still runs: its old PIDs in our namespace are taken, so each copy gets fresh ones from the
# kernel and only its PIDs inside its namespace back (the same as the original's). Each of the three
# (original, copy 1, copy 2) then PASSes on SIGTERM, one after the other; nothing is left. TAP output.
# Tests: static/pidns_threads (threads: their tids inside), pidns_ids (a tree with groups and sessions
# inside), proc_fds_pidns (/proc/PID/fd paths inside). A tree with a zombie or a session whose leader is
# gone (pidns00, pidns_tree) still needs its old PIDs free (restore-pidns.c: rst_pidns_fresh).
#
# pidns_twice.sh [--crshim PATH] [TEST...]   (env: CRSHIM, ZDTM_BIN, ZDTM_TMP)
# shellcheck disable=SC2016 # check's conditions are eval'ed
set -u
# shellcheck source=tests/zdtm/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
[ "${1:-}" = --crshim ] && CRSHIM=$2 && shift 2
TESTS=("$@")
nargs=$#
[ ${#TESTS[@]} -gt 0 ] || TESTS=(pidns_threads pidns_ids proc_fds_pidns)
TMPD=$(mktemp -d "${ZDTM_TMP:-/tmp}/zdtm.pidns_twice.XXXXXX")
gone() { for _ in $(seq 300); do alive "$1" || return 0; sleep 0.1; done; return 1; }
inner() { awk '$1 == "NSpid:" { print $NF }' "/proc/$1/status" 2>/dev/null; }
# the processes of the test's dir (cwd): the test's and its copies'
ours() { for p in /proc/[0-9]*; do [ "$(readlink "$p/cwd" 2>/dev/null)" = "$D" ] && echo "${p#/proc/}"; done; }
cleanup() { for D in "$TMPD"/*/; do D=${D%/}; for p in $(ours); do kill -KILL "$p" 2>/dev/null; done; done; [ "${KEEP:-}" ] || rm -rf "$TMPD"; }
trap cleanup EXIT

echo "1..$((${#TESTS[@]} * 7 + (nargs ? 0 : 2)))"
for t in "${TESTS[@]}"; do
	D=$TMPD/$t
	mkdir -p "$D/img"
	(cd "$D" && exec timeout -k 5 120 "$BIN/static/$t" --pidfile="$D/test.pid" --outfile="$D/test.out") >"$D/start.log" 2>&1
	P=$(tr -d ' \n' <"$D/test.pid" 2>/dev/null)
	if [ -z "$P" ] || ! alive "$P"; then
		for _ in $(seq 7); do notok "$t: did not start"; done
		continue
	fi
	"$CRSHIM" dump -t "$P" -D "$D/img" -o dump.log -v4 --leave-running >"$D/dump.out" 2>&1
	rc=$?
	check "$t: dump --leave-running (exit $rc)" '[ $rc = 0 ] && alive "$P"'
	r=()
	for i in 1 2; do
		"$CRSHIM" restore -D "$D/img" -o "restore$i.log" -v4 -d --pidfile "$D/r$i.pid" >"$D/restore$i.out" 2>&1
		rc=$?
		r[i]=$(tr -d ' \n' <"$D/r$i.pid" 2>/dev/null)
		check "$t: restore $i while the PIDs are taken (exit $rc, pid ${r[i]:-none})" \
			'[ $rc = 0 ] && [ -n "${r[i]}" ] && alive "${r[i]}"'
		[ $rc = 0 ] || head -n3 "$D/restore$i.out" | sed 's/^/# /'
	done
	check "$t: three trees, PID 1 of each namespace (host $P ${r[1]:-} ${r[2]:-})" \
		'[ "${r[1]:-x}" != "$P" ] && [ "${r[2]:-y}" != "$P" ] && [ "${r[1]:-x}" != "${r[2]:-y}" ] &&
		 [ "$(inner "$P")" = 1 ] && [ "$(inner "${r[1]:-0}")" = 1 ] && [ "$(inner "${r[2]:-0}")" = 1 ]'
	for who in "${r[1]:-}" "${r[2]:-}" "$P"; do
		: >"$D/test.out" # the same file for the three (each appends): emptied, not removed
		[ -n "$who" ] && kill -TERM "$who" 2>/dev/null
		if [ -n "$who" ] && gone "$who" && grep -q '^PASS$' "$D/test.out" 2>/dev/null; then
			ok "$t: $who PASSes on SIGTERM"
		else
			notok "$t: ${who:-a copy} PASSes on SIGTERM"
			sed 's/^/# /' "$D/test.out" 2>/dev/null | head -n5
		fi
	done
	for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
done
# A tree that still needs its old PIDs (pidns00: a zombie inside) restored beside its original: refused with
# one line naming the PID in use, the original unharmed.
if [ $nargs = 0 ]; then
	D=$TMPD/pidns00
	mkdir -p "$D/img"
	(cd "$D" && exec timeout -k 5 120 "$BIN/static/pidns00" --pidfile="$D/test.pid" --outfile="$D/test.out") >"$D/start.log" 2>&1
	P=$(tr -d ' \n' <"$D/test.pid" 2>/dev/null)
	"$CRSHIM" dump -t "${P:-0}" -D "$D/img" -o dump.log -v4 --leave-running >"$D/dump.out" 2>&1
	"$CRSHIM" restore -D "$D/img" -o restore.log -v4 -d --pidfile "$D/r.pid" >"$D/restore.out" 2>&1
	rc=$?
	check "pidns00 (a zombie inside): restore beside the original refused with one line (exit $rc: $(head -n1 "$D/restore.out"))" \
		'[ $rc = 1 ] && [ "$(grep -c . "$D/restore.out")" = 1 ] && grep -q "is already in use" "$D/restore.out" && [ ! -e "$D/r.pid" ]'
	: >"$D/test.out"
	kill -TERM "${P:-0}" 2>/dev/null
	check "pidns00: the original PASSes on SIGTERM" 'gone "${P:-0}" && grep -q "^PASS$" "$D/test.out"'
	for p in $(ours); do kill -KILL "$p" 2>/dev/null; done
fi
[ $failed = 0 ]
