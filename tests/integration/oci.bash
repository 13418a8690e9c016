# Shared by bundle.bats and hook.bats (helper "oci"): busybox bundles made at test time, names with "oci" in
# them, a registry of our own ($CRSHIM_RUN_DIR), cleanup of what a test made.
REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
CRSHIM=${CRSHIM:-$REPO/build/crshim}
CRSHIM_HOOK=${CRSHIM_HOOK:-$(dirname "$CRSHIM")/crshim-hook}
OCI_T=/tmp/oci-bats-$$
export CRSHIM_RUN_DIR=$OCI_T/run

oci_need() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
	done
}

# A bundle at $1: busybox rootfs, `runc spec` config with: the command $2 (sh -c), hostname $3, a tmpfs on
# /tmp, terminal off, rootfs writable.
oci_bundle() {
	local b=$1 cmd=$2 host=${3:-oci-host} a
	mkdir -p "$b/rootfs"/{bin,tmp,proc,sys,dev,etc,data}
	cp /bin/busybox "$b/rootfs/bin/busybox"
	for a in sh sleep echo cat hostname nc ls mv; do ln -sf busybox "$b/rootfs/bin/$a"; done
	(cd "$b" && runc spec)
	python3 - "$b/config.json" "$cmd" "$host" <<'PY'
import json, sys
p, cmd, host = sys.argv[1:4]
c = json.load(open(p))
c['process']['terminal'] = False
c['process']['args'] = ['sh', '-c', cmd]
c['root']['readonly'] = False
c['hostname'] = host
c['mounts'].append({'destination': '/tmp', 'type': 'tmpfs', 'source': 'tmpfs', 'options': ['nosuid', 'size=1m']})
json.dump(c, open(p, 'w'), indent=1)
PY
}

# Set (or with an empty value remove) an annotation of the bundle's config.
oci_annotate() { # bundle key value
	python3 - "$1/config.json" "$2" "$3" <<'PY'
import json, sys
p, k, v = sys.argv[1:4]
c = json.load(open(p))
a = c.setdefault('annotations', {})
if v:
    a[k] = v
else:
    a.pop(k, None)
json.dump(c, open(p, 'w'), indent=1)
PY
}

# The counter a container's command writes to /tmp/count (via /proc/PID/root).
OCI_COUNTER='i=0; while :; do i=$((i+1)); echo $i > /tmp/count.new; mv /tmp/count.new /tmp/count; sleep 0.1; done'

oci_count() { # pid
	cat "/proc/$1/root/tmp/count" 2>/dev/null || echo 0
}

# Wait until the counter of pid passes $2.
oci_count_passes() { # pid min
	local i
	for i in $(seq 100); do
		[ "$(oci_count "$1")" -gt "$2" ] && return 0
		sleep 0.1
	done
	echo "counter of $1 stuck at $(oci_count "$1") (<= $2)"
	return 1
}

oci_pid() { # id: the pid in crshim's state
	"$CRSHIM" state "$1" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'
}

oci_runc_pid() {
	runc state "$1" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'
}

oci_stopped() { # id: wait until crshim state says stopped
	local i
	for i in $(seq 100); do
		"$CRSHIM" state "$1" | grep -q '"status": "stopped"' && return 0
		sleep 0.1
	done
	return 1
}

# Processes that run the container command with the marker $1 in it.
oci_procs() {
	pgrep -f "$1" || true
}

oci_cleanup() {
	local id
	for id in $(runc list -q 2>/dev/null | grep "^oci-bt$$"); do runc delete -f "$id" >/dev/null 2>&1; done
	for f in "$CRSHIM_RUN_DIR"/*.json; do
		[ -e "$f" ] || continue
		id=$(basename "$f" .json)
		"$CRSHIM" delete --force "$id" >/dev/null 2>&1
	done
	for c in /sys/fs/cgroup/*; do
		rmdir "$c/oci-cg$$"/* "$c/oci-cg$$" 2>/dev/null || true
	done
	rm -rf "$OCI_T"
}
