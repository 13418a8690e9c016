#!/bin/bash
# make sanitize: ASan + UBSan build of crshim in its own dir (the restorer blob keeps its own freestanding flags),
# then the unit tests and the ZDTM suite (mode cr; and mode ns on SAN_NS_TESTS) with that binary. Any sanitizer report fails: UBSan does not
# recover, ASan halts on the first error, LeakSanitizer is on, each exits with its own code (ASan 66, UBSan 67,
# LSan 68), so a report in crshim or in its restore child (before the blob) fails the crshim call and the test; the
# output is also searched for sanitizer reports (SAN_B/unit.log, SAN_B/zdtm.log).
#   sanitize.sh SAN_B     (SAN_TESTS="a b" to run only some ZDTM tests)
# The ZDTM run is bounded by ZDTM_SUITE_TIMEOUT seconds (default 1500): a stuck test cannot hang CI.
set -u
SB=${1:-build-san}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
MAKE=${MAKE:-make}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer ${SAN_EXTRA:-}"
fail=0

rm -rf "$SB" # the Makefile does not track flags: always a fresh build
$MAKE -s -j"$(nproc)" B="$SB" SAN="$SAN" "$SB/crshim" || exit 1
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=66"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=67"
export LSAN_OPTIONS="exitcode=68"

t=$SECONDS
set -o pipefail
$MAKE -s B="$SB" SAN="$SAN" unit 2>&1 | tee "$SB/unit.log" || { echo "sanitize: unit tests FAILED"; fail=1; }
echo "sanitize: unit tests took $((SECONDS - t)) s"
t=$SECONDS
timeout -k 10 "${ZDTM_SUITE_TIMEOUT:-1500}" $MAKE -s -C tests/zdtm run CRSHIM="$TOP/$SB/crshim" MODE=cr ITERS=1 TESTS="${SAN_TESTS:-}" 2>&1 |
	tee "$SB/zdtm.log" ||
	{ echo "sanitize: zdtm (cr) FAILED"; fail=1; }
echo "sanitize: zdtm took $((SECONDS - t)) s"
if [ -n "${SAN_NS_TESTS:-}" ]; then # the restore of a tree with its own namespaces and mount tree
	t=$SECONDS
	timeout -k 10 "${ZDTM_SUITE_TIMEOUT:-1500}" $MAKE -s -C tests/zdtm run CRSHIM="$TOP/$SB/crshim" MODE=ns ITERS=1 \
		TESTS="$SAN_NS_TESTS" 2>&1 | tee "$SB/zdtm-ns.log" ||
		{ echo "sanitize: zdtm (ns) FAILED"; fail=1; }
	echo "sanitize: zdtm ns took $((SECONDS - t)) s"
fi

PAT='runtime error:|ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)'
LOGS=("$SB/unit.log" "$SB/zdtm.log")
[ -f "$SB/zdtm-ns.log" ] && LOGS+=("$SB/zdtm-ns.log")
if grep -qE "$PAT" "${LOGS[@]}"; then
	fail=1
	echo "sanitize: sanitizer reports (distinct):"
	grep -hoE "[^ ]*: ?($PAT).*" "${LOGS[@]}" | sed 's/^.*not ok [0-9]* - //' | sort | uniq -c
fi
[ "$fail" = 0 ] && echo "sanitize: no sanitizer reports, all tests passed" || echo "sanitize: FAILED"
exit $fail
