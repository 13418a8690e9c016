# shellcheck shell=bash
# Mode lazy (sourced by run.sh): dump, then `crshim lazy-pages -D DIR` beside `crshim restore --lazy-pages
# -D DIR`: the tree runs at once and its private anonymous memory comes in on demand (userfaultfd) and in
# the background. The daemon must exit 0 once every page is in, with nothing in its log that failed.
# LAZY_FAULT=restore-lazy-mid: a first restore fails after it handed the first task to lazy-pages: exit 1
# with one line, nothing left (the daemon ends non-zero, the pid is free), then a normal lazy restore.
# LAZY_KILL=1: lazy-pages serves faults only (CRSHIM_LAZY_BG=0) and is killed (SIGKILL) after the restore:
# its watchdog must kill the restored tree, with one line in the log (the test then counts as passed
# when the task is gone and the line is there).
# LAZY_REMOTE=1: a migration between two "hosts", two dirs on loopback (lazy_remote_steps).

lz_start() { # dir [env...]: a lazy-pages daemon for dir, its pid in dir/lz.pid
	local d=$1; shift
	rm -f "$d/lz.pid" "$d/lazy.log"
	if ! env "$@" timeout -k 5 30 "$CRSHIM" lazy-pages -D "$d" --daemon --pidfile "$d/lz.pid" -o lazy.log -v4 \
		"${LZ_ARGS[@]}" >"$d/lz.out" 2>&1; then
		diag_file "$d/lz.out" 5
		bad "lazy-pages did not start: $(head -n1 "$d/lz.out")"
		return 1
	fi
	[ -S "$d/lazy-pages.sock" ] || { bad "lazy-pages made no $d/lazy-pages.sock"; return 1; }
}

LZ_ARGS=()

lz_pid() { tr -d ' \n' <"$1/lz.pid" 2>/dev/null; }

# After a good restore: the daemon exits 0 once all pages are in (the test may not have touched them all:
# the background copy does).
lz_done() { # dir
	local d=$1 p
	p=$(lz_pid "$d")
	[ -n "$p" ] || { bad "lazy-pages wrote no pidfile"; return 1; }
	if ! wait_gone "$p" 30; then
		kill -KILL "$p" 2>/dev/null
		diag_file "$d/lazy.log" 10
		bad "lazy-pages $p still running 30 s after the restore"
		return 1
	fi
	if ! grep -q "lazy-pages: done:" "$d/lazy.log" || grep -q "Error\|failed" "$d/lazy.log"; then
		diag_file "$d/lazy.log" 10
		bad "lazy-pages did not finish cleanly: $(grep -m1 "Error\|failed\|killed" "$d/lazy.log")"
		return 1
	fi
	diag "lazy-pages: $(grep -m1 -o "done:.*" "$d/lazy.log")"
}

lz_kill() { # dir: after a failure
	local p
	p=$(lz_pid "$1")
	[ -z "$p" ] || kill -KILL "$p" 2>/dev/null
	return 0
}

lazy_restore() { # dir
	local saved=("${OPTS[@]+"${OPTS[@]}"}") rc
	OPTS+=(--lazy-pages)
	crshim_restore "$1"
	rc=$?
	OPTS=("${saved[@]+"${saved[@]}"}")
	return $rc
}

lazy_fault_first() { # dir: a restore failing at restore-lazy-mid leaves nothing, the daemon ends non-zero
	# shellcheck disable=SC2034 # FPOINT: read by expect_fault_fail
	local d=$1 rc p kids0 kids1 left out="$TDIR/lazyfault.out" FPOINT=restore-lazy-mid
	lz_start "$d" || return 1
	p=$(lz_pid "$d")
	kids0=$(reaper_kids)
	pre_restore
	CRSHIM_FAULT=restore-lazy-mid timeout -k 5 "$CTIMEOUT" "$CRSHIM" restore -D "$d" -o restore-fault.log -v4 -d \
		--lazy-pages --pidfile "$TDIR/fault.pid" "${NSRST[@]}" "${OPTS[@]}" >"$out" 2>&1
	rc=$?
	expect_fault_fail restore $rc "$out" || { lz_kill "$d"; return 1; }
	wait_free "$TPID" 5 || { lz_kill "$d"; bad "the failed restore left pid $TPID"; return 1; }
	kids1=$(reaper_kids)
	left=$(comm -13 <(echo "$kids0") <(echo "$kids1") | grep . | tr '\n' ' ') # (the daemon, adopted, may go)
	[ -z "$left" ] || { lz_kill "$d"; bad "the failed restore left processes: $left"; return 1; }
	wait_gone "$p" 10 || { lz_kill "$d"; bad "lazy-pages $p still running after the restore failed"; return 1; }
	grep -q "the restore ended before it finished" "$d/lazy.log" ||
		{ diag_file "$d/lazy.log" 5; bad "lazy-pages did not say that the restore failed"; return 1; }
	[ ! -e "$d/lazy-pages.sock" ] || { bad "lazy-pages left its socket"; return 1; }
}

# LAZY_REMOTE=1: the source `crshim dump --lazy-pages --address 127.0.0.1 --port 0` writes the images into
# src and then serves the pages (its port on stdout); the images but the pages files go to dst, where
# `crshim lazy-pages --page-server --address 127.0.0.1 --port P` fetches the pages from the source as the
# restored tree touches them (and the rest in the background). The source must end 0 once all are in,
# and dst keeps no pages file. LAZY_DROP=1 in addition: the background copy is off and the source is
# killed once the tree runs: lazy-pages must kill the tree and say why in one line, and leave nothing.
lazy_src_start() { # src: the dump in the background (LZ_SRC: its pid, LZ_PORT: its port)
	local s=$1 ext
	ext=$(inhfd_ext)
	mkdir -p "$s"
	timeout -k 5 "$((CTIMEOUT + 60))" "$CRSHIM" dump -t "$TPID" -D "$s" -o dump.log -v4 --lazy-pages \
		--address 127.0.0.1 --port 0 ${ext:+"$ext"} "${NSDUMP[@]}" "${OPTS[@]}" >"$s/dump.port" 2>"$s/dump.out" &
	LZ_SRC=$! LZ_PORT=''
	for _ in $(seq 1200); do
		LZ_PORT=$(head -n1 "$s/dump.port" 2>/dev/null)
		[[ "$LZ_PORT" =~ ^[1-9][0-9]*$ ]] && return 0
		kill -0 "$LZ_SRC" 2>/dev/null || break
		sleep 0.05
	done
	wait "$LZ_SRC"
	diag_file "$s/dump.out" 5
	diag_file "$s/dump.log" 20
	bad "dump --lazy-pages did not start serving (exit $?): $(head -n1 "$s/dump.out")"
	return 1
}

lazy_src_kill() {
	local p
	p=$(pgrep -P "$LZ_SRC" 2>/dev/null)
	[ -z "$p" ] || kill -KILL "$p" 2>/dev/null
	kill -KILL "$LZ_SRC" 2>/dev/null
	wait "$LZ_SRC" 2>/dev/null
	return 0
}

lazy_remote_steps() {
	local src="$TDIR/src" dst="$TDIR/dst" f rc left
	lazy_src_start "$src" || return 1
	wait_gone "$TPID" 10 || { lazy_src_kill; bad "task $TPID still running after dump --lazy-pages"; return 1; }
	wait_free "$TPID" 30 || { lazy_src_kill; bad "pid $TPID still taken (zombie) after dump"; return 1; }
	mkdir -p "$dst"
	for f in "$src"/*.img; do # the other "host" gets the images, not the pages of the tasks
		[[ "${f##*/}" == pages-[0-9]*.img ]] || cp -a "$f" "$dst/" || { lazy_src_kill; bad "copy $f"; return 1; }
	done
	LZ_ARGS=(--page-server --address 127.0.0.1 --port "$LZ_PORT")
	if [ "${LAZY_DROP:-0}" = 1 ]; then
		lz_start "$dst" CRSHIM_LAZY_BG=0 || { LZ_ARGS=(); lazy_src_kill; return 1; }
		LZ_ARGS=()
		lazy_restore "$dst" || { lz_kill "$dst"; lazy_src_kill; return 1; }
		lazy_src_kill
		wait_gone "$TPID" 10 || { lz_kill "$dst"; bad "the source is gone, the restored task $TPID still runs"; return 1; }
		wait_gone "$(lz_pid "$dst")" 10 || { lz_kill "$dst"; bad "lazy-pages still runs after the source went away"; return 1; }
		grep -q "went away.*killed the restored tree" "$dst/lazy.log" ||
			{ diag_file "$dst/lazy.log" 5; bad "no line in the log about the killed tree"; return 1; }
		left=$(cd "$dst" && ls pages-[0-9]*.img lazy-pages.sock 2>/dev/null | tr '\n' ' ')
		[ -z "$left" ] || { bad "lazy-pages left $left"; return 1; }
		diag "source killed: $(grep -m1 -o "the page server.*" "$dst/lazy.log")"
		return 3
	fi
	lz_start "$dst" || { LZ_ARGS=(); lazy_src_kill; return 1; }
	LZ_ARGS=()
	lazy_restore "$dst" || { lz_kill "$dst"; lazy_src_kill; return 1; }
	compare_snap "restore --lazy-pages (remote)" "$TDIR/snap.1" ||
		{ lz_kill "$dst"; lazy_src_kill; diag_file "$dst/restore.log" 5; return 1; }
	lock_left "restore" || { lz_kill "$dst"; lazy_src_kill; return 1; }
	lz_done "$dst" || { lazy_src_kill; return 1; }
	wait "$LZ_SRC"
	rc=$?
	[ $rc = 0 ] || { diag_file "$src/dump.log" 10; bad "dump --lazy-pages ended with $rc after serving"; return 1; }
	grep -q "lazy-remote: done:" "$src/dump.log" || { diag_file "$src/dump.log" 5; bad "the source said nothing about the pages served"; return 1; }
	diag "source: $(grep -m1 -o "done:.*" "$src/dump.log")"
	left=$(cd "$dst" && ls pages-[0-9]*.img 2>/dev/null | tr '\n' ' ')
	[ -z "$left" ] || { bad "lazy-pages left the partial pages files $left"; return 1; }
}

lazy_steps() {
	local d="$TDIR/dump.1" p
	if [ "${LAZY_REMOTE:-0}" = 1 ]; then
		lazy_remote_steps
		return
	fi
	crshim_dump "$d" || return 1
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump (without --leave-running)"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	if [ "${LAZY_FAULT:-}" = restore-lazy-mid ]; then
		lazy_fault_first "$d" || return 1
	fi
	if [ "${LAZY_KILL:-0}" = 1 ]; then
		lz_start "$d" CRSHIM_LAZY_BG=0 || return 1
		lazy_restore "$d" || { lz_kill "$d"; return 1; }
		p=$(lz_pid "$d")
		kill -KILL "$p"
		wait_gone "$TPID" 10 || { bad "lazy-pages killed, the restored task $TPID still runs"; return 1; }
		grep -q "killed the restored tree" "$d/lazy.log" ||
			{ diag_file "$d/lazy.log" 5; bad "no line in the log about the killed tree"; return 1; }
		diag "lazy-pages killed: $(grep -m1 -o "the lazy-pages daemon ended.*" "$d/lazy.log")"
		return 3
	fi
	lz_start "$d" || return 1
	lazy_restore "$d" || { lz_kill "$d"; return 1; }
	compare_snap "restore --lazy-pages" "$TDIR/snap.1" || { lz_kill "$d"; diag_file "$d/restore.log" 5; return 1; }
	lock_left "restore" || { lz_kill "$d"; return 1; }
	lz_done "$d" || return 1
}
