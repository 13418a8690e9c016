#!/bin/bash
# make bench-runc [CRIU=/path/to/criu]: `runc checkpoint` and `runc restore` wall times of a busybox container
# and of one holding 1 GiB of random data, with crshim as runc's criu; with a second binary, the same with it
# and the ratio crshim/other.   bench-runc.sh CRSHIM [CRIU]
set -u
CRSHIM=$1 OTHER=${2:-}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-5}
WORKLOADS=${WORKLOADS:-busybox 1GiB} # WORKLOADS=busybox: the small container only
export HELPERS_BIN=${HELPERS_BIN:-$TOP/build/integration}
BATS_TEST_DIRNAME=$TOP/tests/integration
# shellcheck source=helpers.bash
. "$TOP/tests/integration/helpers.bash"
skip() { echo "bench-runc: $*"; exit 0; }
command -v runc >/dev/null || skip "runc is not installed (make deps-integration)"
helpers_build || exit 1
D=$(mktemp -d /tmp/rpc-bench.XXXXXX)
ID=rpc-bench-$$
trap 'runc delete -f $ID >/dev/null 2>&1; rm -rf "$D"' EXIT

now() { date +%s.%N; }

# one CRIU binary, one workload: median checkpoint and restore seconds over the rounds
measure() { # criu cmd rounds
	local criu=$1 cmd=$2 rounds=$3 ck=() rs=() i t0 t1 t2
	rm -rf "$D/b"
	make_bundle "$D/b" "$cmd" >/dev/null || return 1
	# stdout a pipe, as runtimes give it, also after each restore (CRIU refuses a file outside the container:
	# "Can't lookup mount")
	runc run -d --bundle "$D/b" "$ID" </dev/null > >(exec cat >"$D/out") 2>&1 || { cat "$D/out" >&2; return 1; }
	for _ in $(seq 600); do grep -q ready "$D/out" && break; sleep 0.1; done
	for i in $(seq "$rounds"); do
		rm -rf "$D/img"
		t0=$(now)
		runc --criu "$criu" checkpoint --image-path "$D/img" "$ID" || { tail -3 "$D/img/dump.log" >&2; return 1; }
		t1=$(now)
		runc --criu "$criu" restore -d --bundle "$D/b" --image-path "$D/img" "$ID" </dev/null \
			> >(exec cat >>"$D/out") 2>&1 ||
			{ tail -3 "$D/img/restore.log" >&2; return 1; }
		t2=$(now)
		ck+=("$(awk "BEGIN { print $t1 - $t0 }")") rs+=("$(awk "BEGIN { print $t2 - $t1 }")")
	done
	runc delete -f "$ID" >/dev/null 2>&1
	printf '%s %s\n' "$(printf '%s\n' "${ck[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
		"$(printf '%s\n' "${rs[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
}

BUSY='echo ready; i=0; while :; do i=$((i+1)); sleep 0.1; done'
BIG='exec memhog 1024'
printf '%-10s %-22s %12s %12s\n' binary workload checkpoint restore
declare -A R
for bin in crshim ${OTHER:+other}; do
	criu=$CRSHIM
	[ "$bin" = other ] && criu=$OTHER
	for w in $WORKLOADS; do
		if [ "$w" = busybox ]; then r=$(measure "$criu" "$BUSY" "$ROUNDS"); else r=$(measure "$criu" "$BIG" 1); fi
		[ -n "$r" ] || { echo "bench-runc: $bin $w failed"; r="nan nan"; }
		R[$bin.$w]=$r
		printf '%-10s %-22s %11.3fs %11.3fs\n' "$bin" "$w" ${r% *} ${r#* }
	done
done
if [ -n "$OTHER" ]; then
	for w in $WORKLOADS; do
		read -r a b <<<"${R[crshim.$w]}"
		read -r c d <<<"${R[other.$w]}"
		printf 'ratio crshim/%s %-8s checkpoint %.2f restore %.2f\n' "$(basename "$OTHER")" "$w" \
			"$(awk "BEGIN { print $a / $c }")" "$(awk "BEGIN { print $b / $d }")"
	done
fi
