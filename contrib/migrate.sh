#!/bin/bash
# Moves a running process tree with pre-dumps and a final dump through `crshim page-server`, then restores
# it from the server's dirs (here on the same host: the "destination" is DIR/dst). Prints the bytes each
# round sent, the frozen time (from the final dump's start until the restored tree runs) and the total.
#
#   usage: contrib/migrate.sh -t PID -D DIR [-n ROUNDS] [--lazy] [--crshim PATH] [--address ADDR]
#     ROUNDS pre-dumps --track-mem (default 2), each the parent of the next, then the dump; a page server
#     (port chosen by the kernel) receives each round into DIR/dst/N; the other images are copied there.
#     --lazy: the final dump is `dump --lazy-pages` (it serves its pages from the source), the images but
#     its pages files are copied, and the destination restores at once with `restore --lazy-pages` beside
#     `lazy-pages --page-server`, which fetches the pages as the tree touches them (the pre-dumps' pages
#     are already there); the total ends when the source has served every page.
#   Two "hosts" on one machine: --src-netns A --dst-netns B (names of /run/netns, see `ip netns`): every
#     source step (pre-dumps, the dump, a lazy dump's serving) runs in A, every destination step (page
#     servers, lazy-pages, the restore) in B; --address is then B's address as A reaches it, --src-address
#     A's as B reaches it (for --lazy). --tcp-established keeps the tree's TCP connections, and
#     --move-addr IP/PLEN:SRCDEV:DSTDEV moves the address they use from A's SRCDEV to B's DSTDEV while the
#     tree is frozen (then B announces it with an unsolicited ARP, so that the peers' next packets go to B).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRSHIM=$HERE/../build/crshim
ROUNDS=2 PID='' DIR='' ADDR=127.0.0.1 SADDR='' LAZY=0 SRCNS='' DSTNS='' TCP=() MOVE=
while [ $# -gt 0 ]; do
	case $1 in
	-t) PID=$2; shift 2 ;;
	-D) DIR=$2; shift 2 ;;
	-n) ROUNDS=$2; shift 2 ;;
	--crshim) CRSHIM=$2; shift 2 ;;
	--address) ADDR=$2; shift 2 ;;
	--src-address) SADDR=$2; shift 2 ;;
	--lazy) LAZY=1; shift ;;
	--src-netns) SRCNS=$2; shift 2 ;;
	--dst-netns) DSTNS=$2; shift 2 ;;
	--tcp-established) TCP=(--tcp-established); shift ;;
	--move-addr) MOVE=$2; shift 2 ;;
	*) echo "migrate: unknown argument $1 (usage: -t PID -D DIR [-n ROUNDS] [--lazy] [--crshim PATH]" \
		"[--address A] [--src-address A] [--src-netns NS --dst-netns NS] [--tcp-established]" \
		"[--move-addr IP/PLEN:SRCDEV:DSTDEV])" >&2; exit 2 ;;
	esac
done
{ [ -n "$PID" ] && [ -n "$DIR" ]; } || { echo "migrate: needs -t PID and -D DIR" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[0-9]+$ ]] || { echo "migrate: bad -n $ROUNDS" >&2; exit 2; }
SADDR=${SADDR:-$ADDR}
if [ -n "$MOVE" ] && ! [[ "$MOVE" =~ ^[0-9.]+/[0-9]+:[^:]+:[^:]+$ ]]; then
	echo "migrate: bad --move-addr $MOVE (IP/PLEN:SRCDEV:DSTDEV)" >&2
	exit 2
fi
# the crshim of the source and of the destination: in their network namespaces, if given
src() { if [ -n "$SRCNS" ]; then nsenter --net="/run/netns/$SRCNS" "$CRSHIM" "$@"; else "$CRSHIM" "$@"; fi; }
dst() { if [ -n "$DSTNS" ]; then nsenter --net="/run/netns/$DSTNS" "$CRSHIM" "$@"; else "$CRSHIM" "$@"; fi; }
move_addr() { # the address of the tree's connections from the source to the destination
	[ -n "$MOVE" ] || return 0
	local a=${MOVE%%:*} rest=${MOVE#*:}
	ip ${SRCNS:+-n "$SRCNS"} addr del "$a" dev "${rest%%:*}"
	ip ${DSTNS:+-n "$DSTNS"} addr add "$a" dev "${rest#*:}"
	${DSTNS:+nsenter --net="/run/netns/$DSTNS"} busybox arping -q -U -c 1 -I "${rest#*:}" "${a%/*}" || true
}
PSPID='' SRCPID=''
trap 'for p in $PSPID $SRCPID; do kill -KILL "$p" 2>/dev/null || true; done' EXIT
now() { echo "${EPOCHREALTIME/,/.}"; }
mkdir -p "$DIR/src" "$DIR/dst"

server() { # dir: a page server for one round; its port in PORT
	mkdir -p "$1"
	dst page-server --address "$ADDR" --port 0 -D "$1" -o ps.log --daemon --pidfile "$1/ps.pid" \
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
	for f in "$1"/*.img; do
		[ -e "$2/${f##*/}" ] || { [ "$LAZY" = 1 ] && [[ "${f##*/}" == pages-[0-9]*.img ]]; } || cp -a "$f" "$2/"
	done
	[ ! -L "$1/parent" ] || cp -a "$1/parent" "$2/"
}

t0=$(now)
prev=''
for ((i = 1; i <= ROUNDS; i++)); do
	server "$DIR/dst/$i"
	src pre-dump -t "$PID" -D "$DIR/src/$i" -o dump.log --track-mem ${prev:+--prev-images-dir "$prev"} \
		--page-server --address "$ADDR" --port "$PORT"
	printf 'round %d (pre-dump): %d bytes sent\n' "$i" "$(server_done "$DIR/dst/$i")"
	PSPID='' # (server_done ran in a subshell)
	copy "$DIR/src/$i" "$DIR/dst/$i"
	prev=../$i
done
if [ "$LAZY" = 1 ]; then
	mkdir -p "$DIR/src/final" "$DIR/dst/final"
	t1=$(now)
	src dump -t "$PID" -D "$DIR/src/final" -o dump.log -v3 ${prev:+--track-mem --prev-images-dir "$prev"} \
		"${TCP[@]}" --lazy-pages --address "$SADDR" --port 0 >"$DIR/src/final/port" &
	SRCPID=$!
	PORT=''
	until [[ "$PORT" =~ ^[1-9][0-9]*$ ]]; do # printed once the images are written
		kill -0 "$SRCPID" 2>/dev/null || { wait "$SRCPID" || true; echo "migrate: dump --lazy-pages failed" >&2; exit 1; }
		sleep 0.01
		PORT=$(head -n1 "$DIR/src/final/port")
	done
	td=$(now)
	copy "$DIR/src/final" "$DIR/dst/final"
	move_addr
	tr=$(now)
	dst lazy-pages --page-server --address "$SADDR" --port "$PORT" -D "$DIR/dst/final" -o lazy.log -v3 --daemon
	dst restore -D "$DIR/dst/final" -o restore.log -d --lazy-pages "${TCP[@]}"
	t2=$(now)
	wait "$SRCPID"
	SRCPID=''
	t3=$(now)
	printf 'final dump (lazy): %s\n' "$(grep -o "done: .*" "$DIR/src/final/dump.log" | sed 's/ in [0-9.]* s$//')"
	awk "BEGIN { printf \"frozen (downtime): %.3f s (dump %.3f s, copy %.3f s, restore %.3f s), total: %.3f s (all pages in: %.3f s after the restore)\n\", \
		$t2 - $t1, $td - $t1, $tr - $td, $t2 - $tr, $t3 - $t0, $t3 - $t2 }"
	exit 0
fi
server "$DIR/dst/final"
t1=$(now)
src dump -t "$PID" -D "$DIR/src/final" -o dump.log ${prev:+--track-mem --prev-images-dir "$prev"} \
	"${TCP[@]}" --page-server --address "$ADDR" --port "$PORT"
td=$(now)
printf 'final dump: %d bytes sent\n' "$(server_done "$DIR/dst/final")"
PSPID=''
copy "$DIR/src/final" "$DIR/dst/final"
move_addr
tr=$(now)
dst restore -D "$DIR/dst/final" -o restore.log -d "${TCP[@]}"
t2=$(now)
awk "BEGIN { printf \"frozen (downtime): %.3f s (dump %.3f s, copy %.3f s, restore %.3f s), total: %.3f s\n\", \
	$t2 - $t1, $td - $t1, $tr - $td, $t2 - $tr, $t2 - $t0 }"
