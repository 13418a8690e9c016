# Modes user, rootless and compat of the ZDTM runner (sourced by run.sh; uses its globals and helpers).
#
# user: the test is started by a non-root user (ZDTM_USER, default crshim-zdtm, created with useradd if missing)
#   and dumped and restored by that user with a copy of crshim that holds only file capabilities
#   (ZDTM_USER_CAPS, default cap_checkpoint_restore,cap_sys_ptrace). A test whose program needs root says
#   `needs-root: REASON` in its .desc (skipped with that reason); one whose C/R needs a capability the copy lacks
#   says `user-refuse: CAP_NAME [CAP_NAME2]`: the dump or the restore must then fail with exit 1 and one line naming
#   it, a refused dump leaves the task running and unchanged, a refused restore leaves nothing (root then restores
#   the same images, which must pass); see user_refusal_steps. `user-start: root`: root starts the test.
# rootless (run.sh's mode ns with ROOTLESS=1; issue 14): as a rootless container. For each test the user ZDTM_USER
#   makes a user namespace of its own (unshare --user --map-root-user: its uid and gid mapped to 0, setgroups deny),
#   held by a process of the user in it (as rootless Podman's pause process holds its namespace), and the test, the
#   dumps and the restores run in it as that user (nsenter --user --preserve-credentials: uid 0 there, every
#   capability of that namespace, none of the host's), with the plain crshim. The test makes its PID, mount,
#   network, IPC and UTS namespaces there (lib/ns.c, as in mode cuns: ZDTM_NSUSER_ALL without a map), which the
#   user namespace owns; the tree's PIDs in ours are fresh. Skipped: what mode cuns skips (uns-skip, cuns-skip) and
#   `rootless-skip: REASON` (one uid and one gid only, nothing of the host's that needs a capability of it).
# compat: the test is dumped by the crshim built from the commit named in tests/zdtm/compat-base
#   (tests/zdtm/compat-build.sh: a git worktree under build/compat/) and restored by CRSHIM (HEAD). Before that, a
#   copy of the images whose inventory.img claims the next format version must be refused with one line.
#   Tests newer than that commit are skipped.

ZDTM_USER=${ZDTM_USER:-crshim-zdtm}
ZDTM_USER_CAPS=${ZDTM_USER_CAPS:-cap_checkpoint_restore,cap_sys_ptrace}
COMPAT_BASE=
ROOT_CRSHIM=

# cmd run when the runner exits (an interrupt too: run.sh's INT/TERM trap exits), before what was there
mode_on_exit() { # cmd
	local old
	old=$(trap -p EXIT | sed -n "s/^trap -- '\(.*\)' EXIT\$/\1/p")
	trap "$1${old:+; $old}" EXIT
}

mode_die() {
	echo "1..0 # SKIP mode ${MODENAME:-$MODE}: $*"
	echo "run.sh: mode ${MODENAME:-$MODE}: $*" >&2
	exit 1
}

# Sets REASON and returns 0 when the test is not run in this mode.
mode_skip_reason() { # name
	local r
	case "$MODE" in
	user)
		r=$(desc_get "$1" needs-root)
		[ -n "$r" ] && REASON="needs root: $r" && return 0
		if [ "$(desc_get "$1" ns)" = always ]; then
			REASON="needs root: runs in namespaces and a root of its own (ns: always; CAP_SYS_ADMIN)"
			return 0
		fi
		;;
	pagesrv) # a pre-dump chain: what mode snaps leaves out
		if [[ " $(desc_get "$1" mode-skip) " == *" snaps "* ]]; then
			REASON="not run in mode snaps (a pre-dump chain)"
			return 0
		fi
		;;
	ns)
		r=$(desc_get "$1" rootless-skip)
		[ "$ROOTLESS" = 1 ] && [ -n "$r" ] && REASON="not in mode rootless: $r" && return 0
		;;
	compat)
		if ! git -C "$TOP" cat-file -e "$COMPAT_BASE:tests/zdtm/$(test_dir "$1")/$1.c" 2>/dev/null; then
			REASON="newer than the compat base ${COMPAT_BASE:0:12}"
			return 0
		fi
		if [ -z "$(desc_get "$1" dump-expect)" ] &&
			git -C "$TOP" show "$COMPAT_BASE:tests/zdtm/$(test_dir "$1")/$1.desc" 2>/dev/null | grep -q '^dump-expect:'; then
			REASON="the compat base ${COMPAT_BASE:0:12} refuses its dump (dump-expect there): restorable since"
			return 0
		fi
		;;
	esac
	return 1
}

user_make() { # what-for: ZDTM_USER made if missing; sets AS_USER, the command prefix that runs as it
	local u
	[ "$(id -u)" = 0 ] || mode_die "run.sh must run as root (it makes the user $ZDTM_USER$1)"
	command -v setpriv >/dev/null || mode_die "setpriv not found (util-linux)"
	if ! id -u "$ZDTM_USER" >/dev/null 2>&1; then
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ZDTM_USER" ||
			mode_die "useradd $ZDTM_USER failed"
	fi
	u=$(id -u "$ZDTM_USER")
	[ "$u" != 0 ] || mode_die "ZDTM_USER=$ZDTM_USER is root"
	# HOME: the user's (crshim reads HOME/.criu/default.conf; root's is closed to the user)
	AS_USER=(setpriv --reuid="$u" --regid="$(id -g "$ZDTM_USER")" --init-groups -- env
		HOME="$(getent passwd "$ZDTM_USER" | cut -d: -f6)")
	"${AS_USER[@]}" test -x "$BIN/static/pid" ||
		mode_die "$ZDTM_USER cannot run the tests in $BIN (a parent dir closed to others?)"
}

user_setup() {
	user_make " and a crshim copy with file capabilities"
	user_crshim_copy
	MODE_NOTE=", as $ZDTM_USER (uid $(id -u "$ZDTM_USER")) with a copy holding $ZDTM_USER_CAPS"
}

user_crshim_copy() { # CRSHIM: a copy the user may run, holding ZDTM_USER_CAPS (file capabilities); USERRUN: as the user
	command -v setcap >/dev/null || mode_die "setcap not found (Debian: libcap2-bin; make deps)"
	UDIR=$(mktemp -d "$TMPBASE/zdtm-user.XXXXXX") || mode_die "cannot make a dir under $TMPBASE"
	mode_on_exit 'rm -rf "$UDIR"'
	chmod 755 "$UDIR"
	cp "$CRSHIM" "$UDIR/crshim" && chmod 755 "$UDIR/crshim" || mode_die "cannot copy $CRSHIM"
	setcap "$ZDTM_USER_CAPS+ep" "$UDIR/crshim" ||
		mode_die "setcap $ZDTM_USER_CAPS+ep on $UDIR/crshim failed (no xattrs on $TMPBASE? set ZDTM_TMP)"
	USERRUN=("${AS_USER[@]}")
	"${USERRUN[@]}" test -w "$UDIR" && mode_die "$UDIR is writable by $ZDTM_USER"
	ROOT_CRSHIM=$CRSHIM
	CRSHIM=$UDIR/crshim
}

# The user's crshim must refuse: exit 1, one line naming the capability.
user_expect_refusal() { # verb rc outfile cap
	if [ "$2" -ne 1 ] || [ "$(grep -c . "$3")" -ne 1 ] || ! grep -q -- "$4" "$3"; then
		diag_file "$3" 5
		bad "$1 by $ZDTM_USER: exit $2 with $(grep -c . "$3") stderr lines, want exit 1 and one line naming $4"
		return 1
	fi
	diag "$1 refused as expected: $(head -n1 "$3")"
}

# Run "$@" as root: no USERRUN, root's crshim.
as_root() {
	local saved=("${USERRUN[@]}") user_crshim=$CRSHIM rc=0
	USERRUN=()
	CRSHIM=$ROOT_CRSHIM
	"$@" || rc=$?
	USERRUN=("${saved[@]}")
	CRSHIM=$user_crshim
	return $rc
}

# user-refuse: CAP [CAP2]: the user's dump is refused naming CAP (the task runs on, unchanged), then root dumps
# and the user's restore is refused naming CAP2; or the user's dump passes and its restore is refused naming CAP.
# After a refused restore nothing is left and root restores the same images.
user_refusal_steps() { # name
	local want d="$TDIR/dump.1" rc
	read -r -a want <<<"$(desc_get "$1" user-refuse)"
	mkdir -p "$d" && chown "$ZDTM_USER:" "$d"
	timeout -k 5 "$CTIMEOUT" "${USERRUN[@]}" "$CRSHIM" dump -t "$TPID" -D "$d" -o dump.log -v4 "${OPTS[@]}" \
		>"$TDIR/user-dump.out" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		user_expect_refusal dump $rc "$TDIR/user-dump.out" "${want[0]}" || return 1
		sleep 0.1
		check_running || { REASON="after a refused dump: $REASON"; return 1; }
		compare_snap "a refused dump" "$TDIR/snap.1" || return 1
		lock_left "a refused dump" || return 1
		[ ${#want[@]} -gt 1 ] || return 0
		want=("${want[@]:1}")
		rm -rf "$d"
		as_root crshim_dump "$d" || { REASON="dump by root: $REASON"; return 1; }
		chown -R "$ZDTM_USER:" "$d" # the images given to the user
	fi
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	timeout -k 5 "$CTIMEOUT" "${USERRUN[@]}" "$CRSHIM" restore -D "$d" -o restore-user.log -v4 -d \
		--pidfile "$TDIR/user.pid" "${OPTS[@]}" >"$TDIR/user-restore.out" 2>&1
	rc=$?
	[ $rc != 0 ] || { bad "dump and restore by $ZDTM_USER both passed: want a refusal naming ${want[0]}"; return 1; }
	user_expect_refusal restore $rc "$TDIR/user-restore.out" "${want[0]}" || return 1
	wait_free "$TPID" 5 || { bad "the refused restore left pid $TPID"; return 1; }
	lock_left "the refused restore" || return 1
	as_root crshim_restore "$d" || { REASON="restore by root after the refusal: $REASON"; return 1; }
	compare_snap "a restore by root after the refusal" "$TDIR/snap.1"
}

user_steps() { # name
	local d="$TDIR/dump.1"
	[ -z "$(desc_get "$1" user-refuse)" ] || { user_refusal_steps "$1"; return; }
	crshim_dump "$d" || return 1
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	crshim_restore "$d" || return 1
	compare_snap "a restore by $ZDTM_USER" "$TDIR/snap.1" || return 1
	lock_left "a restore by $ZDTM_USER" || return 1
}

compat_setup() {
	local f="$HERE/compat-base" rev out
	[ -f "$f" ] || mode_die "no $f"
	rev=$(sed -n 's/^\([0-9a-f]\{7,40\}\).*/\1/p' "$f" | head -n1)
	[ -n "$rev" ] || mode_die "$f names no commit"
	out=$("$HERE/compat-build.sh" "$rev")
	case $? in
	0) ;;
	2) echo "1..0 # SKIP mode compat: $(tail -n1 "$TOP/build/compat/build.log" 2>/dev/null)"; exit 0 ;;
	*) mode_die "$(tail -n1 "$TOP/build/compat/build.log" 2>/dev/null)" ;;
	esac
	DUMP_CRSHIM=$out
	COMPAT_BASE=$(git -C "$TOP" rev-parse "$rev^{commit}")
	IMG_VERSION=$(sed -n 's/^#define CRSHIM_IMG_VERSION \([0-9]*\).*/\1/p' "$TOP/engine/crshim.h")
	[ -n "$IMG_VERSION" ] || mode_die "no CRSHIM_IMG_VERSION in engine/crshim.h"
	MODE_NOTE=", dumped by ${COMPAT_BASE:0:12} ($("$DUMP_CRSHIM" --version 2>&1 | head -n1)), image format $IMG_VERSION"
}

# A copy of the images (hard links) whose inventory.img says format IMG_VERSION + 1: HEAD must refuse it with one
# line, and make nothing (the pid stays free).
compat_newer() { # dir
	local n="$TDIR/newer" v=$((IMG_VERSION + 1)) rc
	rm -rf "$n"
	cp -al "$1" "$n" && rm -f "$n/inventory.img" && cp "$1/inventory.img" "$n/inventory.img" ||
		{ bad "cannot copy the images"; return 1; }
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24)))" |
		dd of="$n/inventory.img" bs=1 seek=4 conv=notrunc status=none
	timeout -k 5 "$CTIMEOUT" "$CRSHIM" restore -D "$n" -o restore-newer.log -v4 -d --pidfile "$TDIR/newer.pid" \
		"${OPTS[@]}" >"$TDIR/newer.out" 2>&1
	rc=$?
	if [ $rc -ne 1 ] || [ "$(grep -c . "$TDIR/newer.out")" -ne 1 ] ||
		! grep -q "inventory.img: format version $v is not supported" "$TDIR/newer.out"; then
		diag_file "$TDIR/newer.out" 5
		bad "restore of an image of format $v: exit $rc with $(grep -c . "$TDIR/newer.out") lines, want exit 1 and one line refusing format $v"
		return 1
	fi
	[ ! -e "/proc/$TPID" ] || { bad "the refused restore of format $v made pid $TPID"; return 1; }
	diag "format $v refused: $(head -n1 "$TDIR/newer.out")"
	rm -rf "$n"
}

compat_steps() { # name
	local d="$TDIR/dump.1"
	crshim_dump "$d" || { REASON="dump by ${COMPAT_BASE:0:12}: $REASON"; return 1; }
	wait_gone "$TPID" 10 || { bad "task $TPID still running after dump"; return 1; }
	wait_free "$TPID" 30 || { bad "pid $TPID still taken (zombie) after dump"; return 1; }
	compat_newer "$d" || return 1
	crshim_restore "$d" || return 1
	compare_snap "a restore by HEAD of a dump by ${COMPAT_BASE:0:12}" "$TDIR/snap.1" || return 1
	lock_left "the restore" || return 1
}

rootless_setup() {
	user_make ""
	command -v unshare >/dev/null && command -v nsenter >/dev/null || mode_die "unshare or nsenter not found (util-linux)"
	"${AS_USER[@]}" unshare --user --map-root-user true ||
		mode_die "$ZDTM_USER cannot make a user namespace (sysctl user.max_user_namespaces?)"
	CRSHIM=$(realpath "$CRSHIM") # (run from the namespace's root when the runner's dir is closed to the user)
	"${AS_USER[@]}" test -x "$CRSHIM" || mode_die "$ZDTM_USER cannot run $CRSHIM (a parent dir closed to others?)"
	export ZDTM_RCWD=$PWD
	mode_on_exit rootless_release # (an interrupted run leaves no holder behind)
	MODE_NOTE=", as $ZDTM_USER (uid $(id -u "$ZDTM_USER")) in a user namespace of its own, mapping only it"
	if [ "${ZDTM_ROOTLESS_CRSHIM:-}" = caps ]; then
		user_crshim_copy
		MODE_NOTE+="; crshim outside it, a copy holding $ZDTM_USER_CAPS"
	fi
}

# The test's user namespace, made by ZDTM_USER and held by a process of it until rootless_release; USERRUN enters it.
ROOTLESS_HOLDER=
ROOTLESS_START=() # the test's start
rootless_hold() {
	local n=0
	[ "$ROOTLESS" = 1 ] || return 0
	local k ns=(--mount)
	for k in ${ZDTM_ROOTLESS_NS:-}; do ns+=("--$k"); done
	"${AS_USER[@]}" unshare --user --map-root-user "${ns[@]}" sleep infinity </dev/null >/dev/null 2>&1 &
	ROOTLESS_HOLDER=$!
	until [ "$(readlink "/proc/$ROOTLESS_HOLDER/ns/user")" != "$(readlink /proc/self/ns/user)" ]; do
		alive "$ROOTLESS_HOLDER" && [ $n -lt 200 ] || { REASON="$ZDTM_USER made no user namespace"; return 1; }
		n=$((n + 1))
		sleep 0.05
	done
	# (entering the mount namespace took the cwd to its root: back to ZDTM_RCWD, the caller's, where the user may)
	ROOTLESS_START=("${AS_USER[@]}" nsenter --user "${ns[@]}" --target "$ROOTLESS_HOLDER" --preserve-credentials --
		sh -c 'cd "$ZDTM_RCWD" 2>/dev/null; exec "$@"' rootless-cwd)
	USERRUN=("${ROOTLESS_START[@]}")
	# ZDTM_ROOTLESS_CRSHIM=caps: crshim runs outside the namespace, as the user, with a copy holding file capabilities
	[ "${ZDTM_ROOTLESS_CRSHIM:-}" != caps ] || USERRUN=("${AS_USER[@]}")
	diag "user namespace $(readlink "/proc/$ROOTLESS_HOLDER/ns/user") of $ZDTM_USER, held by $ROOTLESS_HOLDER: uid_map $(tr -s ' ' <"/proc/$ROOTLESS_HOLDER/uid_map")"
}

rootless_release() {
	[ -n "$ROOTLESS_HOLDER" ] || return 0
	kill -KILL "$ROOTLESS_HOLDER" 2>/dev/null
	wait "$ROOTLESS_HOLDER" 2>/dev/null
	ROOTLESS_HOLDER= USERRUN=() ROOTLESS_START=()
}
