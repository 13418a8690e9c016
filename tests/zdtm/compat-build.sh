#!/bin/bash
# compat-build.sh COMMIT: build crshim as it was at COMMIT (mode compat dumps with it) and print its path.
# The tree is a `git worktree` under build/compat/<sha>/ and is built once (cached). A clone that lacks the commit
# (shallow, or a single branch) fetches it from its remotes first; only when no remote has it does this fail,
# saying so. Output of git and make goes to build/compat/build.log. Exit 2: the history is not there (no git
# checkout, or no remote has the commit): the caller skips; exit 1: the build failed.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REV=${1:?usage: compat-build.sh COMMIT}
CD=$TOP/build/compat
mkdir -p "$CD" || exit 1
LOG=$CD/build.log
: >"$LOG"
say() { echo "compat-build: $*" | tee -a "$LOG" >&2; }
git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || { say "$TOP is not a git checkout: no history to build $REV from"; exit 2; }

if ! sha=$(git -C "$TOP" rev-parse --verify -q "$REV^{commit}"); then
	# Not here: a shallow or single-branch clone. Ask each remote for it (by full id, then the whole history).
	for r in $(git -C "$TOP" remote); do
		if [[ "$REV" =~ ^[0-9a-f]{40}$ ]] && git -C "$TOP" fetch -q --depth=1 "$r" "$REV" >>"$LOG" 2>&1; then
			break
		fi
		if [ "$(git -C "$TOP" rev-parse --is-shallow-repository)" = true ]; then
			git -C "$TOP" fetch -q --unshallow "$r" >>"$LOG" 2>&1
		else
			git -C "$TOP" fetch -q "$r" >>"$LOG" 2>&1
		fi
		git -C "$TOP" rev-parse --verify -q "$REV^{commit}" >/dev/null && break
	done
	sha=$(git -C "$TOP" rev-parse --verify -q "$REV^{commit}") ||
		{ say "commit $REV is not in this clone and no remote ($(git -C "$TOP" remote | tr '\n' ' ')) gave it"; exit 2; }
fi

WT=$CD/$sha
BINP=$WT/build/crshim
if [ -x "$BINP" ]; then
	echo "$BINP"
	exit 0
fi
say "building crshim at ${sha:0:12} in $WT"
git -C "$TOP" worktree prune >>"$LOG" 2>&1
if [ ! -e "$WT/.git" ]; then
	rm -rf "$WT"
	git -C "$TOP" worktree add -f --detach "$WT" "$sha" >>"$LOG" 2>&1 || { say "git worktree add $WT $sha failed"; exit 1; }
fi
# Not the caller's make variables (make zdtm passes CRSHIM, MODE, ... down through MAKEFLAGS, and a command-line
# B=, SAN= or ARCH= reaches us in the environment too): the base is built plain, into its own build/.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u B -u SAN -u ARCH \
	make -C "$WT" -j"$(nproc)" B=build build/crshim >>"$LOG" 2>&1 ||
	{ say "the build of ${sha:0:12} failed (log: $LOG)"; exit 1; }
echo "$BINP"
