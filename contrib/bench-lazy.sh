#!/bin/bash
# crshim lazy restore benchmark: a process holding N MiB of random data (contrib/bench-mem) dumped twice with
# --leave-running (images on /dev/shm), then restored eagerly and with --lazy-pages beside `crshim lazy-pages`.
# Prints the time from the restore's start until the task runs (restore -d returned) for each, the time until
# lazy-pages had every page in (it exits then), and the data check of each restored process (bench-mem
# verifies every word on SIGUSR1). Speed never fails the run, a failed step or bad data does (exit 1).
#
#   usage: contrib/bench-lazy.sh /absolute/path/to/crshim     (make bench-lazy; root)
#   env:   CRSHIM_BENCH_LAZY_SIZES="1024"   sizes in MiB
set -euo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
SIZES=${CRSHIM_BENCH_LAZY_SIZES:-1024}
ME=bench-lazy
# shellcheck source=contrib/bench-mem.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-mem.sh"

printf '%-8s %14s %14s %16s %s\n' MiB "eager run (s)" "lazy run (s)" "lazy all in (s)" data
for mib in $SIZES; do
	d=$BASE/$mib
	mkdir -p "$d/run" "$d/eager" "$d/lazy"
	bench_mem_start "$mib" "$d/run"
	"$CRSHIM" dump -t "$PID" -D "$d/eager" -o dump.log -R || die "dump failed"
	"$CRSHIM" dump -t "$PID" -D "$d/lazy" -o dump.log || die "dump failed"
	for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done

	t0=$(now)
	"$CRSHIM" restore -D "$d/eager" -d -o restore.log || die "eager restore failed"
	t1=$(now)
	r1=$(bench_mem_check "$d/run")
	for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done

	"$CRSHIM" lazy-pages -D "$d/lazy" -o lazy.log -v4 --daemon --pidfile "$d/lazy/lz.pid" || die "lazy-pages did not start"
	SRVPID=$(cat "$d/lazy/lz.pid")
	t2=$(now)
	"$CRSHIM" restore -D "$d/lazy" -d --lazy-pages -o restore.log || die "lazy restore failed"
	t3=$(now)
	while kill -0 "$SRVPID" 2>/dev/null; do sleep 0.01; done
	t4=$(now)
	SRVPID=
	grep -q "lazy-pages: done:" "$d/lazy/lazy.log" || die "lazy-pages did not finish: $(tail -n1 "$d/lazy/lazy.log")"
	r2=$(bench_mem_check "$d/run")
	PID=
	printf '%-8s %14.3f %14.3f %16.3f %s\n' "$mib" "$(awk "BEGIN { print $t1 - $t0 }")" \
		"$(awk "BEGIN { print $t3 - $t2 }")" "$(awk "BEGIN { print $t4 - $t2 }")" "eager $r1; lazy $r2"
	[[ "$r1" == OK* && "$r2" == OK* ]] || exit 1
done
