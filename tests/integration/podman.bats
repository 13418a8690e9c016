#!/usr/bin/env bats
# Podman 4.3 (rootful, --runtime runc) with crshim installed as `criu` first on PATH: container checkpoint and
# restore of a busybox image made at test time (podman import of a rootfs tar), in a private storage root.
# The container prints a counter; its log must go on from where it was.

load helpers
load nested

PODMAN=pm

COUNTER='i=0; while :; do i=$((i+1)); echo $i; sleep 0.1; done'

setup_file() {
	need_root
	need_cmd podman podman
	need_cmd runc runc
	helpers_build
	export PD=$(mktemp -d /tmp/rpc-podman.XXXXXX)
	mkdir -p "$PD/bin"
	ln -s "$CRSHIM" "$PD/bin/criu"
	make_rootfs "$PD/rootfs"
	nested_rootfs "$PD/rootfs"
	tar -C "$PD/rootfs" -c . | pm import - localhost/rpc-busybox >/dev/null
}

teardown_file() {
	podman_teardown "${PD:-}"
}

# podman in the private storage, runc as the runtime, crshim as criu
pm() {
	PATH=$PD/bin:$PATH podman --root "$PD/storage" --runroot "$PD/run" --runtime runc --cgroup-manager cgroupfs \
		--events-backend none "$@"
}

setup() {
	need_root
	need_cmd podman podman
	ID=rpc-podman-$BATS_TEST_NUMBER-$$
	D=$(mktemp -d /tmp/rpc-podman-t.XXXXXX)
}

teardown() {
	exec 5>&-
	pm rm -f -t 0 "$ID" "$ID-a" "$ID-b" >/dev/null 2>&1
	[ -z "${NETNS:-}" ] || ip netns del "$NETNS" 2>/dev/null
	[ -z "${VETH:-}" ] || ip link del "$VETH" 2>/dev/null
	rm -rf "$D"
}

start_counter() {
	pm run -d --name "$ID" --network none --log-driver k8s-file --ulimit nofile=1024:1024 \
		--ulimit nproc=1024:1024 localhost/rpc-busybox sh -c "$COUNTER # $ID" >/dev/null
	logs_beyond "$ID" 5
}

# checkpoint container $1 (it exits), AT = its last count, restore it (it runs again)
checkpoint_restore() {
	pm container checkpoint "$1"
	[ "$(state_of "$1")" = exited ] || return 1
	AT=$(last_count "$1")
	pm container restore "$1"
	[ "$(state_of "$1")" = running ] || return 1
}

@test "podman: container checkpoint and restore" {
	start_counter
	checkpoint_restore "$ID"
	logs_beyond "$ID" $((AT + 5))
	pm logs "$ID" >"$D/log"
	sequence_unbroken "$D/log"
}

@test "podman: a container with a user namespace (--uidmap/--gidmap): checkpoint and restore" {
	pm run -d --name "$ID" --network none --log-driver k8s-file --uidmap 0:200000:65536 \
		--gidmap 0:200000:65536 localhost/rpc-busybox sh -c "sleep 1000 & $COUNTER # $ID" >/dev/null
	logs_beyond "$ID" 5
	checkpoint_restore "$ID"
	logs_beyond "$ID" $((AT + 5))
	pm logs "$ID" >"$D/log"
	sequence_unbroken "$D/log"
	# in a user namespace of its own with the maps, its processes' uid 200000 outside
	pid=$(pm inspect -f '{{.State.Pid}}' "$ID")
	[ "$(awk '{print $1, $2, $3}' "/proc/$pid/uid_map")" = "0 200000 65536" ]
	[ "$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")" = 200000 ]
	pm exec "$ID" sh -c 'pidof sleep'
}

@test "podman: a container's own mount namespace with a tmpfs, netns with veths and tun/taps inside it: all back" {
	[ -c /dev/net/tun ] || skip "no /dev/net/tun"
	pm run -d --name "$ID" --network none --cap-add all --device /dev/net/tun --log-driver k8s-file \
		--ulimit nofile=1024:1024 --ulimit nproc=1024:1024 localhost/rpc-busybox sh /nested.sh "$ID" >/dev/null
	started "$(pm inspect -f '{{.State.Pid}}' "$ID")"
	pm container checkpoint "$ID"
	[ "$(state_of "$ID")" = exited ]
	pm container restore "$ID"
	[ "$(state_of "$ID")" = running ]
	find_nested "$(pm inspect -f '{{.State.Pid}}' "$ID")"
	save_state after
	# (Podman gives the container a network namespace again: what was in its own is not compared)
	same_state mnt n1 n2 n3 fd
	ping_ok "$N1" 10.78.0.2
	ping_ok "$N1" 10.81.0.2
}

# bats test_tags=extra
@test "podman: a container with a terminal (-t): checkpoint and restore, its console goes on" {
	pm run -d -t --name "$ID" --network none --log-driver k8s-file --ulimit nofile=1024:1024 \
		--ulimit nproc=1024:1024 localhost/rpc-busybox sh -c "$COUNTER # $ID" >/dev/null
	logs_beyond "$ID" 5
	checkpoint_restore "$ID"
	# conmon got the new console's master through runc's --console-socket (crshim's orphan-pts-master)
	logs_beyond "$ID" $((AT + 5))
	pm logs "$ID" | tr -d '\r' >"$D/log"
	sequence_unbroken "$D/log"
	pid=$(pm inspect -f '{{.State.Pid}}' "$ID")
	[[ "$(readlink "/proc/$pid/fd/1")" == /dev/pts/* ]]
}

@test "podman: checkpoint --leave-running, then restore from it" {
	start_counter
	leave_running_then_restore "$ID" 5
}

# bats test_tags=extra
@test "podman: checkpoint --keep and restore --keep keep the logs and images" {
	start_counter
	pm container checkpoint --keep "$ID"
	dir=$(pm inspect -f '{{.StaticDir}}' "$ID")
	[ -s "$dir/dump.log" ]
	[ -s "$dir/checkpoint/inventory.img" ]
	grep -q "DUMP of" "$dir/dump.log"
	at=$(last_count "$ID")
	pm container restore --keep "$ID"
	[ -s "$dir/restore.log" ]
	logs_beyond "$ID" $((at + 3))
}

@test "podman: checkpoint --export, remove, restore --import" {
	start_counter
	pm container checkpoint --export "$D/cp.tar.gz" "$ID"
	[ -s "$D/cp.tar.gz" ]
	at=$(last_count "$ID")
	pm rm -f -t 0 "$ID" >/dev/null
	pm container restore --import "$D/cp.tar.gz"
	[ "$(state_of "$ID")" = running ]
	logs_beyond "$ID" 0
	first=$(pm logs "$ID" | head -n1)
	# the imported container goes on from the counter's value at the checkpoint, not from 1
	[ "$first" -gt 5 ] && [ "$first" -le $((at + 1)) ]
	pm logs "$ID" >"$D/log"
	sequence_unbroken "$D/log"
}

# bats test_tags=extra
@test "podman: one export restored twice under new names" {
	start_counter
	pm container checkpoint --export "$D/cp.tar.gz" "$ID"
	at=$(last_count "$ID")
	pm container restore --import "$D/cp.tar.gz" --name "$ID-a"
	pm container restore --import "$D/cp.tar.gz" --name "$ID-b"
	[ "$(state_of "$ID-a")" = running ] && [ "$(state_of "$ID-b")" = running ]
	logs_beyond "$ID-a" $((at + 3))
	logs_beyond "$ID-b" $((at + 3))
}

@test "podman: --print-stats reads crshim's stats-dump and stats-restore" {
	start_counter
	run pm container checkpoint --print-stats "$ID"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.container_statistics[0].criu_statistics.frozen_time > 0'
	run pm container restore --print-stats "$ID"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.container_statistics[0].criu_statistics.restore_time > 0'
	at=$(last_count "$ID")
	logs_beyond "$ID" $((at + 3))
}

# bats test_tags=extra
@test "podman: checkpoint (--leave-running, then not) and restore --tcp-established: a connection from outside goes on byte-exact" {
	NETNS=rpc-podman-$BATS_TEST_NUMBER-$$ VETH=rpcpd$$h
	local sub="10.$((200 + RANDOM % 50)).$((RANDOM % 250))" port=$((20000 + RANDOM % 20000))
	ip netns add "$NETNS"
	ip link add "$VETH" type veth peer name eth0 netns "$NETNS"
	ip addr add "$sub.1/24" dev "$VETH" && ip link set "$VETH" up
	ip -n "$NETNS" addr add "$sub.2/24" dev eth0 && ip -n "$NETNS" link set eth0 up && ip -n "$NETNS" link set lo up
	# the server in the container echoes what it reads (nc -e cat); the client is this shell
	pm run -d --name "$ID" --network "ns:/var/run/netns/$NETNS" --ulimit nofile=1024:1024 \
		--ulimit nproc=1024:1024 localhost/rpc-busybox nc -l -p "$port" -e cat >/dev/null
	for _ in $(seq 50); do ip netns exec "$NETNS" ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
	exec 5<>"/dev/tcp/$sub.2/$port"
	local before="before $RANDOM$RANDOM" during="while checkpointed $RANDOM$RANDOM" after="after $RANDOM$RANDOM"
	echo "$before" >&5
	read -r -t 10 line <&5
	[ "$line" = "$before" ]
	pid=$(pm inspect -f '{{.State.Pid}}' "$ID") # the lock's table is named after it
	# --leave-running: the connection is locked for the dump and unlocked (in the container's namespace)
	pm container checkpoint --leave-running --tcp-established "$ID"
	[ "$(state_of "$ID")" = running ]
	echo "$before again" >&5
	read -r -t 10 line <&5
	[ "$line" = "$before again" ] || { echo "after --leave-running read back '$line'"; false; }
	[ -z "$(ip netns exec "$NETNS" nft list tables | grep crshim_)" ] # no lock left behind
	pm container checkpoint --tcp-established "$ID"
	[ "$(state_of "$ID")" = exited ]
	echo "$during" >&5 # held back while the container is gone, resent by the kernel after the restore
	pm container restore --tcp-established "$ID"
	[ "$(state_of "$ID")" = running ]
	read -r -t 30 line <&5
	[ "$line" = "$during" ] || { echo "read back '$line', not '$during'"; false; }
	echo "$after" >&5
	read -r -t 10 line <&5
	[ "$line" = "$after" ] || { echo "read back '$line', not '$after'"; false; }
	[ -z "$(ip netns exec "$NETNS" nft list tables | grep crshim_)" ]
	[ -z "$(nft list tables | grep -x "table inet crshim_$pid")" ] # nor one in the host's namespace
	exec 5>&-
}

# bats test_tags=extra
@test "podman: checkpoint --pre-checkpoint, then --with-previous, then restore" {
	start_counter
	pm container checkpoint --pre-checkpoint "$ID"
	[ "$(state_of "$ID")" = running ] # a pre-checkpoint leaves it running
	dir=$(pm inspect -f '{{.StaticDir}}' "$ID")
	compgen -G "$dir/pre-checkpoint/pages-*.img" >/dev/null # the memory is there
	at=$(last_count "$ID")
	logs_beyond "$ID" $((at + 3))
	pm container checkpoint --with-previous "$ID"
	[ "$(state_of "$ID")" = exited ]
	# the checkpoint holds only what changed since the pre-checkpoint and refers to it
	[ "$(readlink "$dir/checkpoint/parent")" = ../pre-checkpoint ]
	AT=$(last_count "$ID")
	pm container restore "$ID"
	[ "$(state_of "$ID")" = running ]
	logs_beyond "$ID" $((AT + 5))
	pm logs "$ID" >"$D/log"
	sequence_unbroken "$D/log"
}
