#!/usr/bin/env bats
# containerd 1.6 with crshim as `criu` on its PATH (the runc shim runs `runc checkpoint/restore`, runc runs
# criu): the test starts its own containerd (private config, root, state and socket), imports a busybox OCI
# image made at test time, runs a task with ctr, checkpoints it and restores it; the task's output goes on.

load helpers
load nested

setup_file() {
	need_root
	need_cmd containerd containerd
	need_cmd ctr containerd
	need_cmd runc runc
	helpers_build
	export CD=$(mktemp -d /tmp/rpc-containerd.XXXXXX)
	mkdir -p "$CD/bin"
	ln -s "$CRSHIM" "$CD/bin/criu"
	containerd config default |
		sed -e "s|^root = .*|root = \"$CD/root\"|" -e "s|^state = .*|state = \"$CD/state\"|" \
			-e 's|^disabled_plugins = .*|disabled_plugins = ["io.containerd.grpc.v1.cri"]|' \
			-e "s|/run/containerd/containerd.sock|$CD/c.sock|" >"$CD/config.toml"
	PATH=$CD/bin:$PATH setsid containerd --config "$CD/config.toml" >"$CD/containerd.log" 2>&1 &
	echo $! >"$CD/containerd.pid"
	for _ in $(seq 100); do
		ctr -a "$CD/c.sock" version >/dev/null 2>&1 && break
		sleep 0.1
	done
	make_rootfs "$CD/rootfs"
	nested_rootfs "$CD/rootfs"
	mk_oci_image "$CD/rootfs" "$CD/image.tar" docker.io/library/rpc-busybox:latest
	c images import "$CD/image.tar" >/dev/null
}

teardown_file() {
	[ -n "${CD:-}" ] || return 0
	[ -s "$CD/containerd.pid" ] && kill "$(cat "$CD/containerd.pid")" 2>/dev/null
	sleep 0.5
	umount_under "$CD"
	rm -rf "$CD"
	# the tasks' cgroups are /rpc/ID (ctr's namespace): their parent, once empty (another run may use it)
	local h
	for h in /sys/fs/cgroup/*/rpc; do rmdir "$h" 2>/dev/null; done
	return 0
}

c() {
	ctr -a "$CD/c.sock" -n rpc "$@"
}

# mk_oci_image ROOTFS OUT.tar NAME: an OCI image layout archive of one layer (for ctr images import)
mk_oci_image() {
	local r=$1 out=$2 name=$3 t diffid ld ls cd cs md ms
	t=$(mktemp -d)
	mkdir -p "$t/blobs/sha256"
	tar -C "$r" -c . >"$t/layer.tar"
	diffid=$(sha256sum <"$t/layer.tar" | cut -d' ' -f1)
	gzip -n -c "$t/layer.tar" >"$t/layer.tgz"
	ld=$(sha256sum <"$t/layer.tgz" | cut -d' ' -f1) ls=$(stat -c %s "$t/layer.tgz")
	mv "$t/layer.tgz" "$t/blobs/sha256/$ld"
	printf '{"architecture":"amd64","os":"linux","config":{"Cmd":["sh"],"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$diffid" >"$t/cfg"
	cd=$(sha256sum <"$t/cfg" | cut -d' ' -f1) cs=$(stat -c %s "$t/cfg")
	mv "$t/cfg" "$t/blobs/sha256/$cd"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' "$cd" "$cs" "$ld" "$ls" >"$t/man"
	md=$(sha256sum <"$t/man" | cut -d' ' -f1) ms=$(stat -c %s "$t/man")
	mv "$t/man" "$t/blobs/sha256/$md"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"latest"}}]}' "$md" "$ms" "$name" >"$t/index.json"
	echo '{"imageLayoutVersion":"1.0.0"}' >"$t/oci-layout"
	tar -C "$t" -cf "$out" oci-layout index.json blobs
	rm -rf "$t"
}

setup() {
	need_root
	need_cmd containerd containerd
	ID=rpc-ctr-$BATS_TEST_NUMBER-$$
	D=$(mktemp -d /tmp/rpc-containerd-t.XXXXXX)
}

teardown() {
	local id
	for id in "$ID" "$ID-r"; do
		c task kill -s KILL "$id" >/dev/null 2>&1
		for _ in $(seq 50); do c task ls -q 2>/dev/null | grep -qx "$id" || break; c task rm "$id" >/dev/null 2>&1; sleep 0.1; done
		c containers rm "$id" >/dev/null 2>&1
	done
	c images rm "rpc/$ID:ckpt" >/dev/null 2>&1
	rm -rf "$D"
}

# ctr checkpoint of task $ID (it runs on), as image rpc/$ID:ckpt ($@: ctr's options).
checkpoint_task() {
	c containers checkpoint --task "$@" "$ID" "rpc/$ID:ckpt" ||
		{ tail -5 "$CD/state/io.containerd.runtime.v2.task/rpc/$ID/criu-dump.log"; return 1; }
	c images ls -q | grep -qx "rpc/$ID:ckpt"
}

# Task and container $ID removed.
remove_task() {
	c task kill -s KILL "$ID" >/dev/null 2>&1
	for _ in $(seq 50); do c task rm "$ID" >/dev/null 2>&1 && break; sleep 0.1; done
	c containers rm "$ID"
}

# ctr restore of rpc/$ID:ckpt as $ID-r ($@: ctr's options), running.
restore_task() {
	c containers restore --live "$@" "$ID-r" "rpc/$ID:ckpt" ||
		{ tail -5 "$CD/state/io.containerd.runtime.v2.task/rpc/$ID-r/work/restore.log"; return 1; }
	c task ls | grep -q "$ID-r .*RUNNING"
}

# A counter task ($@: ctr run's options) writing to a bind mount of $D (ctr's restore does not keep a --log-uri;
# the mount is in the checkpoint's spec): checkpointed, removed, restored; the restored one goes on from the
# checkpoint's count (the task ran on after the checkpoint: its log is put aside).
counter_cr() {
	c run -d "$@" --mount "type=bind,src=$D,dst=/out,options=rbind:rw" docker.io/library/rpc-busybox:latest \
		"$ID" sh -c 'i=0; while :; do i=$((i+1)); echo $i >>/out/log; sleep 0.1; done' >/dev/null
	count_beyond "$D/log" 5
	checkpoint_task
	at=$(count_of "$D/log")
	remove_task
	mv "$D/log" "$D/log.first"
	restore_task
	count_beyond "$D/log" 0
	first=$(head -n1 "$D/log")
	[ "$first" -gt 5 ] && [ "$first" -le $((at + 1)) ]
	count_beyond "$D/log" $((first + 3))
	sequence_unbroken "$D/log"
}

@test "containerd: ctr checkpoint of a running task, restore, the task goes on" {
	counter_cr
}

task_pid() { # id
	c task ls | awk -v i="$1" '$1 == i { print $2 }'
}

@test "containerd: a task's own mount namespace with a tmpfs, netns with veths and tun/taps inside it: all back" {
	[ -c /dev/net/tun ] || skip "no /dev/net/tun"
	c run -d --cap-add CAP_SYS_ADMIN --cap-add CAP_NET_ADMIN --device /dev/net/tun \
		docker.io/library/rpc-busybox:latest "$ID" sh /nested.sh "$ID" >/dev/null
	started "$(task_pid "$ID")"
	# (--rw: the files its processes have open are in its writable layer)
	checkpoint_task --rw
	remove_task
	restore_task --rw
	find_nested "$(task_pid "$ID-r")"
	save_state after
	# (runc restores the task's own netns empty, --empty-ns net: what was in it is not compared)
	same_state mnt n1 n2 n3 fd
	ping_ok "$N1" 10.78.0.2
	ping_ok "$N1" 10.81.0.2
}

@test "containerd: a privileged task (runc names every device of the host as an external mount) goes on after restore" {
	[ "$(find /dev -maxdepth 1 \( -type c -o -type b \) | grep -c .)" -gt 64 ] # (the limit crshim had)
	counter_cr --privileged
}
