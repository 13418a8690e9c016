#!/usr/bin/env bats
# A whole container's world with no runtime at all: a busybox tree in its own PID, mount, network, IPC and UTS
# namespaces under a root of its own (pivot_root), with a veth pair to the host, an address, a route, a hostname and
# a tmpfs holding files. crshim dumps it from the host and restores it with --root; everything must be as it was.
load helpers

setup() {
	need_root
	need_cmd unshare util-linux
	need_cmd ip iproute2
	W=$BATS_TMPDIR/world-$$
	OUT=wrldo$$ # the host's end of the veth pair (15 characters at most)
	IN=eth0
	mkdir -p "$W"
	make_rootfs "$W/rootfs"
	mknod -m 666 "$W/rootfs/dev/null" c 1 3
	cat >"$W/rootfs/init.sh" <<-'EOF'
		umount -l /.old && rmdir /.old
		exec </dev/null >/dev/null 2>&1
		hostname world-box
		echo "a file in the container's tmpfs" >/tmp/file
		mkdir /tmp/dir && ln -s ../file /tmp/dir/link && chmod 640 /tmp/file
		while [ ! -e /tmp/go ]; do sleep 0.05; done
		ip link set lo up
		ip addr add 10.213.7.2/24 dev eth0
		ip link set eth0 up
		ip route add 10.213.8.0/24 via 10.213.7.1
		touch /tmp/ready
		n=0
		while :; do n=$((n + 1)); echo $n >/tmp/count; sleep 0.1; done
	EOF
}

teardown() {
	[ -n "${PID:-}" ] && kill -9 "$PID" 2>/dev/null
	[ -n "${RPID:-}" ] && kill -9 "$RPID" 2>/dev/null
	ip link del "$OUT" 2>/dev/null || true
	umount "$W/netns" 2>/dev/null || true # world: external network namespace
	for i in $(seq 50); do
		[ -z "$(world_procs)" ] && break
		sleep 0.1
	done
	[ -n "${WORLD_KEEP:-}" ] || rm -rf "$W" # WORLD_KEEP=1 keeps the images and logs
}

# Processes of this test's tree (their root is the test's rootfs).
world_procs() {
	find /proc -mindepth 2 -maxdepth 2 -name root -lname "$W/rootfs" 2>/dev/null | cut -d/ -f3
}

# The PID of the tree's init as the host sees it: the child of the unshare process.
start_world() {
	(close_bats_fds; exec unshare --pid --mount --net --ipc --uts --fork --propagation private /bin/sh -c "
		mount --bind '$W/rootfs' '$W/rootfs' && mount -t proc proc '$W/rootfs/proc' &&
		mount -t tmpfs -o size=4m,mode=755 world-tmp '$W/rootfs/tmp' &&
		cd '$W/rootfs' && mkdir .old && pivot_root . .old && exec /bin/sh /init.sh" </dev/null >/dev/null 2>&1) &
	local u=$! i
	for i in $(seq 100); do
		PID=$(cat /proc/$u/task/$u/children 2>/dev/null | tr -d ' ')
		[ -n "$PID" ] && [ -f "/proc/$PID/root/tmp/file" ] && break
		sleep 0.1
	done
	[ -n "$PID" ] && [ -f "/proc/$PID/root/tmp/file" ]
	ip link add "$OUT" type veth peer name "$IN" netns "$PID"
	ip addr add 10.213.7.1/24 dev "$OUT"
	ip link set "$OUT" up
	touch "/proc/$PID/root/tmp/go"
	for i in $(seq 100); do
		[ -f "/proc/$PID/root/tmp/ready" ] && break
		sleep 0.1
	done
	[ -f "/proc/$PID/root/tmp/ready" ]
}

# Everything the test compares before and after, as text.
world_state() { # pid
	local p=$1
	echo "hostname: $(nsenter -t "$p" -u hostname)"
	nsenter -t "$p" -n ip -o -4 addr show | awk '{print "addr:", $2, $4}'
	nsenter -t "$p" -n ip route show | sed 's/^/route: /'
	nsenter -t "$p" -n ip -o link show | awk '{print "link:", $2, $3}' | sed 's/@[^:]*:/:/'
	awk '{print "mount:", $1, $2, $3, $4}' "/proc/$p/mounts"
	echo "file: $(stat -c '%a %s' "/proc/$p/root/tmp/file") $(cat "/proc/$p/root/tmp/file")"
	echo "link: $(readlink "/proc/$p/root/tmp/dir/link")"
	for n in pid mnt net ipc uts; do
		[ "$(readlink "/proc/$p/ns/$n")" != "$(readlink "/proc/self/ns/$n")" ] && echo "own $n namespace"
	done
}

count() { cat "/proc/$1/root/tmp/count"; }

@test "world: a busybox tree in its own PID/mount/net/IPC/UTS namespaces and root comes back identical" {
	start_world
	before=$(world_state "$PID")
	echo "$before" | grep -q "addr: eth0 10.213.7.2/24"
	echo "$before" | grep -q "route: 10.213.8.0/24 via 10.213.7.1"
	echo "$before" | grep -q "mount: world-tmp /tmp tmpfs"
	c0=$(count "$PID")
	run "$CRSHIM" dump -t "$PID" -D "$W/img" -o dump.log --external "veth[$IN]:$OUT"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img/dump.log"; false; }
	[ -z "$(world_procs)" ]
	! ip link show "$OUT" 2>/dev/null # the pair went with the namespace
	run "$CRSHIM" restore -D "$W/img" -o restore.log -d --root "$W/rootfs" --pidfile "$W/pid" \
		--external "veth[$IN]:$OUT"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img/restore.log"; false; }
	RPID=$(cat "$W/pid")
	# The outer end is back in the host's namespace; its address is the host's business.
	ip link show "$OUT" | grep -q "state UP\|,UP"
	ip addr add 10.213.7.1/24 dev "$OUT"
	after=$(world_state "$RPID")
	diff <(echo "$before") <(echo "$after")
	# The counter goes on from where it was.
	c1=$(count "$RPID")
	[ "$c1" -ge "$c0" ]
	world_alive "$RPID" "$c1"
}

# The counter of the tree PID goes past FROM (10 s at most), and its network answers through the veth pair.
world_alive() { # pid from
	for i in $(seq 100); do
		[ "$(count "$1")" -gt "$2" ] && break
		sleep 0.1
	done
	[ "$(count "$1")" -gt "$2" ]
	nsenter -t "$1" -a /bin/ping -c 1 -W 5 10.213.7.1 >/dev/null
}

# What a failed restore must not leave behind: a process in the rootfs, the host's veth end, a mount.
world_leftovers() {
	local p
	p=$(world_procs)
	[ -z "$p" ] || echo "processes: $p"
	ip link show "$OUT" >/dev/null 2>&1 && echo "link $OUT"
	grep -F "$W" /proc/self/mountinfo | sed 's/^/mount: /'
	return 0
}

@test "world: every fatal restore fault point fails with the point named and leaves nothing behind" {
	start_world
	run "$CRSHIM" dump -t "$PID" -D "$W/img" -o dump.log --external "veth[$IN]:$OUT"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img/dump.log"; false; }
	# (not restore-cgroup-mid: this tree stays in crshim's cgroups, so no cgroup is made and the point is not reached;
	# not restore-lazy-mid: reached only by restore --lazy-pages, tested by mode lazy; not restore-mnt-nested: reached
	# only by a process with a mount namespace of its own, tested by nested.bats and mode fault)
	points=$("$CRSHIM" check --faults | awk '$4 == "fatal" && $2 ~ /^restore/ && $2 != "restore-cgroup-mid" &&
		$2 != "restore-lazy-mid" && $2 != "restore-mnt-nested" {print $2}')
	[ -n "$points" ]
	for f in $points; do
		run env CRSHIM_FAULT="$f" "$CRSHIM" restore -D "$W/img" -o "restore-$f.log" -d --root "$W/rootfs" \
			--pidfile "$W/pid-$f" --external "veth[$IN]:$OUT"
		[ "$status" != 0 ] || { echo "fault $f: the restore succeeded"; false; }
		echo "$output" | grep -q "$f" || { echo "fault $f not named (status $status): $output"; false; }
		for i in $(seq 50); do
			[ -z "$(world_leftovers)" ] && break
			sleep 0.1
		done
		left=$(world_leftovers)
		[ -z "$left" ] || { echo "fault $f left: $left"; false; }
	done
	run "$CRSHIM" restore -D "$W/img" -o restore.log -d --root "$W/rootfs" --pidfile "$W/pid" \
		--external "veth[$IN]:$OUT"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img/restore.log"; false; }
	RPID=$(cat "$W/pid")
	[ "$(nsenter -t "$RPID" -u hostname)" = world-box ]
}

# A restore that must fail with one line holding $1 (the rest: crshim restore's options), leaving no process.
restore_refused() { # text option...
	local want=$1
	shift
	run "$CRSHIM" restore -D "$W/img" -o restore-refused.log -d --root "$W/rootfs" --pidfile "$W/pid-refused" "$@"
	[ "$status" = 1 ] || { echo "restore $*: status $status, want 1: $output"; return 1; }
	[ "$(echo "$output" | grep -c .)" = 1 ] || { echo "restore $*: not one line: $output"; return 1; }
	echo "$output" | grep -qF -- "$want" || { echo "restore $*: '$output' does not say '$want'"; return 1; }
	[ -z "$(world_procs)" ] || { echo "restore $*: left $(world_procs)"; return 1; }
}

# The restored tree runs in the network namespace of inode $1, its counter goes on, the host answers its ping.
in_netns() { # ino
	RPID=$(cat "$W/pid")
	[ "$(stat -L -c %i "/proc/$RPID/ns/net")" = "$1" ]
	[ "$(readlink "/proc/$RPID/ns/uts")" != "$(readlink /proc/self/ns/uts)" ]
	world_alive "$RPID" "$(count "$RPID")"
}

@test "world: a network namespace external at dump is joined at restore (--join-ns, --inherit-fd); bad ones: one line" {
	start_world
	# the tree's network namespace outlives it (a bind of its nsfs file, as a runtime holds one)
	touch "$W/netns"
	mount --bind "/proc/$PID/ns/net" "$W/netns"
	ino=$(stat -L -c %i "$W/netns")
	run "$CRSHIM" dump -t "$PID" -D "$W/img" -o dump.log --external "net[$ino]:wnet"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img/dump.log"; false; }
	[ ! -e "$W/img/net.img" ] # not saved: the caller's
	[ -z "$(world_procs)" ]
	ip link show "$OUT" >/dev/null # the pair lives on with the namespace
	restore_refused "the network namespace was external at dump (key wnet)"
	restore_refused "--join-ns net: malformed" --join-ns net
	restore_refused "--join-ns pid:/proc/self/ns/pid: not supported for pid" --join-ns pid:/proc/self/ns/pid
	restore_refused "--join-ns net:$W/none: open $W/none: No such file" --join-ns "net:$W/none"
	restore_refused "--cgroup-root cpu/x: malformed" --join-ns "net:$W/netns" --cgroup-root cpu/x
	restore_refused "--cgroup-root /a/../b: a path with '..'" --join-ns "net:$W/netns" --cgroup-root /a/../b
	# CRIU's KIND:PATH[,EXTRA]: the extra part is ignored
	run "$CRSHIM" restore -D "$W/img" -o restore.log -d --root "$W/rootfs" --pidfile "$W/pid" \
		--join-ns "net:$W/netns,extra"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img/restore.log"; false; }
	in_netns "$ino"
	run "$CRSHIM" dump -t "$RPID" -D "$W/img2" -o dump.log --external "net[$ino]:wnet"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img2/dump.log"; false; }
	RPID=
	run "$CRSHIM" restore -D "$W/img2" -o restore.log -d --root "$W/rootfs" --pidfile "$W/pid" \
		--inherit-fd fd[7]:wnet 7<"$W/netns"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$W/img2/restore.log"; false; }
	in_netns "$ino"
}
