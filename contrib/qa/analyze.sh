#!/bin/bash
# make analyze: three static analyzers over all C sources, zero findings allowed (exit 1 on any).
#   1. scan-build (clang static analyzer) over the whole build: crshim, the blob, crshim-hook, crshim-runtime,
#      unit tests, contrib programs
#   2. cppcheck over every C file of the tree (tracked or new, not ignored), inline suppressions only, each with a
#      reason:  // cppcheck-suppress <id> ; <why>
#   3. clang-tidy with .clang-tidy (tests/.clang-tidy for test code) over the files of compile_commands.json
#      (made by bear from a build), suppressions: // NOLINT(<check>): <why>
# Usage: analyze.sh BUILD_DIR      (ANALYZE_ONLY="scan cppcheck tidy" to run a subset;
#        TIDY_SINCE=REF runs clang-tidy only on the .c files changed since REF and not yet committed: a quick
#        check of one change; the full run (no TIDY_SINCE) is what CI runs)
set -u
AB=${1:-build-analyze}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
MAKE=${MAKE:-make}
ARCH=${ARCH:-$(uname -m)}
ONLY=${ANALYZE_ONLY:-scan cppcheck tidy}
JOBS=$(nproc)
rm -rf "$AB"
mkdir -p "$AB"
fail=0
declare -A took

# Everything the build makes that is C: crshim (+ blob), crshim-hook, crshim-runtime, unit tests, contrib programs.
UNITS=$(for f in tests/unit/*.c; do n=${f##*/}; echo "$AB/build/unit/${n%.c}"; done)
CONTRIB=$(for f in contrib/*.c; do n=${f##*/}; echo "$AB/build/contrib/${n%.c}"; done)
build_targets() { echo "$1/build/crshim" "$1/build/crshim-hook" "$1/build/crshim-runtime" $(echo $UNITS $CONTRIB | sed "s|$AB/build/|$1/build/|g"); }

if [[ " $ONLY " == *" scan "* ]]; then
	t=$SECONDS
	echo "== scan-build"
	# The Makefile sets CC itself: hand it the analyzer wrapper scan-build puts in $CC.
	# shellcheck disable=SC2016
	scan-build --status-bugs --use-cc=gcc -o "$AB/scan-build" \
		-enable-checker security.FloatLoopCounter -enable-checker optin.portability.UnixAPI \
		sh -c '$0 -s -j'"$JOBS"' B='"$AB/sb/build"' CC="$CC" '"$(build_targets "$AB/sb")" "$MAKE" \
		>"$AB/scan-build.log" 2>&1
	rc=$?
	grep -E 'warning:|error:' "$AB/scan-build.log" | grep -v '^scan-build:' | sort -u
	tail -2 "$AB/scan-build.log" | grep '^scan-build:'
	[ "$rc" = 0 ] || { echo "scan-build: FAILED (exit $rc, log $AB/scan-build.log)"; fail=1; }
	took[scan-build]=$((SECONDS - t))
fi

if [[ " $ONLY " == *" cppcheck "* ]]; then
	t=$SECONDS
	echo "== cppcheck"
	# Generated protobuf headers are needed (types, and their #if on the protobuf-c version); of the system
	# headers only protobuf-c's is read (the rest is libc, cppcheck knows it through its std/posix libraries).
	$MAKE -s B="$AB/cpp/build" $(for p in proto/*.proto; do n=${p##*/}; echo "$AB/cpp/build/proto/${n%.proto}.pb-c.h"; done) >/dev/null
	mkdir -p "$AB/cpp/sysinc" && ln -sfn /usr/include/protobuf-c "$AB/cpp/sysinc/protobuf-c"
	mapfile -t SRC < <(git ls-files --cached --others --exclude-standard '*.c' | sort -u)
	# Policy: every inline suppression names the check and says why.
	bad=$(git grep -nE 'cppcheck-suppress' -- '*.c' '*.h' | grep -vE 'cppcheck-suppress [A-Za-z0-9_]+ ; [^ ]' | grep -v '^contrib/qa/')
	if [ -n "$bad" ]; then
		echo "$bad"
		echo "cppcheck: suppressions must read '// cppcheck-suppress <id> ; <reason>'"
		fail=1
	fi
	cppcheck -q --template='{file}:{line}:{column}: {severity}: {message} [{id}]' --error-exitcode=1 \
		--enable=warning,style,performance,portability --inline-suppr --std=c11 --platform=unix64 \
		-j"$JOBS" -D__linux__ -D__GNUC__ -D__"$ARCH"__ -D_GNU_SOURCE \
		-I engine -I engine/restorer -I "arch/$ARCH" -I arch -I shim -I oci -I tests/zdtm/lib \
		-I "$AB/cpp/build/proto" -I "$AB/cpp/sysinc" \
		--suppress=missingIncludeSystem --suppress='*:*/proto/*.pb-c.h' --suppress='*:/usr/include/*' \
		--library="$TOP/contrib/qa/cppcheck.cfg" \
		--suppress=unusedStructMember --suppress=unreadVariable --suppress=variableScope \
		"${SRC[@]}" >"$AB/cppcheck.log" 2>&1
	rc=$?
	grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$AB/cppcheck.log"
	[ "$rc" = 0 ] || { echo "cppcheck: FAILED (log $AB/cppcheck.log)"; fail=1; }
	took[cppcheck]=$((SECONDS - t))
fi

if [[ " $ONLY " == *" tidy "* ]]; then
	t=$SECONDS
	echo "== clang-tidy"
	bear --output "$AB/compile_commands.json" -- $MAKE -s -j"$JOBS" B="$AB/tidy/build" \
		$(build_targets "$AB/tidy") >"$AB/tidy-build.log" 2>&1 ||
		{ echo "clang-tidy: the build failed (log $AB/tidy-build.log)"; tail -5 "$AB/tidy-build.log"; fail=1; }
	files="(engine|arch|shim|ns|oci|hooks|runtime|contrib|tests)/.*"
	if [ -n "${TIDY_SINCE:-}" ]; then
		changed=$( (git diff --name-only "$TIDY_SINCE" -- '*.c' && git ls-files --others --exclude-standard '*.c') |
			sort -u | sed 's/[.]c$//; s/[.+]/[&]/g' | paste -sd'|')
		[ -n "$changed" ] || changed='-no-c-file-changed-'
		echo "(only the C files changed since $TIDY_SINCE)"
		files="($changed)"
	fi
	run-clang-tidy -quiet -p "$AB" -j "$JOBS" -extra-arg=-Wno-unused-command-line-argument \
		"^$TOP/$files\.c\$" >"$AB/clang-tidy.log" 2>&1
	rc=$?
	sed 's/\x1b\[[0-9;]*m//g' "$AB/clang-tidy.log" | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' |
		sed "s|^$TOP/||" | sort -u
	[ "$rc" = 0 ] || { echo "clang-tidy: FAILED (log $AB/clang-tidy.log)"; fail=1; }
	took[clang-tidy]=$((SECONDS - t))
fi

for k in "${!took[@]}"; do printf '%s: %d s\n' "$k" "${took[$k]}"; done
[ "$fail" = 0 ] && echo "analyze: no findings" || echo "analyze: FAILED"
exit $fail
