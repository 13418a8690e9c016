#!/bin/bash
# Seed corpus for the fuzz targets: dump a few real programs (sleep and some ZDTM tests) with crshim and
# convert the images into fuzz-image inputs (tests/fuzz/mkseeds.c); if no dump works, images written with the
# image-layer API instead. CLI seeds are command lines from the CRIU docs and our README.
#   fuzz-seeds.sh FUZZ_B CRSHIM   -> FUZZ_B/seeds/{image,cli}/
set -u
FB=$1 CRSHIM=$2
MAKE=${MAKE:-make}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
OUT=$FB/seeds
rm -rf "$OUT" && mkdir -p "$OUT/image" "$OUT/cli" "$OUT/rpc" "$OUT/oci" "$OUT/swrk" "$OUT/config" "$OUT/hook" "$OUT/pagesrv"
# RPC seeds (criu_req datagrams): VERSION; FEATURE_CHECK{mem_track}; DUMP{images_dir_fd 3, pid 1, log_file,
# leave_running}; RESTORE{images_dir_fd 3, rst_sibling, inherit_fd {pipe:[1], 0}}.
printf '\x08\x0a' >"$OUT/rpc/version"
printf '\x08\x09\x2a\x02\x08\x01' >"$OUT/rpc/features"
printf '\x08\x01\x12\x10\x08\x03\x10\x01\x18\x01\x52\x08dump.log' >"$OUT/rpc/dump"
printf '\x08\x02\x12\x14\x08\x03\xd0\x01\x01\xda\x01\x0c\x0a\x08pipe:[1]\x10\x00' >"$OUT/rpc/restore"
# swrk seeds (fuzz-swrk: frames of a 2-byte length and a datagram): VERSION; FEATURE_CHECK then VERSION; an
# unsupported type (NOTIFY); a datagram that is no request.
printf '\x02\x00\x08\x0a' >"$OUT/swrk/version"
printf '\x06\x00\x08\x09\x2a\x02\x08\x01\x02\x00\x08\x0a' >"$OUT/swrk/features-version"
printf '\x02\x00\x08\x06' >"$OUT/swrk/notify"
printf '\x03\x00\xff\xff\xff' >"$OUT/swrk/garbage"
# CRIU config file seeds (fuzz-config): the forms of CRIU's docs (name value, name=value, --name, quotes, comments).
printf 'tcp-established\nfile-locks\n# a comment\nlog-file "/tmp/my log.txt"\n' >"$OUT/config/criu-docs"
printf -- '--shell-job\next-unix-sk # trailing comment\nv4\nmanage-cgroups=ignore\n' >"$OUT/config/forms"
printf 'root "/a \\"quoted\\" dir"\ninherit-fd fd[3]:pipe:[1]\nexternal mnt[]:m\n' >"$OUT/config/quotes"
TMP=$(mktemp -d /tmp/crshim-seeds.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# Start "$@" detached, without our fds (crshim refuses unknown fd kinds such as inherited pipes).
launch() {
	(
		for fd in /proc/$BASHPID/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
		cd "$TMP" || exit 1 # files a test makes in its cwd (fd_files) go with $TMP
		exec setsid "$@" </dev/null >/dev/null 2>&1
	) &
	LAUNCHED=$!
	disown "$LAUNCHED"
}

dump() { # name pid
	mkdir -p "$TMP/img/$1"
	if timeout 60 "$CRSHIM" dump -t "$2" -D "$TMP/img/$1" -o dump.log -R >/dev/null 2>&1; then
		echo "seeds: dumped $1"
	else
		echo "seeds: dump of $1 failed (see below), skipped"
		tail -3 "$TMP/img/$1/dump.log" 2>/dev/null | sed 's/^/    /'
		rm -rf "$TMP/img/$1"
	fi
	# its whole process group: a test's children (shm_anon_shared) outlive a kill of the test alone
	local pg
	pg=$(ps -o pgid= -p "$2" | tr -d ' ')
	[ -n "$pg" ] && [ "$pg" != "$(ps -o pgid= -p $$ | tr -d ' ')" ] && kill -9 -- "-$pg" 2>/dev/null
	kill -9 "$2" 2>/dev/null
}

if [ -x "$CRSHIM" ]; then
	launch sleep 1000
	pid=$LAUNCHED
	sleep 0.2
	dump sleep "$pid"
	ZB=$TOP/build/zdtm
	$MAKE -s -C tests/zdtm all >/dev/null 2>&1 || true
	# Tests whose images hold every record kind and file kind we have (SEED_TESTS overrides); a test that
	# does not exist (yet) is skipped. Add the test of a new image or file kind here.
	for t in ${SEED_TESTS:-env_argv cwd_umask vma_many sigaltstack posix_timers thread00 zombie00 \
		fd_files pipe00 eventfd00 signalfd00 timerfd00 epoll00 memfd00 inotify00 shm_anon_shared}; do
		[ -x "$ZB/static/$t" ] || continue
		launch "$ZB/static/$t" --pidfile="$TMP/$t.pid" --outfile="$TMP/$t.out"
		for _ in $(seq 200); do [ -s "$TMP/$t.pid" ] && break; sleep 0.1; done
		[ -s "$TMP/$t.pid" ] && dump "$t" "$(cat "$TMP/$t.pid")"
	done
	sleep 0.5 # a test that wrote its pidfile late is still killed
	for p in "$TMP"/*.pid; do [ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done
fi
if ls "$TMP"/img/*/ >/dev/null 2>&1; then
	"$FB/fuzz/mkseeds" "$OUT/image" "$TMP"/img/*/
else
	echo "seeds: no real images"
fi
# Plus one image of every kind written with the image-layer API: a kind no test dump has yet still gets a seed.
"$FB/fuzz/mkseeds" --synth "$OUT/image"

n=0
cli() { printf '%s\0' "$@" | head -c -1 >"$OUT/cli/seed-$n"; n=$((n + 1)); }
cli dump -t 42 -D /tmp/img -o dump.log -v4 --shell-job
cli dump -t 42 -D /tmp/img -W /tmp/work -R --tcp-established --ext-unix-sk --file-locks
cli pre-dump -t 42 -D /tmp/img --track-mem --prev-images-dir ../prev
cli restore -D /tmp/img -o restore.log --restore-detached --shell-job --pidfile /tmp/pid
cli restore -D /tmp/img -d --inherit-fd 'fd[3]:pipe:[1234]' --external 'mnt[]:m' --root /tmp/root
cli check --feature uffd
cli show /tmp/img
cli swrk 3
cli --version
cli -v dump -t 1 -D d
cli --help
# Page-server seeds (fuzz-pagesrv: byte 0 bit 0 FIX, then the client's stream). With FIX the harness writes the
# checksums, so these are sent with zeros: HELLO; OPEN pages-1.img, DATA, CLOSE, FINISH; OPEN, ABORT, FINISH.
ps_msg() { # cmd name len [payload]
	local l=$3
	printf "\\$(printf %03o "$1")\\000\\000\\000\\$(printf %03o "${#2}")\\000\\000\\000"
	printf "\\$(printf %03o $((l & 255)))\\$(printf %03o $((l >> 8 & 255)))\\000\\000\\000\\000\\000\\000"
	printf '\000\000\000\000\000\000\000\000%s%s' "$2" "${4:-}"
}
ps_hello() { ps_msg 1 "" 16 "CRSHPGX1"; printf '\001\000\000\000'; printf "\\000\\$(printf %03o $(($(getconf PAGESIZE) >> 8 & 255)))\\$(printf %03o $(($(getconf PAGESIZE) >> 16 & 255)))\\000"; }
{ printf '\001'; ps_hello; ps_msg 2 pages-1.img 0; ps_msg 3 "" 12 "twelve bytes"; ps_msg 4 pages-1.img 0
	ps_msg 2 pagemap-42.img 0; ps_msg 3 "" 4 "pmap"; ps_msg 4 pagemap-42.img 0; ps_msg 6 "" 0; } >"$OUT/pagesrv/finish"
{ printf '\001'; ps_hello; ps_msg 2 pages-2.img 0; ps_msg 3 "" 3 "abc"; ps_msg 5 pages-2.img 0; ps_msg 6 "" 0; } >"$OUT/pagesrv/abort"
{ printf '\001'; ps_hello; ps_msg 3 "" 3 "abc"; } >"$OUT/pagesrv/data-unopened"
# and the stream of a real dump of sleep through `crshim page-server` (a recording proxy on 127.0.0.1)
pagesrv_seed() {
	local d=$TMP/ps pid ppid port=
	mkdir -p "$d/srv" "$d/loc" || return
	"$CRSHIM" page-server --address 127.0.0.1 --port 0 -D "$d/srv" -o ps.log >"$d/port" 2>/dev/null &
	ppid=$!
	for _ in $(seq 100); do port=$(head -n1 "$d/port" 2>/dev/null | tr -dc 0-9); [ -n "$port" ] && break; sleep 0.1; done
	[ -n "$port" ] || { kill "$ppid" 2>/dev/null; return; }
	python3 - "$d/proxy" "$port" "$OUT/pagesrv/dump-sleep" <<'PY' &
import socket, sys, threading
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
open(sys.argv[1] + ".tmp", "w").write(str(l.getsockname()[1])); __import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
l.settimeout(60); c, _ = l.accept(); s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
rec = bytearray()
def back():
    while (b := s.recv(65536)):
        c.sendall(b)
    c.shutdown(socket.SHUT_WR)
t = threading.Thread(target=back); t.start()
while (b := c.recv(65536)):
    rec += b; s.sendall(b)
s.shutdown(socket.SHUT_WR); t.join()
open(sys.argv[3], "wb").write(b"\0" + rec)
PY
	local pypid=$!
	for _ in $(seq 100); do [ -s "$d/proxy" ] && break; sleep 0.1; done
	launch sleep 1000
	pid=$LAUNCHED
	sleep 0.2
	timeout 60 "$CRSHIM" dump -t "$pid" -D "$d/loc" -o dump.log -R --page-server --address 127.0.0.1 \
		--port "$(cat "$d/proxy" 2>/dev/null)" >/dev/null 2>&1 || echo "seeds: dump through the page server failed"
	kill -9 "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$pypid" 2>/dev/null || break; sleep 0.1; done
	kill "$pypid" "$ppid" 2>/dev/null
	wait "$pypid" "$ppid" 2>/dev/null
}
[ -x "$CRSHIM" ] && command -v python3 >/dev/null && pagesrv_seed
# OCI JSON seeds (fuzz-oci): configs of `runc spec`, a full one, a state, runc's state.json.
cp tests/fuzz/seeds-oci/* "$OUT/oci/"
# Hook seeds (fuzz-hook: a stage byte, then stdin): the states of the seed set under each stage.
for f in tests/fuzz/seeds-oci/*state*.json; do
	for st in 0 1 2 3; do
		{ printf "\\$(printf %03o "$st")"; cat "$f"; } >"$OUT/hook/$st-${f##*/}"
	done
done
echo "seeds: $(ls "$OUT/image" | wc -l) image, $(ls "$OUT/cli" | wc -l) cli, $(ls "$OUT/swrk" | wc -l) swrk, $(ls "$OUT/config" | wc -l) config, $(ls "$OUT/hook" | wc -l) hook, $(ls "$OUT/pagesrv" | wc -l) pagesrv"
