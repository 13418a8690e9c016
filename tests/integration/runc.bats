#!/usr/bin/env bats
# runc 1.1 with crshim as its criu (`runc --criu crshim`): checkpoint/restore of busybox containers built at
# test time. Each test checks the container's state across the checkpoint (a counter that goes on, its
# output stream unbroken, a TCP stream byte-exact), not just exit codes.

load helpers

COUNTER='i=0; while :; do i=$((i+1)); echo $i; echo $i > /tmp/rpc-cnt.new; mv /tmp/rpc-cnt.new /tmp/rpc-cnt; sleep 0.1; done'

setup_file() {
	need_root
	need_cmd runc runc
	need_cmd jq jq
	helpers_build
}

setup() {
	need_root
	need_cmd runc runc
	ID=rpc-runc-$BATS_TEST_NUMBER-$$
	D=$(mktemp -d /tmp/rpc-runc.XXXXXX)
	B=$D/bundle
	CATS=()
}

teardown() {
	runc kill "$ID" KILL >/dev/null 2>&1
	for _ in $(seq 50); do
		runc state "$ID" 2>/dev/null | grep -q '"status": "running"' || break
		sleep 0.1
	done
	runc delete -f "$ID" >/dev/null 2>&1
	local p
	for p in "${CATS[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	[ -z "${NETNS:-}" ] || ip netns del "$NETNS" 2>/dev/null
	[ -z "${VETH:-}" ] || ip link del "$VETH" 2>/dev/null
	[ -z "${CGP:-}" ] || for h in /sys/fs/cgroup/*; do rmdir "$h$CGP" 2>/dev/null; done
	[ -n "${KEEP_D:-}" ] || rm -rf "$D"
	rm -f /tmp/rpc-cnt /tmp/rpc-cnt.new # would be written by a container restored without its mount tree
}

# Run "$@" (runc run/restore -d) with stdout a pipe, as a shell gives it: its reader appends to $D/out and is
# $READER (it ends when the container no longer holds the pipe). stderr is a pipe too (to $D/err): a file
# there would be a file from outside the container's root, which a checkpoint cannot bring back (runc
# hands over only pipes). Returns the command's status.
piped() {
	rm -f "$D/rc"
	{
		"$@"
		echo $? >"$D/rc"
	} </dev/null 2> >(cat >>"$D/err") | cat >>"$D/out" &
	READER=$!
	CATS+=("$READER")
	for _ in $(seq 600); do
		[ -s "$D/rc" ] && return "$(cat "$D/rc")"
		sleep 0.05
	done
	echo "$* did not return" >&2
	return 1
}

# After kill/delete: the container's processes are gone, and so are the pids given (a zombie has no command
# line for pgrep but still holds its pid until it is reaped).
pids_gone() { # [pid...]
	local p left
	for _ in $(seq 100); do
		left=$(pgrep -f -- "# $ID" || true)
		for p in "$@"; do [ ! -e "/proc/$p" ] || left="$left $p"; done
		[ -n "$left" ] || return 0
		sleep 0.1
	done
	echo "processes of $ID still there: $left" >&2
	return 1
}

status_of() {
	runc state "$1" 2>/dev/null | jq -r .status
}

start_counter() {
	make_bundle "$B" "$COUNTER # $ID"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 5
}

checkpoint() { # dir [runc checkpoint options...]
	local img=$1
	shift
	runc --criu "$CRSHIM" checkpoint --image-path "$img" "$@" "$ID" || {
		echo "checkpoint failed; dump.log:" >&2
		tail -5 "$img/dump.log" >&2
		return 1
	}
}

restore() { # dir [runc restore options...]
	local img=$1
	shift
	piped runc --criu "$CRSHIM" restore -d --bundle "$B" --image-path "$img" "$@" "$ID" || {
		echo "restore failed; runc said: $(tail -n 5 "$D/err" 2>/dev/null)" >&2
		echo "restore.log ends with:" >&2
		tail -n 15 "${WORK:-$img}/restore.log" >&2
		return 1
	}
}

# Restore from $1; the container runs and its counter goes on by $2 (default 5) from where its output was,
# unbroken; PID is the restored init's.
restore_goes_on() { # img [beyond]
	local at
	at=$(count_of "$D/out")
	restore "$1" || return 1
	[ "$(status_of "$ID")" = running ] || return 1
	count_beyond "$D/out" $((at + ${2:-5})) || return 1
	sequence_unbroken "$D/out" || return 1
	PID=$(runc state "$ID" | jq -r .pid)
}

# A restore from $D/img with cr.fault=$1 in the bundle fails; runc's output is in $output, the last line of
# restore.log in $LAST.
restore_faulted() { # point
	bundle_jq "$B" '.annotations["cr.fault"] = $f' --arg f "$1"
	run runc --criu "$CRSHIM" restore -d --bundle "$B" --image-path "$D/img" "$ID" </dev/null
	echo "$output"
	[ "$status" -ne 0 ] || return 1
	LAST=$(tail -n1 "$D/img/restore.log")
}

# The container is gone and its first reader has all it wrote.
gone() {
	[ -z "$(status_of "$ID")" ] || [ "$(status_of "$ID")" = stopped ]
	wait "$READER"
}

@test "runc: checkpoint and restore a detached container with pipes for stdio" {
	start_counter
	checkpoint "$D/img"
	gone
	[ -s "$D/img/descriptors.json" ]
	[ -s "$D/img/inventory.img" ]
	at=$(count_of "$D/out")
	restore "$D/img"
	[ "$(status_of "$ID")" = running ]
	count_beyond "$D/out" $((at + 5))
	# the restored shell printed on from where it was: the stream has no gap and no restart
	sequence_unbroken "$D/out"
	runc kill "$ID" KILL
	for _ in $(seq 50); do [ "$(status_of "$ID")" = stopped ] && break; sleep 0.1; done
	[ "$(status_of "$ID")" = stopped ]
	runc delete "$ID"
	[ -z "$(status_of "$ID")" ]
}

@test "runc: a container with a user namespace (uid/gid maps, owning its PID and mount namespaces) goes on after restore" {
	chmod 755 "$D" # the container's uid 0 (100000 outside) reaches its bundle
	CGP=/ocirt-uns-$$-$BATS_TEST_NUMBER
	# its init holds a deleted file (fd 7)
	make_bundle "$B" "exec 7<>/tmp/ghost; echo ghostdata >&7; rm /tmp/ghost; sleep 1000 & $COUNTER # $ID"
	bundle_jq "$B" '.linux.namespaces += [{"type": "user"}]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.cgroupsPath = $p' --arg p "$CGP"
	chown -R 100000:100000 "$B/rootfs"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 5
	checkpoint "$D/img"
	gone
	# a restore that fails once the root task, born in the user namespace, has built its mount tree leaves
	# nothing behind
	restore_faulted restore-mnt-late
	[[ "$LAST" == *"fault injected at restore-mnt-late"* ]]
	runc delete -f "$ID" 2>/dev/null || true
	sleep 0.3 # what the failure killed is reaped
	left=$(left_behind "" "$CGP")
	[ -z "$left" ] || { echo "left behind: $left"; false; }
	bundle_jq "$B" 'del(.annotations["cr.fault"])'
	restore_goes_on "$D/img"
	pid=$PID
	# in a user namespace of its own again, with the same maps, owning its PID and mount namespaces
	[ "$(readlink "/proc/$pid/ns/user")" != "$(readlink /proc/self/ns/user)" ]
	[ "$(awk '{print $1, $2, $3}' "/proc/$pid/uid_map")" = "0 100000 65536" ]
	[ "$(awk '{print $1, $2, $3}' "/proc/$pid/gid_map")" = "0 100000 65536" ]
	[ "$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")" = 100000 ]
	grep -q '^NSpid:.*[[:space:]]1$' "/proc/$pid/status"
	# its processes, the sleep too, are there, and its mounts are its own: /proc shows its PID namespace
	[ "$(runc exec "$ID" sh -c 'ls /proc | grep -c "^[0-9]"')" -ge 3 ]
	runc exec "$ID" sh -c 'pidof sleep'
	# the deleted file, made again in its mount tree, with its data
	[ "$(runc exec "$ID" cat /proc/1/fd/7)" = ghostdata ]
	[[ "$(runc exec "$ID" readlink /proc/1/fd/7)" == "/tmp/ghost (deleted)" ]]
}

@test "runc: a program that exists only in the container's root filesystem is restored" {
	[ ! -e /bin/memhog ] && [ ! -e /usr/bin/memhog ] # else this would not test the lookup under the root
	make_bundle "$B" "memhog 4 >/dev/null & $COUNTER # $ID"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 5
	runc ps "$ID" | grep -qw memhog
	checkpoint "$D/img"
	gone
	at=$(count_of "$D/out")
	restore "$D/img"
	count_beyond "$D/out" $((at + 5))
	sequence_unbroken "$D/out"
	runc ps "$ID" | grep -qw memhog
}

# The container's init is gone but may not be reaped yet (this machine's PID 1 reaps late): its host PID must
# not matter to a tree in its own PID namespace.
@test "runc: checkpoint --leave-running, then restore from that checkpoint" {
	start_counter
	checkpoint "$D/img" --leave-running
	[ "$(status_of "$ID")" = running ]
	at=$(count_of "$D/out")
	count_beyond "$D/out" $((at + 5)) # it goes on
	later=$(count_of "$D/out")
	runc kill "$ID" KILL
	for _ in $(seq 50); do [ "$(status_of "$ID")" = stopped ] && break; sleep 0.1; done
	runc delete -f "$ID"
	wait "$READER"
	pids_gone # its old PID may still be held by the unreaped init: the restore gets fresh host PIDs
	mv "$D/out" "$D/out.first"
	restore "$D/img"
	[ "$(status_of "$ID")" = running ]
	count_beyond "$D/out" 0
	first=$(head -n1 "$D/out")
	# back to the checkpoint's state: after what was printed by then, before what came later
	[ "$first" -gt 5 ] && [ "$first" -le "$((at + 1))" ] || {
		echo "first count after restore $first (checkpoint near $at, later $later)"
		false
	}
	count_beyond "$D/out" $((first + 5))
	sequence_unbroken "$D/out"
}

@test "runc: restore, checkpoint again and restore again (a second round)" {
	start_counter
	checkpoint "$D/img1"
	gone
	restore "$D/img1"
	at=$(count_of "$D/out")
	count_beyond "$D/out" $((at + 3))
	checkpoint "$D/img2"
	gone
	restore "$D/img2"
	[ "$(status_of "$ID")" = running ]
	at=$(count_of "$D/out")
	count_beyond "$D/out" $((at + 3))
	sequence_unbroken "$D/out"
	# the second restore is in its own rootfs again: it writes there
	count_beyond "$B/rootfs/tmp/rpc-cnt" $((at + 3))
}

@test "runc: --lazy-pages: the checkpoint serves the pages, runc restore --lazy-pages gets them through lazy-pages" {
	start_counter
	local port=$((20000 + RANDOM % 20000)) id2=$ID-lazy
	mkdir -p "$D/img" "$D/wk"
	runc --criu "$CRSHIM" checkpoint --lazy-pages --page-server "127.0.0.1:$port" --image-path "$D/img" \
		--work-path "$D/wk" "$ID" 2>"$D/ck.err" &
	local ck=$!
	CATS+=("$ck") # (a failed step: the teardown ends it and its crshim, which would hold bats' output)
	for _ in $(seq 600); do
		grep -q "lazy pages served" "$D/wk/dump.log" 2>/dev/null && break
		sleep 0.05
	done
	grep -q "lazy pages served" "$D/wk/dump.log"
	# as CRIU's lazy dump: no pages in the images dir (the source serves them), the container is stopped
	! ls "$D/img"/pages-*.img 2>/dev/null
	at=$(count_of "$B/rootfs/tmp/rpc-cnt")
	"$CRSHIM" lazy-pages --page-server --address 127.0.0.1 --port "$port" -D "$D/img" -o "$D/lazy.log" -v4 &
	local lp=$!
	CATS+=("$lp")
	piped runc --criu "$CRSHIM" restore -d --bundle "$B" --image-path "$D/img" --work-path "$D/wk2" \
		--lazy-pages "$id2"
	wait "$ck" || { cat "$D/ck.err" >&2; tail -5 "$D/wk/dump.log" >&2; false; }
	wait "$lp" || { tail -5 "$D/lazy.log" >&2; false; }
	ID=$id2 # the checkpointed container is gone: the teardown removes this one
	[ "$(status_of "$ID")" = running ]
	grep -q "done: .*(from the source)" "$D/lazy.log"
	count_beyond "$B/rootfs/tmp/rpc-cnt" $((at + 3))
	[ ! -e "$D/img/.lazy-src" ] # served, then removed
}

@test "runc: --file-locks: a flock and a POSIX lock of the container are held again after restore" {
	make_bundle "$B" "exec lockhold /lockf sh -c '$COUNTER # $ID'"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 3
	ino=$(stat -c %i "$B/rootfs/lockf")
	pid=$(runc state "$ID" | jq -r .pid)
	# /proc/locks: N: FLOCK|POSIX ADVISORY WRITE PID MAJ:MIN:INO START END
	held() { awk -v i=":$ino\$" -v p="$2" '$2 == "'"$1"'" && $4 == "WRITE" && $5 == p && $6 ~ i' /proc/locks | grep -q .; }
	held FLOCK "$pid" && held POSIX "$pid"
	run runc --criu "$CRSHIM" checkpoint --image-path "$D/img0" "$ID" # locks without --file-locks: refused
	[ "$status" -ne 0 ]
	[ "$(status_of "$ID")" = running ]
	checkpoint "$D/img" --file-locks
	gone
	flock -n "$B/rootfs/lockf" true # the locks went with the container
	restore "$D/img" --file-locks
	[ "$(status_of "$ID")" = running ]
	pid=$(runc state "$ID" | jq -r .pid)
	held FLOCK "$pid" && held POSIX "$pid"
	! flock -n "$B/rootfs/lockf" true
	counts_on "$D/out"
}

@test "runc: --tcp-established: a connection from outside through a veth goes on byte-exact after restore" {
	NETNS=rpc-mntfix-$$ VETH=mfx$$h
	local sub="10.$((200 + RANDOM % 50)).$((RANDOM % 250))" port=$((20000 + RANDOM % 20000))
	ip netns add "$NETNS"
	ip link add "$VETH" type veth peer name eth0 netns "$NETNS"
	ip addr add "$sub.1/24" dev "$VETH" && ip link set "$VETH" up
	ip -n "$NETNS" addr add "$sub.2/24" dev eth0 && ip -n "$NETNS" link set eth0 up && ip -n "$NETNS" link set lo up
	# the server in the container echoes what it reads (nc -e cat), the client is this shell
	make_bundle "$B" "exec nc -l -p $port -e cat # $ID"
	bundle_jq "$B" '(.linux.namespaces[] | select(.type == "network")) |= . + {path: $p}' --arg p "/var/run/netns/$NETNS"
	piped runc run -d --bundle "$B" "$ID"
	for _ in $(seq 50); do ip netns exec "$NETNS" ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
	exec 5<>"/dev/tcp/$sub.2/$port"
	echo "before checkpoint" >&5
	read -r -t 10 line <&5
	[ "$line" = "before checkpoint" ]
	checkpoint "$D/img" --tcp-established
	gone
	restore "$D/img" --tcp-established
	[ "$(status_of "$ID")" = running ]
	echo "after restore" >&5
	read -r -t 10 line <&5
	[ "$line" = "after restore" ] || { echo "read back '$line'"; false; }
	exec 5>&-
}

# A --console-socket receiver (helpers/recvtty.c) at $D/$1.sock copying the terminal to $D/$1: its pid is $RECV.
recv_console() { # name
	rm -f "$D/$1.sock"
	"$HELPERS_BIN/recvtty" "$D/$1.sock" "$D/$1" 2>>"$D/recvtty.err" &
	RECV=$!
	CATS+=("$RECV")
	for _ in $(seq 100); do
		[ -S "$D/$1.sock" ] && return 0
		sleep 0.05
	done
	echo "recvtty did not listen on $D/$1.sock" >&2
	return 1
}

# The container's init has its fds 0-2 and its controlling terminal on a pty of its own devpts (not the host's).
on_own_pty() {
	local pid t
	pid=$(runc state "$ID" | jq -r .pid)
	t=$(readlink "/proc/$pid/fd/0")
	[[ "$t" == /dev/pts/* ]] || { echo "fd 0 of $pid is $t" >&2; return 1; }
	[ "$(readlink "/proc/$pid/fd/1")" = "$t" ] && [ "$(readlink "/proc/$pid/fd/2")" = "$t" ]
	[ "$(awk '{print $7}' "/proc/$pid/stat")" != 0 ] # a controlling terminal
	[ "$(stat -L -c %d "/proc/$pid/fd/0")" != "$(stat -c %d /dev/pts/ptmx)" ]
}

# One round on a terminal container: checkpoint into $D/IMG (the receiver of tty FROM reads all there was),
# restore with a new receiver on tty TO; the restored shell prints on through a new pty whose master runc got
# from crshim (orphan-pts-master), on a pty of its own devpts.
console_round() { # img from to
	local recv=$RECV at
	checkpoint "$D/$1"
	[ -z "$(status_of "$ID")" ] || [ "$(status_of "$ID")" = stopped ]
	wait "$recv"
	at=$(count_of "$D/$2")
	recv_console "$3"
	restore "$D/$1" --console-socket "$D/$3.sock"
	[ "$(status_of "$ID")" = running ]
	on_own_pty
	count_beyond "$D/$3" $((at + 5))
	grep -q "orphan-pts-master" "$D/$1/restore.log"
}

@test "runc: a container with a terminal (-t, --console-socket): its console goes on after restore, twice" {
	make_bundle "$B" "$COUNTER # $ID"
	bundle_jq "$B" '.process.terminal = true'
	recv_console tty1
	runc run -d --console-socket "$D/tty1.sock" --bundle "$B" "$ID" </dev/null
	count_beyond "$D/tty1" 5
	on_own_pty
	console_round img tty1 tty2
	# a second round: after a restore, /dev/console (a bind of the pty) comes before /dev/pts in mountinfo
	console_round img2 tty2 tty3
	cat "$D/tty1" "$D/tty2" "$D/tty3" >"$D/all"
	sequence_unbroken "$D/all"
	runc kill "$ID" KILL
	for _ in $(seq 50); do [ "$(status_of "$ID")" = stopped ] && break; sleep 0.1; done
	runc delete "$ID"
	wait "$RECV" # its terminal is gone too
}

@test "runc: --work-path holds the logs, --image-path the images" {
	start_counter
	mkdir -p "$D/work1" "$D/work2"
	checkpoint "$D/img" --work-path "$D/work1"
	gone
	[ -s "$D/work1/dump.log" ] && [ ! -e "$D/img/dump.log" ]
	[ -s "$D/img/inventory.img" ]
	grep -q "DUMP of" "$D/work1/dump.log"
	WORK=$D/work2 restore "$D/img" --work-path "$D/work2"
	[ -s "$D/work2/restore.log" ] && [ ! -e "$D/img/restore.log" ]
	[ "$(status_of "$ID")" = running ]
	counts_on "$D/out"
}

@test "runc: a failed checkpoint leaves the container running" {
	start_counter
	run env CRSHIM_FAULT=dump-early runc --criu "$CRSHIM" checkpoint --image-path "$D/img" "$ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"criu failed"* ]]
	tail -n1 "$D/img/dump.log" | grep -q "fault injected at dump-early"
	[ "$(status_of "$ID")" = running ]
	counts_on "$D/out"
	# and a checkpoint without the fault works afterwards
	checkpoint "$D/img2"
	gone
}

@test "runc: a failed restore leaves nothing behind, restore.log ends with the cause" {
	start_counter
	checkpoint "$D/img"
	gone
	run env CRSHIM_FAULT=restore-after-load runc --criu "$CRSHIM" restore -d --bundle "$B" --image-path "$D/img" "$ID" </dev/null
	[ "$status" -ne 0 ]
	tail -n1 "$D/img/restore.log" | grep -q "fault injected at restore-after-load"
	[ "$(status_of "$ID")" != running ]
	! pgrep -f -- "# $ID" >/dev/null
	# nothing stays in the way of a real restore
	runc delete -f "$ID" 2>/dev/null || true
	restore "$D/img"
	[ "$(status_of "$ID")" = running ]
	counts_on "$D/out"
}

@test "runc: the restored container has its own root filesystem and mounts" {
	start_counter
	checkpoint "$D/img"
	gone
	at=$(count_of "$B/rootfs/tmp/rpc-cnt")
	restore "$D/img"
	count_beyond "$B/rootfs/tmp/rpc-cnt" $((at + 3)) # it writes into its rootfs, not the host's /tmp
	pid=$(runc state "$ID" | jq -r .pid)
	[ "$(stat -L -c %d:%i "/proc/$pid/root")" = "$(stat -c %d:%i "$B/rootfs")" ] || [ "$(readlink "/proc/$pid/root")" != / ]
	grep -q " /proc proc " "/proc/$pid/mountinfo" || grep -q " /proc .* - proc " "/proc/$pid/mountinfo"
	[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]
}

# Files and sockets of the container's own mounts (/dev/shm is a tmpfs of runc's default spec): a unix
# listener bound there, and a file there the shell and its children hold after it was deleted. The host has a
# /dev/shm too: a restore that made them where crshim sees the paths would put them on the host's.
@test "runc: a unix listener and a deleted file on a tmpfs of the container come back on that tmpfs" {
	make_bundle "$B" "echo ghost-data >/dev/shm/g; exec 7</dev/shm/g; rm /dev/shm/g; unixecho /dev/shm/echo.sock & $COUNTER # $ID"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 5
	[ "$(runc exec "$ID" unixecho -c /dev/shm/echo.sock before)" = before ]
	checkpoint "$D/img"
	gone
	at=$(count_of "$D/out")
	restore "$D/img"
	count_beyond "$D/out" $((at + 5))
	[ ! -e /dev/shm/echo.sock ] && [ ! -e /dev/shm/g ]
	[ "$(runc exec "$ID" unixecho -c /dev/shm/echo.sock after)" = after ]
	[ "$(runc exec "$ID" cat /proc/1/fd/7)" = ghost-data ]
	[ "$(runc exec "$ID" sh -c 'stat -L -c %d /proc/1/fd/7; stat -c %d /dev/shm' | uniq | wc -l)" = 1 ]
	runc exec "$ID" sh -c 'readlink /proc/1/fd/7' | grep -q '^/dev/shm/g (deleted)$'
}

@test "runc: --pre-dump, then a checkpoint with --parent-path, then restore" {
	start_counter
	checkpoint "$D/pre" --pre-dump
	[ "$(status_of "$ID")" = running ] # a pre-dump leaves it running
	at=$(count_of "$D/out")
	count_beyond "$D/out" $((at + 3))
	checkpoint "$D/img" --parent-path ../pre
	gone
	[ -L "$D/img/parent" ] || [ -e "$D/img/parent" ]
	restore "$D/img"
	[ "$(status_of "$ID")" = running ]
	counts_on "$D/out"
}

# A container in cgroupsPath /rpc-cgroup-PID-N with limits in its config (memory, pids, cpu shares), checkpointed
# with --manage-cgroups-mode MODE, then restored with the same option: it runs in its cgroup again with its
# limits, and the cgroup goes with `runc delete`. (runc 1.1.5 sends the mode to criu at checkpoint only; its
# restore sends manage_cgroups alone, which is CRIU's default mode, soft. ZDTM tests cgroup_* check each mode.)
cg_mode_roundtrip() { # mode
	make_bundle "$B" "$COUNTER # $ID"
	CGP=/rpc-cgroup-$$-$BATS_TEST_NUMBER
	bundle_jq "$B" '.linux.cgroupsPath = $p | .linux.resources.memory = {"limit": 67108864}
		| .linux.resources.pids = {"limit": 100} | .linux.resources.cpu = {"shares": 512}' --arg p "$CGP"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 5
	checkpoint "$D/img" --manage-cgroups-mode "$1"
	gone
	grep -q -- "--manage-cgroups=$1" "$D/img/dump.log"
	[ -s "$D/img/cgroup.img" ]
	"$CRSHIM" show "$D/img/cgroup.img" | grep -q "\"$CGP\""
	[ ! -e "/sys/fs/cgroup/pids$CGP" ] # runc removed it with the container
	at=$(count_of "$D/out")
	restore "$D/img" --manage-cgroups-mode "$1"
	[ "$(status_of "$ID")" = running ]
	count_beyond "$D/out" $((at + 3))
	sequence_unbroken "$D/out"
	pid=$(runc state "$ID" | jq -r .pid)
	for h in memory pids cpu; do
		grep -Eq "^[0-9]+:([a-z_]+,)*$h(,[a-z_]+)*:$CGP\$" "/proc/$pid/cgroup"
	done
	[ "$(cat "/sys/fs/cgroup/memory$CGP/memory.limit_in_bytes")" = 67108864 ]
	[ "$(cat "/sys/fs/cgroup/cpu$CGP/cpu.shares")" = 512 ]
	[ "$(cat "/sys/fs/cgroup/pids$CGP/pids.max")" = 100 ]
	runc kill "$ID" KILL
	for _ in $(seq 50); do [ "$(status_of "$ID")" = stopped ] && break; sleep 0.1; done
	runc delete "$ID"
	[ ! -e "/sys/fs/cgroup/pids$CGP" ]
}

@test "runc: --manage-cgroups-mode soft: back in its cgroup with its limits" {
	cg_mode_roundtrip soft
}

@test "runc: --manage-cgroups-mode full: back in its cgroup with its limits" {
	cg_mode_roundtrip full
}

@test "runc: --manage-cgroups-mode strict: back in its cgroup with its limits" {
	cg_mode_roundtrip strict
}

# What a restore of container $ID (bundle and images under $D) could leave behind, one line each: a process of
# the container or one working in $D (runc, crshim), a mount of $D, a namespace held by an nsfs mount of $D,
# the net devices it had ($1: names), a cgroup ($2: cgroupsPath), and any process in a namespace of
# the host's that crshim's restore would make (they all die with their processes).
left_behind() { # devs cgroup
	local d h
	pgrep -f -- "# $ID" | sed 's/^/process: /'
	# (one find for all processes: a readlink per process takes minutes on a loaded machine)
	find /proc/[0-9]*/cwd /proc/[0-9]*/root -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
		awk -v d="$D" 'index($2, d) == 1 { print "process " $1 " -> " $2 }'
	grep -F -- "$D" /proc/self/mountinfo | sed 's/^/mount: /'
	for d in $1; do ip -o link show "$d" 2>/dev/null | sed 's/^/netdev: /'; done
	for h in /sys/fs/cgroup/*; do [ ! -d "$h$2" ] || echo "cgroup: $h$2"; done
}

@test "runc: cr.fault=restore-root-only in the bundle: runc restore fails naming it, nothing is left; then it restores" {
	make_bundle "$B" "$COUNTER # $ID"
	CGP=/ocirt-cg-$$-$BATS_TEST_NUMBER
	bundle_jq "$B" '.linux.cgroupsPath = $p | .linux.resources.pids = {"limit": 100}' --arg p "$CGP"
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 3
	pid=$(runc state "$ID" | jq -r .pid)
	# a veth pair and a SysV message queue in the container's own namespaces (the dump takes them)
	nsenter -t "$pid" -n ip link add "oct$$a" type veth peer name "oct$$b"
	nsenter -t "$pid" -n ip link set "oct$$a" up
	msq=$(nsenter -t "$pid" -i ipcmk -Q | awk '{print $NF}')
	[ -n "$msq" ]
	checkpoint "$D/img"
	gone
	[ -z "$(left_behind "oct$$a oct$$b" "$CGP")" ]
	msq_host=$(ipcs -q | wc -l) nsfs=$(grep -c " nsfs " /proc/self/mountinfo || true)
	restore_faulted restore-root-only
	[[ "$output" == *"criu failed"* ]]
	[[ "$LAST" == *"fault injected at restore-root-only"*"from annotation cr.fault=restore-root-only"* ]]
	[ "$(status_of "$ID")" != running ]
	runc delete -f "$ID" 2>/dev/null || true
	sleep 0.3 # what the failure killed is reaped
	left=$(left_behind "oct$$a oct$$b" "$CGP")
	[ -z "$left" ] || { echo "left behind: $left"; false; }
	[ "$(ipcs -q | wc -l)" = "$msq_host" ] # the queue was not made in the host's IPC namespace
	[ "$(grep -c " nsfs " /proc/self/mountinfo || true)" -le "$nsfs" ] # no namespace held by a mount
	# the same images without the annotation come back whole
	bundle_jq "$B" 'del(.annotations["cr.fault"])'
	restore_goes_on "$D/img" 3
	pid=$PID
	# (runc restores the network namespace empty, --empty-ns=net: the veth pair is not expected back)
	nsenter -t "$pid" -i ipcs -q -i "$msq" | grep -q "Message Queue msqid=$msq"
	grep -Eq "^[0-9]+:pids:$CGP\$" "/proc/$pid/cgroup"
}

# bats test_tags=extra
@test "runc: cr.fault in the bundle: dump-early fails runc checkpoint, the container runs on; an unknown point is named" {
	make_bundle "$B" "$COUNTER # $ID"
	bundle_jq "$B" '.annotations["cr.fault"] = "dump-early"'
	piped runc run -d --bundle "$B" "$ID"
	count_beyond "$B/rootfs/tmp/rpc-cnt" 3
	run runc --criu "$CRSHIM" checkpoint --image-path "$D/img0" "$ID"
	[ "$status" -ne 0 ]
	tail -n1 "$D/img0/dump.log" | grep "fault injected at dump-early" | grep -q "from annotation cr.fault=dump-early"
	[ "$(status_of "$ID")" = running ]
	at=$(count_of "$D/out")
	count_beyond "$D/out" $((at + 3))
	# runc keeps the annotations it started with: a checkpoint needs a container without the fault
	runc kill "$ID" KILL
	for _ in $(seq 50); do [ "$(status_of "$ID")" = stopped ] && break; sleep 0.1; done
	runc delete -f "$ID"
	wait "$READER"
	bundle_jq "$B" 'del(.annotations["cr.fault"])'
	rm -rf "$D/out" "$B"
	start_counter
	checkpoint "$D/img"
	gone
	restore_faulted no-such-point
	[[ "$LAST" == *"annotation cr.fault=no-such-point"* ]]
	! pgrep -f -- "# $ID" >/dev/null
}
