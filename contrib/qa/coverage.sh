#!/bin/bash
# make coverage: gcov build of crshim and the unit tests in COV_B (the restorer blob keeps its own flags: no
# coverage there), runs the unit tests and the ZDTM suite (mode cr) with that crshim, captures with lcov and writes
# COV_B/coverage/index.html, then prints lines and functions covered per module. The report is written even when
# tests fail; the exit status is then non-zero.
#   coverage.sh COV_B     (COV_TESTS="a b" to run only some ZDTM tests; COV_REPORT_ONLY=1: report only)
# The ZDTM run is bounded by ZDTM_SUITE_TIMEOUT seconds (default 1500): a stuck test cannot hang CI.
# Note: code that runs in a child which never returns to main (the restore child jumps into the blob) writes no
# counters; that code shows as not covered.
set -u
CB=${1:-build-cov}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
MAKE=${MAKE:-make}
COV="--coverage -O0"
fail=0

if [ "${COV_REPORT_ONLY:-}" != 1 ]; then # COV_REPORT_ONLY=1: only the report of the counters already in COV_B
	rm -rf "$CB"
	$MAKE -s -j"$(nproc)" B="$CB" COV="$COV" "$CB/crshim" || exit 1
	$MAKE -s B="$CB" COV="$COV" unit || { echo "coverage: unit tests FAILED"; fail=1; }
	timeout -k 10 "${ZDTM_SUITE_TIMEOUT:-1500}" $MAKE -s -C tests/zdtm run CRSHIM="$TOP/$CB/crshim" MODE=cr ITERS=1 \
		TESTS="${COV_TESTS:-}" || { echo "coverage: zdtm (cr) FAILED"; fail=1; }
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
lcov $LC --remove "$CB/all.info" '/usr/*' "*/$CB/*" "$TOP/tests/*" --output-file "$CB/coverage.info" \
	2>>"$CB/lcov.log"
genhtml --quiet --title crshim --output-directory "$CB/coverage" "$CB/coverage.info" 2>>"$CB/lcov.log" ||
	{ cat "$CB/lcov.log"; exit 1; }

# Modules with C sources in the tree (a module without any prints "no sources"); the engine also per subfolder
# (engine/base, engine/image, ...; engine/top = the pipelines at its top).
SRCMODS=$(for m in engine arch ns oci shim hooks; do [ -n "$(find "$m" -name '*.c' 2>/dev/null | head -1)" ] && printf "%s " "$m"; done)
SUBS=$(cd engine && for d in */; do d=${d%/}; [ "$d" = restorer ] || printf "engine/%s " "$d"; done)
awk -v top="$TOP/" -v srcmods="$SRCMODS" -v subs="$SUBS" '
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
		if (m == "engine" || m == "ns" || m == "oci") { tl += lf[m]; th += lh[m] }
	}
	printf "%-14s %6d/%-6d %s\n", "engine+ns+oci", th, tl, pct(th, tl)
}' "$CB/coverage.info" | tee "$CB/summary.txt"
echo "coverage: report $CB/coverage/index.html (open it in a browser, or: python3 -m http.server -d $CB/coverage)"
exit $fail
