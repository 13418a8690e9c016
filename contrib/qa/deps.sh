#!/bin/bash
# make deps-check: the dependencies between folders, drawn from the code, point one way.
#
# Two kinds of edge between folders, both from the code itself:
#   call     an object of folder A needs a symbol (function or data) that an object of folder B defines
#            (nm of the built objects: A's undefined symbols, B's defined ones)
#   include  a file of folder A includes a header of folder B (#include "..." lines, resolved like the build)
# The folders: engine/ (the pipelines: dump.c, restore*.c, check.c), engine/{base,image,task,mem,files,net,
# restorer}, ns/, arch/ (with arch/$ARCH), oci/, shim/, hooks/. The headers at the top of engine/ (crshim.h: the
# public API; dump.h, restore.h: the dump and restore context) hold no code: including one is including what it
# includes (they are transparent), so that the context is shared without a folder depending on the pipelines.
#
# It fails (exit 1) on
#   - an upward edge: each folder has a rank and may use only folders of a lower rank, or of its own rank without
#     a loop:  base 0 | restorer (the blob's shared header), arch 1 | image 2 | ns 3 | task, mem, files, net 4 |
#     engine (pipelines) 5 | oci 6 | shim, hooks 7
#   - a loop between folders (any strongly connected set of two or more folders).
#   - an edge out of a folder whose reach is a list, not a rank (these are the edges of the design, not only
#     "lower"): oci uses engine/base only (errors, fault points); shim and hooks use the engine through its
#     public header (engine/crshim.h: a call to a function it declares is an edge to "engine", wherever the
#     function is defined), engine/base (errors, logging, fault points) and oci. ns uses what lies below it by
#     rank (base, arch, image: errors, logging, fault points, image I/O), never a subsystem or a pipeline.
# Usage: deps.sh BUILD_DIR [-v]     (-v: every edge with one example)
set -u
B=${1:-build}
VERBOSE=${2:-}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP" || exit 1
ARCH=${ARCH:-$(uname -m)}
NM=${NM:-nm}

rank_of() {
	case "$1" in
	engine/base) echo 0 ;;
	engine/restorer | arch) echo 1 ;;
	engine/image) echo 2 ;;
	ns) echo 3 ;;
	engine/task | engine/mem | engine/files | engine/net) echo 4 ;;
	engine) echo 5 ;;
	oci) echo 6 ;;
	shim | hooks) echo 7 ;;
	*) echo 9 ;;
	esac
}

# The folders a folder may use, when that is a list (empty: any folder of a lower rank).
reach_of() {
	case "$1" in
	oci) echo "engine/base" ;;
	shim | hooks) echo "engine engine/base oci" ;;
	*) echo "" ;;
	esac
}

[ -d "$B/engine" ] || { echo "deps-check: no objects in $B (build first)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
EDGES=$TMP/edges # lines: FROM TO KIND EXAMPLE

# ---- call edges (nm) ----
# (objects of sources that are gone, left in the build dir, do not count)
OBJS=$(cd "$B" && find engine ns arch oci shim hooks -name '*.o' 2>/dev/null | grep -v '^engine/restorer' | sort |
	while read -r o; do [ -f "$TOP/${o%.o}.c" ] && echo "$o"; done)
FOLDER_AWK='function folder(p, r) {
		if (p ~ /^engine\/[^\/]+\//) { r = substr(p, 8); return "engine/" substr(r, 1, index(r, "/") - 1) }
		if (p ~ /^engine\//) return "engine"
		if (p ~ /^arch\//) return "arch"
		if (p ~ /^(ns|oci|shim|hooks)\//) return substr(p, 1, index(p, "/") - 1)
		return ""
	}'
# shellcheck disable=SC2086
(cd "$B" && $NM -A --defined-only $OBJS) | awk "$FOLDER_AWK"'
	{ o = $1; sub(/:.*/, "", o); sub(/\.o$/, ".c", o); if ($(NF-1) ~ /^[TDBRCGSVW]$/) print $NF, folder(o) }' |
	sort -u >"$TMP/defs"
# shellcheck disable=SC2086
(cd "$B" && $NM -A -u $OBJS) | awk "$FOLDER_AWK"'
	{ o = $1; sub(/:.*/, "", o); sub(/\.o$/, ".c", o); print $NF, folder(o), o }' | sort >"$TMP/uses"
# the functions engine/crshim.h declares (the public API): from shim/ and hooks/ a call to one is a call to
# "engine", the API, whichever subsystem defines it
sed -n 's/^[a-z][^(]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' engine/crshim.h | sort -u >"$TMP/api"
join "$TMP/uses" "$TMP/defs" | awk -v apif="$TMP/api" '
	BEGIN { while ((getline l < apif) > 0) api[l] = 1 }
	$2 != $4 && $2 != "" {
		to = $4
		if (($2 == "shim" || $2 == "hooks") && ($1 in api)) to = "engine"
		if ($2 != to) print $2, to, "call", $3 "->" $1
	}' >>"$EDGES"

# ---- include edges ----
# one awk over every source: the headers resolved like the build (the file's own folder, -I engine -I ns
# -I arch/$ARCH -I arch); a context header stands for what it includes (transitively).
git ls-files -co --exclude-standard -- 'engine/*.[ch]' 'ns/*.[ch]' 'arch/*.[ch]' 'oci/*.[ch]' 'shim/*.[ch]' \
	'hooks/*.[ch]' | while read -r f; do [ -f "$f" ] && echo "$f"; done >"$TMP/files"
# shellcheck disable=SC2046
awk -v arch="$ARCH" -v ctx="engine/crshim.h engine/dump.h engine/restore.h" "$FOLDER_AWK"'
	function resolve(src, h, dir, i, c) {
		dir = src; sub(/\/[^\/]*$/, "", dir)
		split(dir " engine ns arch/" arch " arch", c, " ")
		for (i = 1; i <= 5; i++) if ((c[i] "/" h) in exists) return c[i] "/" h
		return ""
	}
	# the non-context headers a context header stands for (into out[], with the chain in via[])
	function expand(h, chain, out, via, i, p) {
		for (i = 1; i <= ninc[h]; i++) {
			p = inc[h, i]
			if (p in isctx) expand(p, chain "->" p, out, via)
			else if (!(p in out)) { out[p] = 1; via[p] = chain "->" p }
		}
	}
	BEGIN { n = split(ctx, cl, " "); for (i = 1; i <= n; i++) isctx[cl[i]] = 1 }
	FILENAME == "-" || FNR == NR { exists[$0] = 1; files[++nf] = $0; next }
	END {
		for (k = 1; k <= nf; k++) {
			src = files[k]
			while ((getline line < src) > 0)
				if (match(line, /^[ \t]*#[ \t]*include[ \t]*"[^"]+"/)) {
					h = line; sub(/^[^"]*"/, "", h); sub(/".*$/, "", h)
					p = resolve(src, h)
					if (p != "") inc[src, ++ninc[src]] = p
				}
			close(src)
		}
		for (k = 1; k <= nf; k++) {
			src = files[k]; from = folder(src)
			if (src in isctx || src ~ /^engine\/restorer\/.*\.c$/) continue # (the blob: built apart)
			for (i = 1; i <= ninc[src]; i++) {
				p = inc[src, i]
				if (p in isctx) {
					delete out; delete via
					expand(p, src "->" p, out, via)
					for (q in out) if (folder(q) != from) print from, folder(q), "include", via[q]
				} else if (folder(p) != "" && folder(p) != from) print from, folder(p), "include", src "->" p
			}
		}
	}' "$TMP/files" >>"$EDGES"

# ---- verdict ----
sort -k1,1 -k2,2 -k3,3 -u "$EDGES" | awk '!seen[$1 " " $2 " " $3]++' >"$TMP/uniq"
fail=0
echo "deps-check: $(awk '{print $1 " " $2}' "$TMP/uniq" | sort -u | wc -l) edges between folders"
while read -r from to kind ex; do
	rf=$(rank_of "$from") rt=$(rank_of "$to")
	reach=$(reach_of "$from")
	if [ "$rt" -gt "$rf" ]; then
		echo "UPWARD  $from -> $to ($kind: $ex)"
		fail=1
	elif [ -n "$reach" ] && ! [[ " $reach " == *" $to "* ]]; then
		echo "REACH   $from -> $to ($kind: $ex): $from may use only $reach"
		fail=1
	elif [ -n "$VERBOSE" ]; then
		echo "        $from -> $to ($kind: $ex)"
	fi
done <"$TMP/uniq"

# loops: a folder reaches itself again (transitive closure over the few folders)
awk '{print $1, $2}' "$TMP/uniq" | sort -u >"$TMP/pairs"
loops=$(awk '
	{ e[$1 SUBSEP $2] = 1; n[$1] = 1; n[$2] = 1 }
	END {
		for (k in n) for (i in n) for (j in n)
			if (!e[i SUBSEP j] && e[i SUBSEP k] && e[k SUBSEP j]) e[i SUBSEP j] = 1
		for (i in n) for (j in n) if (i < j && e[i SUBSEP j] && e[j SUBSEP i]) print i " <-> " j
	}' "$TMP/pairs" | sort)
if [ -n "$loops" ]; then
	echo "$loops" | sed 's/^/LOOP    /'
	# the direct edges inside the loops, with an example each
	awk '{print $1, $2}' "$TMP/pairs" | while read -r a b; do
		if echo "$loops" | grep -q -e "^$a <-> " -e " <-> $a$" && echo "$loops" | grep -q -e "^$b <-> " -e " <-> $b$"; then
			grep -m1 "^$a $b " "$TMP/uniq" | sed 's/^/        in a loop: /'
		fi
	done
	fail=1
fi
[ $fail = 0 ] && echo "deps-check: no upward edge, no loop between folders"
exit $fail
