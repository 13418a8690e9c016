#!/bin/bash
# make fuzz / make fuzz-regress: replay tests/fuzz/regress/<target>/ (every earlier crash), then (not with
# --regress) build a seed corpus and run each libFuzzer target for FUZZ_SECONDS. A crash, leak, timeout or OOM
# fails the run and its input is copied to tests/fuzz/regress/<target>/ to become a regression test (commit it
# together with the fix).
#   fuzz.sh [--regress] FUZZ_B CRSHIM TARGET...     (TARGET: fuzz-image, fuzz-cli, ...)
#   FUZZ_SECONDS (60) per target, FUZZ_JOBS (1) targets at a time
set -u
REGRESS=0
[ "${1:-}" = --regress ] && { REGRESS=1; shift; }
FB=$1 CRSHIM=$2
shift 2
SECS=${FUZZ_SECONDS:-60}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
export MAKE=${MAKE:-make}
fail=0

for t in "$@"; do
	name=${t#fuzz-}
	inputs=(tests/fuzz/regress/"$name"/*)
	[ -e "${inputs[0]}" ] || continue
	if "$FB/fuzz/$t" -runs=1 "${inputs[@]}" >"$FB/regress-$name.log" 2>&1; then
		echo "fuzz-regress $name: ${#inputs[@]} inputs ok"
	else
		echo "fuzz-regress $name: FAILED (log: $FB/regress-$name.log)"
		grep -m5 -E 'ERROR|SUMMARY|Running' "$FB/regress-$name.log" | sed 's/^/    /'
		fail=1
	fi
done
[ "$REGRESS" = 1 ] && exit $fail

contrib/qa/fuzz-seeds.sh "$FB" "$CRSHIM"
# One target: its result lines into $FB/$name.result, exit status 1 on a finding.
run_target() {
	local t=$1 name=${1#fuzz-} start=$SECONDS rc execs cov found f
	local corpus=$FB/corpus/$name crashes=$FB/crashes/$name
	mkdir -p "$corpus" "$crashes"
	rm -f "$crashes"/*
	"$FB/fuzz/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=1200000 \
		-artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" "$FB/seeds/$name" >"$FB/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$FB/$name.log")
	cov=$(grep -oE 'cov: [0-9]+' "$FB/$name.log" | tail -1)
	found=$(ls "$crashes" 2>/dev/null)
	if [ "$rc" != 0 ] || [ -n "$found" ]; then
		echo "fuzz $name: FAILED (exit $rc) after $((SECONDS - start)) s (log: $FB/$name.log)"
		grep -m10 -E 'ERROR|SUMMARY|#0 |#1 |#2 ' "$FB/$name.log" | sed 's/^/    /'
		mkdir -p "tests/fuzz/regress/$name"
		for f in $found; do
			cp "$crashes/$f" "tests/fuzz/regress/$name/$f"
			echo "    new regression input: tests/fuzz/regress/$name/$f"
		done
		return 1
	fi
	echo "fuzz $name: ok, $SECS s, ${execs:-?} execs, ${cov:-cov ?}, corpus $(ls "$corpus" | wc -l)"
}
# FUZZ_JOBS targets at a time (default 1; each libFuzzer run uses one core), results in the order given.
JOBS=${FUZZ_JOBS:-1}
pids=()
for t in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	run_target "$t" >"$FB/${t#fuzz-}.result" 2>&1 &
	pids+=($!)
done
i=0
for t in "$@"; do
	wait "${pids[$i]}" || fail=1
	cat "$FB/${t#fuzz-}.result"
	i=$((i + 1))
done
exit $fail
