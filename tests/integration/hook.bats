#!/usr/bin/env bats
# crshim-hook under Podman with crun (helper "oci"): the hook registers the container, `crshim checkpoint ID`
# finds it through the registry (crun 1.8.1 has no checkpoint), `crshim restore --bundle` brings it back.
# crun 1.8.1 refuses this machine's hybrid cgroup layout (a controller on the v2 hierarchy): podman runs in a
# private mount namespace of the test without /sys/fs/cgroup/unified, nothing of the machine is changed.
load oci

setup() {
	oci_need podman crun runc python3 ip jq
	mkdir -p "$OCI_T/hooks.d" "$CRSHIM_RUN_DIR"
	# The hook file the project ships (contrib/hooks.d/crshim.json), with this build's hook and a run dir of the test.
	jq --arg p "$CRSHIM_HOOK" --arg d "$CRSHIM_RUN_DIR" '.hook.path = $p | .hook.args += ["--run-dir", $d]' \
		"$BATS_TEST_DIRNAME/../../contrib/hooks.d/crshim.json" >"$OCI_T/hooks.d/crshim.json"
	IMG=localhost/oci-busybox-$$
	oci_bundle "$OCI_T/img-src" true
	tar -C "$OCI_T/img-src/rootfs" -c . | podman import - "$IMG" >/dev/null
	NAME=oci-p$$
}

teardown() {
	podman umount "$NAME" >/dev/null 2>&1
	podman rm -f "$NAME" >/dev/null 2>&1
	podman rmi -f "$IMG" >/dev/null 2>&1
	ip netns del "oci-ns$$" 2>/dev/null
	oci_cleanup
}

podman_crun() {
	unshare -m --propagation private sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; exec "$@"' - \
		podman --runtime crun --hooks-dir "$OCI_T/hooks.d" "$@"
}

@test "hook: a Podman+crun container is registered, checkpointed by id and restored with --bundle" {
	podman_crun run -d --name "$NAME" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--annotation oci.test=$$ "$IMG" sh -c "$OCI_COUNTER # oci-mark-$$-p"
	id=$(podman inspect -f '{{.Id}}' "$NAME")
	run "$CRSHIM" list
	echo "$output"
	[[ "$output" == *"$id "*"running  crun"* ]]
	grep -q "\"oci.test\": \"$$\"" "$CRSHIM_RUN_DIR/$id.json"
	pid=$(oci_pid "$id")
	oci_count_passes "$pid" 2
	run "$CRSHIM" checkpoint "$id" --image-path "$OCI_T/img-p"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-p/checkpoint.log"; false; }
	[ -z "$(oci_procs "oci-mark-$$-p")" ]
	# the poststop hook removed it
	for i in $(seq 50); do [ -e "$CRSHIM_RUN_DIR/$id.json" ] || break; sleep 0.2; done
	[ ! -e "$CRSHIM_RUN_DIR/$id.json" ]
	# The bundle to restore: the container's config with its rootfs mounted again and a network
	# namespace of ours in place of the one Podman removed.
	podman mount "$NAME" >/dev/null
	ip netns add "oci-ns$$"
	mkdir -p "$OCI_T/pb"
	python3 - "$OCI_T/img-p/config.json" "$OCI_T/pb/config.json" "/run/netns/oci-ns$$" <<'PY'
import json, sys
src, dst, ns = sys.argv[1:4]
c = json.load(open(src))
for n in c['linux']['namespaces']:
    if n['type'] == 'network':
        n['path'] = ns
json.dump(c, open(dst, 'w'))
PY
	run "$CRSHIM" restore --bundle "$OCI_T/pb" --image-path "$OCI_T/img-p" "oci-pr$$" --detach
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-p/restore.log"; false; }
	pid=$(oci_pid "oci-pr$$")
	oci_count_passes "$pid" "$(oci_count "$pid")"
	[ "$(readlink "/proc/$pid/ns/net")" = "net:[$(stat -L -c %i "/run/netns/oci-ns$$")]" ]
	"$CRSHIM" delete --force "oci-pr$$"
	! "$CRSHIM" state "oci-pr$$" 2>/dev/null
}

@test "hook: bad state on stdin is one error line, nothing registered" {
	run "$CRSHIM_HOOK" --run-dir "$CRSHIM_RUN_DIR" createRuntime <<<'{"ociVersion": "1.0", "id": 3}'
	[ "$status" = 1 ]
	[ "${#lines[@]}" = 1 ]
	[[ "$output" == *"field 'id': expected a string"* ]]
	[ -z "$(ls "$CRSHIM_RUN_DIR")" ]
	run "$CRSHIM_HOOK" --run-dir "$CRSHIM_RUN_DIR" poststart \
		<<<'{"ociVersion": "1.0", "id": "oci-h1", "status": "running", "pid": 1, "bundle": "/b"}'
	[ "$status" = 0 ]
	"$CRSHIM" list | grep -q "^oci-h1 "
	"$CRSHIM_HOOK" --run-dir "$CRSHIM_RUN_DIR" <<<'{"ociVersion": "1.0", "id": "oci-h1", "status": "stopped", "bundle": "/b"}'
	! "$CRSHIM" list | grep -q "^oci-h1 "
}
