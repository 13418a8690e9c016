#!/bin/bash
# Moves a running process tree with pre-dumps and a final dump through `crshim page-server`, then restores
# it from the server's dirs (here on the same host: the "destination" is DIR/dst). Prints the bytes each
# round sent, the frozen time (from the final dump's start until the restored tree runs) and the total.
#
#   usage: contrib/migrate.sh -t PID -D DIR [-n ROUNDS] [--crshim PATH] [--address ADDR]
#     ROUNDS pre-dumps --track-mem (default 2), each the parent of the next, then the dump; a page server
#     (port chosen by the kernel) receives each round into DIR/dst/N; the other images are copied there.
#   Not yet: two network namespaces joined by a veth, a TCP connection kept (--tcp-established), lazy restore.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRSHIM=$HERE/../build/crshim
ROUNDS=2 PID='' DIR='' ADDR=127.0.0.1
while [ $# -gt 0 ]; do
	case $1 in
	-t) PID=$2; shift 2 ;;
	-D) DIR=$2; shift 2 ;;
	-n) ROUNDS=$2; shift 2 ;;
	--crshim) CRSHIM=$2; shift 2 ;;
	--address) ADDR=$2; shift 2 ;;
	*) echo "migrate: unknown argument $1 (usage: -t PID -D DIR [-n ROUNDS] [--crshim PATH])" >&2; exit 2 ;;
	esac
done
{ [ -n "$PID" ] && [ -n "$DIR" ]; } || { echo "migrate: needs -t PID and -D DIR" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[0-9]+$ ]] || { echo "migrate: bad -n $ROUNDS" >&2; exit 2; }
PSPID=''
trap '[ -z "$PSPID" ] || kill -KILL "$PSPID" 2>/dev/null || true' EXIT
now() { echo "${EPOCHREALTIME/,/.}"; }
mkdir -p "$DIR/src" "$DIR/dst"

server() { # dir: a page server for one round; its port in PORT
	mkdir -p "$1"
	"$CRSHIM" page-server --address "$ADDR" --port 0 -D "$1" -o ps.log --daemon --pidfile "$1/ps.pid" \
		>"$1/port"
	PSPID=$(cat "$1/ps.pid")
	PORT=$(cat "$1/port")
}
server_done() { # dir: the server exits once the round finished
	for _ in $(seq 100); do kill -0 "$PSPID" 2>/dev/null || break; sleep 0.05; done
	PSPID=''
	stat -c %s "$1"/pages-*.img 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}
copy() { # src dst: the images that are not pages, and the parent link
	local f
	for f in "$1"/*.img; do [ -e "$2/${f##*/}" ] || cp -a "$f" "$2/"; done
	[ ! -L "$1/parent" ] || cp -a "$1/parent" "$2/"
}

t0=$(now)
prev=''
for ((i = 1; i <= ROUNDS; i++)); do
	server "$DIR/dst/$i"
	"$CRSHIM" pre-dump -t "$PID" -D "$DIR/src/$i" -o dump.log --track-mem ${prev:+--prev-images-dir "$prev"} \
		--page-server --address "$ADDR" --port "$PORT"
	printf 'round %d (pre-dump): %d bytes sent\n' "$i" "$(server_done "$DIR/dst/$i")"
	copy "$DIR/src/$i" "$DIR/dst/$i"
	prev=../$i
done
server "$DIR/dst/final"
t1=$(now)
"$CRSHIM" dump -t "$PID" -D "$DIR/src/final" -o dump.log ${prev:+--track-mem --prev-images-dir "$prev"} \
	--page-server --address "$ADDR" --port "$PORT"
td=$(now)
printf 'final dump: %d bytes sent\n' "$(server_done "$DIR/dst/final")"
copy "$DIR/src/final" "$DIR/dst/final"
tr=$(now)
"$CRSHIM" restore -D "$DIR/dst/final" -o restore.log -d
t2=$(now)
awk "BEGIN { printf \"frozen (downtime): %.3f s (dump %.3f s, copy %.3f s, restore %.3f s), total: %.3f s\n\", \
	$t2 - $t1, $td - $t1, $tr - $td, $t2 - $tr, $t2 - $t0 }"
