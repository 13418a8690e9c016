#!/bin/bash
# crshim page server benchmark: a process holding N MiB of random data (contrib/bench-mem) dumped with
# --leave-running into a local dir, then dumped through `crshim page-server` on 127.0.0.1 into another dir
# (both on /dev/shm), restored from the server's dir and its data verified. Prints MB/s (10^6 bytes of page
# data per second of dump) of each; speed never fails the run, a failed step or bad data does (exit 1).
#
#   usage: contrib/bench-pagesrv.sh /absolute/path/to/crshim     (make bench-pagesrv; root)
#   env:   CRSHIM_BENCH_PS_SIZES="256"   sizes in MiB
set -euo pipefail

CRSHIM=${1:?usage: $0 /path/to/crshim}
SIZES=${CRSHIM_BENCH_PS_SIZES:-256}
ME=bench-pagesrv
# shellcheck source=contrib/bench-mem.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-mem.sh"

printf '%-8s %12s %12s %14s %s\n' MiB "local MB/s" "server MB/s" "sent (MiB)" data
for mib in $SIZES; do
	d=$BASE/$mib
	mkdir -p "$d/run" "$d/local" "$d/loc" "$d/srv"
	bench_mem_start "$mib" "$d/run"
	t0=$(now)
	"$CRSHIM" dump -t "$PID" -D "$d/local" -o dump.log -R || die "local dump failed"
	t1=$(now)
	bytes=$(stat -c %s "$d/local"/pages-*.img | awk '{ s += $1 } END { print s }')
	rm -rf "$d/local"
	"$CRSHIM" page-server --address 127.0.0.1 --port 0 -D "$d/srv" -o ps.log --daemon \
		--pidfile "$d/srv/ps.pid" >"$d/srv/port" || die "page-server did not start"
	SRVPID=$(cat "$d/srv/ps.pid")
	t2=$(now)
	"$CRSHIM" dump -t "$PID" -D "$d/loc" -o dump.log --page-server --address 127.0.0.1 \
		--port "$(cat "$d/srv/port")" || die "dump through the page server failed"
	t3=$(now)
	for _ in $(seq 100); do kill -0 "$SRVPID" 2>/dev/null || break; sleep 0.1; done
	SRVPID=
	sent=$(stat -c %s "$d/srv"/pages-*.img | awk '{ s += $1 } END { print s }')
	for f in "$d/loc"/*.img; do [ -e "$d/srv/${f##*/}" ] || cp -a "$f" "$d/srv/"; done
	"$CRSHIM" restore -D "$d/srv" -d -o restore.log || die "restore from the server's dir failed"
	result=$(bench_mem_check "$d/run")
	PID=
	printf '%-8s %12s %12s %14s %s\n' "$mib" \
		"$(awk "BEGIN { printf \"%.0f\", $bytes / ($t1 - $t0) / 1e6 }")" \
		"$(awk "BEGIN { printf \"%.0f\", $sent / ($t3 - $t2) / 1e6 }")" \
		"$(awk "BEGIN { printf \"%.1f\", $sent / 1048576 }")" "$result"
	[[ "$result" == OK* ]] || exit 1
done
