# Shared by the bats files of tests/integration/: busybox bundles built at test time, crshim as the runtime's
# criu, names with "rpc" in them, and cleanup of what a test made.
REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
CRSHIM=${CRSHIM:-$REPO/build/crshim}
HELPERS_SRC=$BATS_TEST_DIRNAME/helpers
# Built once per run (helpers_build), shared by the files.
HELPERS_BIN=${HELPERS_BIN:-$REPO/build/integration}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

need_cmd() { # cmd package
	command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed (make deps-integration installs $2)"
}

# Small static C programs the tests put into containers or run beside them.
helpers_build() {
	mkdir -p "$HELPERS_BIN"
	local c
	for c in "$HELPERS_SRC"/*.c; do
		local b=$HELPERS_BIN/$(basename "$c" .c)
		if [ ! -x "$b" ] || [ "$c" -nt "$b" ]; then
			gcc -O2 -static -Wall -Werror -o "$b.tmp.$$" "$c" && mv "$b.tmp.$$" "$b" || return 1
		fi
	done
}

# A busybox root filesystem at $1 (static busybox, its applets as links, the dirs a container needs).
make_rootfs() {
	local r=$1 a
	mkdir -p "$r"/{bin,tmp,proc,sys,dev,etc,root,run,var}
	cp /bin/busybox "$r/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"
	done
	echo "root:x:0:0:root:/root:/bin/sh" >"$r/etc/passwd"
	echo "root:x:0:" >"$r/etc/group"
	cp "$HELPERS_BIN"/* "$r/bin/" 2>/dev/null || true
}

# A runc bundle at $1 whose process runs "sh -c $2"; not a terminal, writable root.
make_bundle() {
	local b=$1 cmd=$2
	mkdir -p "$b"
	make_rootfs "$b/rootfs"
	(cd "$b" && runc spec) || return 1
	jq --arg cmd "$cmd" '.process.terminal = false | .process.args = ["sh", "-c", $cmd] | .root.readonly = false
		| .process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}]' \
		"$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
}

bundle_jq() { # bundle filter [jq args...]
	local b=$1 f=$2
	shift 2
	jq "$@" "$f" "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
}

# The last number written to a file (a counter's state), waiting up to 5 s for one.
count_of() {
	local i v
	for i in $(seq 50); do
		v=$(tail -n1 "$1" 2>/dev/null)
		case $v in '' | *[!0-9]*) sleep 0.1 ;; *) echo "$v"; return 0 ;; esac
	done
	echo "no count in $1" >&2
	return 1
}

# Wait until the counter in file $1 exceeds $2 (10 s at most).
count_beyond() {
	local i v
	for i in $(seq 100); do
		v=$(count_of "$1") || return 1
		[ "$v" -gt "$2" ] && return 0
		sleep 0.1
	done
	echo "count in $1 stuck at $v (not beyond $2)" >&2
	return 1
}

# Every number from the first to the last line of a file, in order, no gap, no repeat.
sequence_unbroken() {
	awk 'NR == 1 { prev = $1; next } $1 != prev + 1 { printf "line %d: %s after %s\n", NR, $1, prev; bad = 1; exit 1 } { prev = $1 } END { exit bad }' "$1"
}

# The counter in file $1 goes on: beyond where it is now by $2 (default 3), and every number in it follows the
# one before (no gap, no restart).
counts_on() {
	local at
	at=$(count_of "$1") || return 1
	count_beyond "$1" $((at + ${2:-3})) && sequence_unbroken "$1"
}

# Unmount every mount below dir $1, deepest first (a runtime's storage and state leave overlay and shm mounts).
umount_under() {
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

# Podman files (podman.bats, podman-crun.bats): $PODMAN names the file's podman function (its storage, runtime).
# The last line of a container's log (a terminal's log has \r\n line ends), waiting for it to pass a count.
last_count() {
	"$PODMAN" logs "$1" 2>/dev/null | tr -d '\r' | tail -n1
}

logs_beyond() { # name count
	local v
	for _ in $(seq 100); do
		v=$(last_count "$1")
		case $v in '' | *[!0-9]*) ;; *) [ "$v" -gt "$2" ] && return 0 ;; esac
		sleep 0.1
	done
	echo "log of $1 stuck at '$v' (not beyond $2)" >&2
	return 1
}

state_of() {
	"$PODMAN" inspect -f '{{.State.Status}}' "$1" 2>/dev/null
}

# The end of a podman file: its containers and images removed, its storage dir $1 unmounted and removed.
podman_teardown() { # dir
	[ -n "$1" ] || return 0
	"$PODMAN" rm -a -f -t 0 >/dev/null 2>&1
	"$PODMAN" rmi -a -f >/dev/null 2>&1
	# conmon runs `podman container cleanup` when a container exits: it mounts the storage again
	for _ in $(seq 100); do pgrep -f "(conmon|podman).*$1" >/dev/null || break; sleep 0.1; done
	umount_under "$1"
	rm -rf "$1"
}

# checkpoint --leave-running (the container goes on past the count then by $2), stop it, restore from that
# checkpoint (it runs past that count by $2 again).
leave_running_then_restore() { # name step
	local at
	"$PODMAN" container checkpoint --leave-running "$1" || return 1
	[ "$(state_of "$1")" = running ] || return 1
	at=$(last_count "$1")
	logs_beyond "$1" $((at + $2)) || return 1
	"$PODMAN" stop -t 0 "$1" >/dev/null || return 1
	"$PODMAN" container restore "$1" || return 1
	[ "$(state_of "$1")" = running ] || return 1
	logs_beyond "$1" $((at + $2))
}

# Close every fd above 2 of the calling shell (bats keeps its own open: a tree started with them would hold files
# that bats removes, and a dump of it would save them). Call it in the subshell that starts the tree.
close_bats_fds() {
	local f
	for f in /proc/$BASHPID/fd/*; do
		f=${f##*/}
		[ "$f" -gt 2 ] && eval "exec $f>&-"
	done
	return 0
}
