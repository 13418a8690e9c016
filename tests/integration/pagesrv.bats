#!/usr/bin/env bats
# crshim page-server and dump --page-server on 127.0.0.1 (ports the kernel chooses): a dump through it restores
# from the server's dir; a server killed in the middle fails the dump with one line and the tree runs on; bad
# input to the server gives one error line and nothing written.
load helpers

T=/tmp/crshim-pagesrv-bats.$$

setup() {
	need_root
	need_cmd python3 python3
	mkdir -p "$T"
	SPID= PSPID=
}

teardown() {
	[ -z "$PSPID" ] || kill -KILL "$PSPID" 2>/dev/null
	[ -z "$SPID" ] || kill -KILL "$SPID" 2>/dev/null
	[ -z "${HOSTS:-}" ] || { ip netns del "${HOSTS}a"; ip netns del "${HOSTS}b"; ip link del "${HOSTS}br"; } 2>/dev/null
	rm -rf "$T"
}

# A process (its own session) holding $1 MiB of written memory; its PID in SPID.
start_sleeper() {
	setsid python3 -c "
import time, sys
b = bytearray(b'pagesrv' * ($1 << 17))
open('$T/ready', 'w').close()
while True:
    time.sleep(0.05)
    b[7] = (b[7] + 1) % 256
" </dev/null >/dev/null 2>&1 &
	SPID=$!
	for _ in $(seq 100); do [ -e "$T/ready" ] && break; sleep 0.1; done
	[ -e "$T/ready" ]
}

# A page server in the foreground, in the background of the test; PSPID, PORT.
start_server() { # dir
	mkdir -p "$1"
	"$CRSHIM" page-server --address 127.0.0.1 --port 0 -D "$1" -o ps.log -v4 >"$1/port" 2>"$1/err" &
	PSPID=$!
	for _ in $(seq 100); do [ -s "$1/port" ] && break; sleep 0.05; done
	PORT=$(cat "$1/port")
	[ -n "$PORT" ]
}

untraced() { # pid
	[ "$(awk '/^TracerPid:/ {print $2}' /proc/"$1"/status)" = 0 ] && ! grep -q '^State:.*[tT]' /proc/"$1"/status
}

@test "pagesrv: a dump through the page server restores from the server's dir" {
	start_sleeper 72 # a pages file over the 64 MiB of one message
	start_server "$T/srv"
	run "$CRSHIM" dump -t "$SPID" -D "$T/loc" --page-server --address 127.0.0.1 --port "$PORT" -o dump.log
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$T/loc/dump.log"; false; }
	wait "$PSPID"
	PSPID=
	! ls "$T/loc"/pages-*.img 2>/dev/null
	ls "$T/srv"/pages-"$SPID".img
	! ls -A "$T/srv" | grep -q '\.tmp$'
	for f in "$T/loc"/*.img; do [ -e "$T/srv/$(basename "$f")" ] || cp -a "$f" "$T/srv/"; done
	run "$CRSHIM" restore -D "$T/srv" -d -o restore.log
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$T/srv/restore.log"; false; }
	sleep 0.2
	kill -0 "$SPID"
	grep -q python3 /proc/"$SPID"/comm
}

@test "pagesrv: a page server killed during the dump fails it with one line, the tree runs on" {
	start_sleeper 64
	start_server "$T/srv"
	"$CRSHIM" dump -t "$SPID" -D "$T/loc" --page-server --address 127.0.0.1 --port "$PORT" -o dump.log \
		>"$T/dump.out" 2>&1 &
	dpid=$!
	for _ in $(seq 200); do grep -q "client .* connected" "$T/srv/ps.log" && break; sleep 0.02; done
	kill -STOP "$PSPID" # the dump blocks once the socket's buffers are full, then the server dies
	sleep 1
	kill -KILL "$PSPID"
	PSPID=
	st=0
	wait "$dpid" || st=$?
	cat "$T/dump.out"
	[ "$st" = 1 ]
	[ "$(grep -c . "$T/dump.out")" = 1 ]
	grep -q "page server 127.0.0.1:$PORT" "$T/dump.out"
	sleep 0.2
	kill -0 "$SPID"
	untraced "$SPID"
	! ls "$T/srv"/pages-*.img "$T/srv"/pagemap-*.img 2>/dev/null # a killed server may leave its .tmp files
}

@test "pagesrv: no page server there: the dump fails with one line before the tree is touched" {
	start_sleeper 1
	start_server "$T/srv"
	kill -KILL "$PSPID"
	wait "$PSPID" || true
	PSPID=
	run "$CRSHIM" dump -t "$SPID" -D "$T/loc" --page-server --address 127.0.0.1 --port "$PORT" -o dump.log
	[ "$status" = 1 ]
	[ "${#lines[@]}" = 1 ]
	[[ "$output" == *"connect"* ]]
	kill -0 "$SPID"
	untraced "$SPID"
}

@test "pagesrv: bad input to the page server: one error line, exit 1, nothing written" {
	start_server "$T/srv"
	bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT; printf 'GET / HTTP/1.0\r\n\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' >&3; sleep 0.5"
	st=0
	wait "$PSPID" || st=$?
	PSPID=
	[ "$st" = 1 ]
	cat "$T/srv/err"
	[ "$(grep -c . "$T/srv/err")" = 1 ]
	grep -q "page-server failed:.*not a crshim page client\|page-server failed:.*too long" "$T/srv/err"
	[ -z "$(ls -A "$T/srv" | grep -v -x -e port -e err -e ps.log)" ]
}

@test "pagesrv: options: --page-server needs --address and --port, only with dump, pre-dump and lazy-pages" {
	run "$CRSHIM" dump -t 1 -D "$T/x" --page-server --port 1234
	[ "$status" = 1 ] && [ "${#lines[@]}" = 1 ] && [[ "$output" == *"--address"* ]]
	run "$CRSHIM" restore -D "$T/x" --page-server --address 127.0.0.1 --port 1234
	[ "$status" = 1 ] && [[ "$output" == *"only valid with dump, pre-dump and lazy-pages"* ]]
	run "$CRSHIM" page-server --port 1234
	[ "$status" = 1 ] && [[ "$output" == *"-D"* ]]
	run "$CRSHIM" dump -t 1 -D "$T/x" --page-server --address 127.0.0.1 --port 70000
	[ "$status" = 1 ] && [[ "$output" == *"invalid port"* ]]
}

# contrib/migrate.sh (options...) moves a python3 process that must run on
migrate_ok() {
	start_sleeper 16
	run "$REPO/contrib/migrate.sh" -t "$SPID" -D "$T/mig" --crshim "$CRSHIM" "$@"
	[ "$status" = 0 ] || { echo "$output"; false; }
	echo "$output"
	sleep 0.2
	kill -0 "$SPID"
	grep -q python3 /proc/"$SPID"/comm
}

# bats test_tags=extra
@test "pagesrv: contrib/migrate.sh: two pre-dumps and the dump through page servers, restored, the process runs on" {
	migrate_ok -n 2
	[[ "$output" == *"round 2 (pre-dump):"* ]] && [[ "$output" == *"frozen (downtime):"* ]]
	[ -L "$T/mig/dst/final/parent" ]
}

# bats test_tags=extra
@test "pagesrv: contrib/migrate.sh --lazy: pre-dumps through page servers, the dump serves its pages, a lazy restore" {
	migrate_ok -n 1 --lazy
	[[ "$output" == *"final dump (lazy): done:"* ]] && [[ "$output" == *"all pages in:"* ]]
	! ls "$T/mig/dst/final"/pages-[0-9]*.img 2>/dev/null
}

# Two "hosts", network namespaces ${HOSTS}a and ${HOSTS}b, each joined by a veth to a bridge of this namespace
# (the peers' network), at $NET.1 and $NET.2; the service address $NET.100 on a's eth0.
two_hosts() {
	HOSTS=mg$$ NET="10.$((150 + RANDOM % 50)).$((RANDOM % 250))"
	local h
	ip link add "${HOSTS}br" type bridge && ip addr add "$NET.254/24" dev "${HOSTS}br" && ip link set "${HOSTS}br" up
	for h in a b; do
		ip netns add "$HOSTS$h"
		ip link add "$HOSTS$h" type veth peer name eth0 netns "$HOSTS$h"
		ip link set "$HOSTS$h" master "${HOSTS}br" up
		ip -n "$HOSTS$h" link set lo up && ip -n "$HOSTS$h" link set eth0 up
	done
	ip -n "${HOSTS}a" addr add "$NET.1/24" dev eth0 && ip -n "${HOSTS}b" addr add "$NET.2/24" dev eth0
	ip -n "${HOSTS}a" addr add "$NET.100/24" dev eth0
}

@test "pagesrv: contrib/migrate.sh between two network namespaces keeps a TCP connection to a peer" {
	need_cmd ip iproute2
	need_cmd nsenter util-linux
	two_hosts
	local port=$((20000 + RANDOM % 20000)) line
	# an echo server (upper case) on host a: its listener (SO_REUSEADDR) and the accepted connection
	setsid nsenter --net="/run/netns/${HOSTS}a" python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('$NET.100', $port)); s.listen(1)
c, _ = s.accept()
while True:
    d = c.recv(4096)
    if not d: break
    c.sendall(d.upper())
" </dev/null >/dev/null 2>&1 &
	SPID=$!
	for _ in $(seq 100); do nsenter --net="/run/netns/${HOSTS}a" ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
	exec 5<>"/dev/tcp/$NET.100/$port"
	echo "before the move" >&5
	read -r -t 10 line <&5
	[ "$line" = "BEFORE THE MOVE" ]
	run "$REPO/contrib/migrate.sh" -t "$SPID" -D "$T/mig" -n 1 --crshim "$CRSHIM" --src-netns "${HOSTS}a" \
		--dst-netns "${HOSTS}b" --address "$NET.2" --tcp-established --move-addr "$NET.100/24:eth0:eth0"
	echo "$output"
	[ "$status" = 0 ]
	[[ "$output" == *"round 1 (pre-dump):"* ]] && [[ "$output" == *"frozen (downtime):"* ]]
	# the server now runs on host b, and the same connection goes on
	[ "$(readlink "/proc/$SPID/ns/net")" = "$(nsenter --net="/run/netns/${HOSTS}b" readlink /proc/self/ns/net)" ]
	echo "after the move" >&5
	read -r -t 10 line <&5
	[ "$line" = "AFTER THE MOVE" ] || { echo "read back '$line'"; false; }
	exec 5>&-
}
