#!/bin/bash
# make coverage: gcov build of crshim, crshim-hook and the unit tests in COV_B (the restorer blob keeps its own
# flags: no coverage there), then the unit tests, the ZDTM suite (mode cr), ZDTM modes ns, snaps, pagesrv, lazy
# and uns on cross-sections and the integration tests (runc, bundle, hook, ...) with that crshim as the runtimes' criu; lcov writes
# COV_B/coverage/index.html and the table of lines and functions covered per module (COV_B/summary.txt).
#   coverage.sh [COV_B]
# Environment:
#   COV_TESTS="a b"        the ZDTM tests of mode cr (default: the whole suite)
#   COV_NS_TESTS="a b"     the ZDTM tests of mode ns (default COV_NS_DEFAULT below; "none": no ns run)
#   COV_MODES="m ..."      further ZDTM modes, each on its cross-section COV_<MODE>_TESTS (defaults below):
#                          snaps (pre-dumps with --track-mem: mem/track.c), pagesrv (the page server and its
#                          client: image/page-xfer.c), lazy (lazy-pages: mem/lazy*.c; also with LAZY_KILL=1
#                          and LAZY_REMOTE=1 on two tests each), uns (user namespaces:
#                          ns/userns.c); "none": none
#   COV_INTEGRATION="f g"  the bats files of tests/integration/ (default below; "none": none)
#   COV_MIN=N              exit non-zero when engine, ns or oci covers less than N% of its lines (the table is
#                          printed in any case); without it only failed tests make the exit status non-zero
#   COV_REPORT_ONLY=1      only the report of the counters already in COV_B
#   ZDTM_SUITE_TIMEOUT     seconds for each ZDTM run (default 3600): a stuck test cannot hang the run
# The build dir is made afresh each time (no counters of an older build: gcov's "stamp mismatch"), and one run
# at a time holds COV_B.lock. Children that never return to main (they _exit, or a restore child that jumps into
# the blob) write their counters through contrib/qa/cov-flush.c, linked only into this build with --wrap.
set -u
CB=${1:-build-cov}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
MAKE=${MAKE:-make}
COV="--coverage -O0"
fail=0
# Mode ns: a cross-section (the nsmnt_* tests run in their namespaces in mode cr already).
COV_NS_DEFAULT="pid fork00 thread00 zombie00 session_child pidns_tree fd_files pipe00 shm_anon sk_unix_listen_queue
	sk_inet_tcp_listen sk_inet_tcp_established sk_inet_udp ipcns_mqueue posix_timers"
COV_INTEGRATION_DEFAULT="bundle runc hook world pagesrv"
COV_MODES_DEFAULT="snaps pagesrv lazy uns"
COV_SNAPS_DEFAULT="mem_churn mem_incr mem_sparse heap_brk fork00 shm_anon_shared"
COV_PAGESRV_DEFAULT="pid mem_sparse fork00 shm_anon"
COV_LAZY_DEFAULT="pid mem_sparse fork00 thread00 heap_brk lazy_touch"
COV_UNS_DEFAULT="pid fork00 fd_files pipe00 sk_inet_udp ipcns_mqueue ipcns_msg ipcns_shm uts_hostname netns_lo"

exec 9>"$CB.lock"
flock -n 9 || { echo "coverage: another run holds $CB.lock" >&2; exit 1; }

phase() { # name cmd...: run it, print how long it took, remember a failure
	local name=$1 t0=$SECONDS
	shift
	# without fd 9 (the lock): a process of a test that inherited it holds a flock, and its dump fails
	"$@" 9>&- || { echo "coverage: $name FAILED"; fail=1; }
	echo "coverage: [$((SECONDS - t0)) s] $name"
}

if [ "${COV_REPORT_ONLY:-}" != 1 ]; then
	T0=$SECONDS
	rm -rf "$CB"
	mkdir -p "$CB"
	# The wrappers of _exit, the jump into the blob and the root switch (cov-flush.c): not instrumented.
	gcc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -DCOV_DIR="\"$TOP/$CB\"" -c -o "$CB/cov-flush.o" contrib/qa/cov-flush.c ||
		exit 1
	CL="$TOP/$CB/cov-flush.o -Wl,--wrap=_exit,--wrap=arch_jump_to_blob,--wrap=ns_rst_root_child"
	$MAKE -s -j"$(nproc)" B="$CB" COV="$COV" COV_LDLIBS="$CL" "$CB/crshim" "$CB/crshim-hook" || exit 1
	UNITS=$(for c in tests/unit/*.c; do b=${c##*/}; printf "%s " "$CB/unit/${b%.c}"; done)
	$MAKE -s -j"$(nproc)" B="$CB" COV="$COV" COV_LDLIBS="$CL" $UNITS || exit 1
	find "$CB" -name '*.gcda' -delete # a clean start even if the build ran something
	export GCOV_ERROR_FILE="$TOP/$CB/gcov-errors.log"
	phase "unit tests" prove -e '' $UNITS
	ZT=${ZDTM_SUITE_TIMEOUT:-3600}
	phase "zdtm (cr)" timeout -k 10 "$ZT" $MAKE -s -C tests/zdtm run CRSHIM="$TOP/$CB/crshim" MODE=cr ITERS=1 \
		TESTS="${COV_TESTS:-}"
	NST=${COV_NS_TESTS:-$COV_NS_DEFAULT}
	[ "$NST" = none ] || phase "zdtm (ns)" timeout -k 10 "$ZT" $MAKE -s -C tests/zdtm run \
		CRSHIM="$TOP/$CB/crshim" MODE=ns ITERS=1 TESTS="$(echo $NST)"
	MODES=${COV_MODES:-$COV_MODES_DEFAULT}
	[ "$MODES" = none ] && MODES=
	for m in $MODES; do
		v="COV_${m^^}_TESTS"
		d="COV_${m^^}_DEFAULT"
		MT=${!v:-${!d:-}}
		[ -n "$MT" ] || { echo "coverage: no tests for mode $m (set $v)"; fail=1; continue; }
		phase "zdtm ($m)" timeout -k 10 "$ZT" $MAKE -s -C tests/zdtm run CRSHIM="$TOP/$CB/crshim" MODE="$m" \
			ITERS=1 TESTS="$(echo $MT)"
	done
	# mode lazy's variants (tests/zdtm/lazy.sh): the daemon killed (its watchdog kills the tree), and a
	# migration between two dirs on loopback; each checks its outcome
	if [[ " $MODES " == *" lazy "* ]]; then
		phase "zdtm (lazy, daemon killed)" env LAZY_KILL=1 timeout -k 10 "$ZT" $MAKE -s -C tests/zdtm run \
			CRSHIM="$TOP/$CB/crshim" MODE=lazy ITERS=1 TESTS="pid fork00"
		phase "zdtm (lazy, remote)" env LAZY_REMOTE=1 timeout -k 10 "$ZT" $MAKE -s -C tests/zdtm run \
			CRSHIM="$TOP/$CB/crshim" MODE=lazy ITERS=1 TESTS="pid mem_sparse"
	fi
	IT=${COV_INTEGRATION:-$COV_INTEGRATION_DEFAULT}
	if [ "$IT" != none ]; then
		files=()
		for f in $IT; do files+=("tests/integration/$f.bats"); done
		phase "integration ($IT)" env CRSHIM="$TOP/$CB/crshim" HELPERS_BIN="$TOP/$CB/integration" \
			bats --timing --filter-tags '!extra' "${files[@]}"
	fi
	echo "coverage: [$((SECONDS - T0)) s] build and tests"
	# gcov could not write a process's counters (e.g. one inside a container whose root hides the build dir)
	[ -s "$CB/gcov-errors.log" ] && echo "coverage: gcov errors (counters lost): $(sort -u "$CB/gcov-errors.log" | head -3)"
fi

LC="--quiet --rc lcov_branch_coverage=0"
# A zero baseline of every compiled file first: a file no test ran still counts (with 0 lines covered).
lcov $LC --capture --initial --directory "$CB" --base-directory "$TOP" --output-file "$CB/base.info" \
	2>"$CB/lcov.log" || { cat "$CB/lcov.log"; exit 1; }
lcov $LC --capture --directory "$CB" --base-directory "$TOP" --output-file "$CB/run.info" 2>>"$CB/lcov.log" ||
	{ cat "$CB/lcov.log"; exit 1; }
lcov $LC --add-tracefile "$CB/base.info" --add-tracefile "$CB/run.info" --output-file "$CB/all.info" \
	2>>"$CB/lcov.log" || { cat "$CB/lcov.log"; exit 1; }
# Only our sources: not libc headers, not generated protobuf code, not the tests themselves.
lcov $LC --remove "$CB/all.info" '/usr/*' "*/$CB/*" "$TOP/tests/*" "$TOP/contrib/*" --output-file "$CB/coverage.info" \
	2>>"$CB/lcov.log"
genhtml --quiet --title crshim --output-directory "$CB/coverage" "$CB/coverage.info" 2>>"$CB/lcov.log" ||
	{ cat "$CB/lcov.log"; exit 1; }
if grep -qi 'stamp mismatch\|cannot open\|corrupt' "$CB/lcov.log"; then
	echo "coverage: lcov/gcov complained (see $CB/lcov.log):"
	grep -i 'stamp mismatch\|cannot open\|corrupt' "$CB/lcov.log" | head -5
	fail=1
fi

# Modules with C sources in the tree (a module without any prints "no sources"); the engine also per subfolder
# (engine/base, engine/image, ...; engine/top = the pipelines at its top).
SRCMODS=$(for m in engine arch ns oci shim hooks; do [ -n "$(find "$m" -name '*.c' 2>/dev/null | head -1)" ] && printf "%s " "$m"; done)
SUBS=$(cd engine && for d in */; do d=${d%/}; [ "$d" = restorer ] || printf "engine/%s " "$d"; done)
awk -v top="$TOP/" -v srcmods="$SRCMODS" -v subs="$SUBS" -v min="${COV_MIN:-}" '
/^SF:/ { f = substr($0, 4); sub("^" top, "", f); n = split(f, p, "/"); m = p[1]; s = ""
	if (m == "engine") s = n > 2 ? "engine/" p[2] : "engine/top" }
/^LF:/ { v = substr($0, 4); lf[m] += v; if (s != "") lf[s] += v }
/^LH:/ { v = substr($0, 4); lh[m] += v; if (s != "") lh[s] += v }
/^FNF:/ { v = substr($0, 5); ff[m] += v; if (s != "") ff[s] += v }
/^FNH:/ { v = substr($0, 5); fh[m] += v; if (s != "") fh[s] += v }
function pct(a, b) { return b ? sprintf("%5.1f%%", 100 * a / b) : "  n/a" }
function row(m, label) { printf "%-14s %6d/%-6d %s     %4d/%-4d %s\n", label != "" ? label : m, lh[m], lf[m], pct(lh[m], lf[m]), fh[m], ff[m], pct(fh[m], ff[m]) }
END {
	n = split("engine arch ns oci shim hooks", mods, " ")
	ns = split("engine/top " subs, sm, " ")
	printf "%-14s %-24s %s\n", "module", "lines", "functions"
	for (i = 1; i <= n; i++) {
		m = mods[i]
		if (!lf[m]) { printf "%-14s %s\n", m, index(" " srcmods " ", " " m " ") ? "0 lines: sources not built" : "no sources"; continue }
		row(m, "")
		if (m == "engine") for (j = 1; j <= ns; j++) if (lf[sm[j]]) row(sm[j], "  " substr(sm[j], 8))
		if (m == "engine" || m == "ns" || m == "oci") {
			tl += lf[m]; th += lh[m]
			if (min != "" && 100 * lh[m] < min * lf[m]) below = below " " m
		}
	}
	printf "%-14s %6d/%-6d %s\n", "engine+ns+oci", th, tl, pct(th, tl)
	if (below != "") { printf "coverage: below COV_MIN=%s%% of lines:%s\n", min, below; exit 3 }
}' "$CB/coverage.info" | tee "$CB/summary.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail=1
echo "coverage: report $CB/coverage/index.html (open it in a browser, or: python3 -m http.server -d $CB/coverage)"
exit $fail
