# shellcheck shell=bash
# Mode pagesrv (sourced by run.sh): the pages go through `crshim page-server` on 127.0.0.1 (a port the kernel
# chooses). A pre-dump --track-mem to one page server, then the dump with it as parent to another; the
# local dirs must hold no pages file; the other images are copied next to the received pages (as a user
# copies them to the destination) and the restore runs from the server's dirs.

ps_start() { # dir: a page server on 127.0.0.1, port in PSPORT
	local d=$1
	mkdir -p "$d"
	if ! timeout -k 5 30 "$CRSHIM" page-server --address 127.0.0.1 --port 0 -D "$d" --daemon \
		--pidfile "$d/ps.pid" -o ps.log -v4 >"$d/ps.port" 2>"$d/ps.err"; then
		diag_file "$d/ps.err" 5
		bad "page-server did not start: $(head -n1 "$d/ps.err")"
		return 1
	fi
	PSPORT=$(tr -d ' \n' <"$d/ps.port")
	[[ "$PSPORT" =~ ^[1-9][0-9]*$ ]] || { bad "page-server printed no port"; return 1; }
}

# The server exits 0 once the dump finished; one that does not is killed (we started it) and fails the test.
ps_done() { # dir
	local d=$1 p
	p=$(tr -d ' \n' <"$d/ps.pid" 2>/dev/null)
	[ -n "$p" ] || { bad "page-server wrote no pidfile"; return 1; }
	if ! wait_gone "$p" 10; then
		kill -KILL "$p" 2>/dev/null
		bad "page-server $p still running after the dump"
		return 1
	fi
	if grep -q "Error\|failed" "$d/ps.log"; then
		diag_file "$d/ps.log" 5
		bad "page-server: $(grep -m1 "Error\|failed" "$d/ps.log")"
		return 1
	fi
}

ps_kill() { # dir: after a failure
	local p
	p=$(tr -d ' \n' <"$1/ps.pid" 2>/dev/null)
	[ -z "$p" ] || kill -KILL "$p" 2>/dev/null
	return 0
}

# What the user copies to the destination: the images (not the pages, already there) and the parent link.
ps_copy() { # local-dir server-dir
	local f
	for f in "$1"/*.img; do
		[ -e "$2/$(basename "$f")" ] && [[ "$(basename "$f")" == pages-* ]] && continue
		cp -a "$f" "$2/" || return 1
	done
	[ ! -L "$1/parent" ] || cp -a "$1/parent" "$2/"
}

ps_no_pages() { # dir
	local l
	l=$(cd "$1" && ls pages-*.img 2>/dev/null | tr '\n' ' ')
	[ -z "$l" ] || { bad "pages written locally although sent to the page server: $l"; return 1; }
}

pagesrv_steps() {
	local s="$TDIR/srv"
	ps_start "$s/pre.1" || return 1
	DUMPVERB=pre-dump crshim_dump "$TDIR/pre.1" --track-mem --page-server --address 127.0.0.1 --port "$PSPORT" ||
		{ ps_kill "$s/pre.1"; REASON="pre-dump: $REASON"; return 1; }
	check_running || { REASON="after the pre-dump: $REASON"; return 1; }
	ps_done "$s/pre.1" || return 1
	ps_no_pages "$TDIR/pre.1" || return 1
	sleep 0.2 # the test goes on changing its memory
	ps_start "$s/dump.1" || return 1
	crshim_dump "$TDIR/dump.1" --track-mem --prev-images-dir ../pre.1 --page-server --address 127.0.0.1 \
		--port "$PSPORT" || { ps_kill "$s/dump.1"; return 1; }
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump (without --leave-running)"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	ps_done "$s/dump.1" || return 1
	ps_no_pages "$TDIR/dump.1" || return 1
	ps_copy "$TDIR/pre.1" "$s/pre.1" && ps_copy "$TDIR/dump.1" "$s/dump.1" ||
		{ bad "cannot copy the images to the server's dirs"; return 1; }
	crshim_restore "$s/dump.1" || return 1
	compare_snap "restore" "$TDIR/snap.1" || { diag_file "$s/dump.1/restore.log" 5; return 1; }
	lock_left "restore" || return 1
}
