#!/usr/bin/env bats
# Podman 4.3 + crun 1.8.1 (which has no checkpoint) with crshim-runtime as the OCI runtime: crun runs the
# containers, crshim checkpoints and restores them (`podman container checkpoint/restore`), crshim's registry
# answers state/kill/delete of a restored one. A busybox image made at test time, a private storage root.
# crun 1.8.1 refuses this machine's hybrid cgroup layout (a controller on the v2 hierarchy): podman runs in a
# private mount namespace without /sys/fs/cgroup/unified (as in hook.bats), nothing of the machine is changed.

load helpers

PODMAN=pc
REG=/run/crshim # crshim's registry (shim_run_dir)

COUNTER='i=0; while :; do i=$((i+1)); echo $i; sleep 0.1; done'

setup_file() {
	need_root
	need_cmd podman podman
	need_cmd crun crun
	export CRSHIM_RUNTIME=${CRSHIM_RUNTIME:-$(dirname "$CRSHIM")/crshim-runtime}
	export PC=$(mktemp -d /tmp/crunfe-podman.XXXXXX)
	make_rootfs "$PC/rootfs"
	tar -C "$PC/rootfs" -c . | pc import - localhost/crunfe-busybox >/dev/null
}

teardown_file() {
	podman_teardown "${PC:-}"
}

# podman in the private storage, crshim-runtime as the runtime. Its registry is crshim's default one ($REG):
# `--runtime-flag crshim-run-dir=...` reaches the runtime when podman itself calls it, but not when conmon's
# exit command (`podman container cleanup`, which drops runtime flags and the environment) deletes the
# container, and then the entry of a restored container would stay behind.
pc() {
	unshare -m --propagation private sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; exec "$@"' - \
		podman --root "$PC/storage" --runroot "$PC/run" --runtime "$CRSHIM_RUNTIME" \
		--cgroup-manager cgroupfs --events-backend none "$@"
}

setup() {
	need_root
	need_cmd podman podman
	need_cmd crun crun
	ID=crunfe-$BATS_TEST_NUMBER-$$
}

teardown() {
	pc rm -f -t 0 "$ID" >/dev/null 2>&1
	true
}

start_counter() { # [podman run options]
	pc run -d --name "$ID" --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$@" \
		localhost/crunfe-busybox sh -c "$COUNTER # $ID" >/dev/null
	logs_beyond "$ID" 5
}

# The container's processes (its command line holds the id).
procs_of() {
	pgrep -f "# $1\$" || true
}

@test "podman-crun: container checkpoint and restore through crshim-runtime, stop and rm" {
	start_counter
	pc container checkpoint "$ID"
	[ "$(state_of "$ID")" = exited ]
	[ -z "$(procs_of "$ID")" ]
	at=$(last_count "$ID")
	pc container restore "$ID"
	[ "$(state_of "$ID")" = running ]
	# restored by crshim: in crshim's registry, not crun's
	full=$(pc inspect -f '{{.Id}}' "$ID")
	grep -q '"runtime": "crshim"' "$REG/$full.json"
	! crun state "$full" 2>/dev/null
	# the counter goes on from where it was, on conmon's pipes (podman logs)
	logs_beyond "$ID" $((at + 5))
	pc logs "$ID" >"$BATS_TEST_TMPDIR/log"
	sequence_unbroken "$BATS_TEST_TMPDIR/log"
	pc stop -t 1 "$ID" >/dev/null
	[ "$(state_of "$ID")" = exited ]
	[ -z "$(procs_of "$ID")" ]
	pc rm "$ID" >/dev/null
	[ ! -e "$REG/$full.json" ]
}

# bats test_tags=extra
@test "podman-crun: checkpoint --leave-running, a second checkpoint of the restored container" {
	start_counter
	leave_running_then_restore "$ID" 3
	# checkpoint and restore again: now crshim's container (the registry's pid and bundle)
	pc container checkpoint "$ID"
	[ "$(state_of "$ID")" = exited ]
	[ -z "$(procs_of "$ID")" ]
	at=$(last_count "$ID")
	pc container restore "$ID"
	logs_beyond "$ID" $((at + 3))
	# from the second checkpoint on (the last line of its count), the log goes on without a gap
	pc logs "$ID" | awk -v at="$at" '{ l[NR] = $1 } $1 == at { s = NR } END { for (i = s; s && i <= NR; i++) print l[i] }' \
		>"$BATS_TEST_TMPDIR/log"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/log")" -gt 3 ]
	sequence_unbroken "$BATS_TEST_TMPDIR/log"
}

# bats test_tags=extra
@test "podman-crun: a restore failing by cr.fault=restore-root-only leaves nothing, the container stays exited" {
	start_counter --annotation cr.fault=restore-root-only
	pc container checkpoint --keep "$ID"
	full=$(pc inspect -f '{{.Id}}' "$ID")
	run pc container restore --keep "$ID"
	echo "$output"
	[ "$status" != 0 ]
	[[ "$output" == *"restore-root-only"*"annotation cr.fault"* ]]
	[ "$(state_of "$ID")" = exited ]
	[ -z "$(procs_of "$ID")" ]
	[ ! -e "$REG/$full.json" ]
	[ ! -d "/sys/fs/cgroup/memory/libpod_parent/libpod-$full" ]
	[ ! -d "/sys/fs/cgroup/pids/libpod_parent/libpod-$full" ]
}

@test "podman-crun: other verbs go to crun; bad options are one error line" {
	run "$CRSHIM_RUNTIME" --crun=/bin/echo state x
	[ "$status" = 0 ]
	[ "$output" = "state x" ]
	run "$CRSHIM_RUNTIME" checkpoint --help
	[ "$status" = 0 ]
	run "$CRSHIM_RUNTIME" checkpoint --pre-dump --image-path /nonexistent x
	[ "$status" = 1 ]
	[ "$output" = "crshim-runtime: checkpoint: option --pre-dump is not supported" ]
	run "$CRSHIM_RUNTIME" restore --image-path /nonexistent x
	[ "$status" = 1 ]
	[ "$output" = "crshim-runtime: restore x: no --bundle" ]
}
