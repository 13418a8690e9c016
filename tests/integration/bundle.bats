#!/usr/bin/env bats
# crshim checkpoint / restore --bundle of busybox containers that runc starts (helper "oci"): the counter goes
# on, the hostname stays, files in a tmpfs, two restores of the same images side by side, cr.fault.
load oci

setup() {
	oci_need runc python3
	mkdir -p "$OCI_T"
}

teardown() {
	[ ! -f "$OCI_T/recv.pids" ] || kill $(cat "$OCI_T/recv.pids") 2>/dev/null || true
	oci_cleanup
	[ -z "${NETNS:-}" ] || ip netns del "$NETNS" 2>/dev/null || true
	[ -z "${VETH:-}" ] || ip link del "$VETH" 2>/dev/null || true
}

# A --console-socket receiver (helpers/recvtty.c) at $OCI_T/$1.sock copying the terminal to $OCI_T/$1.
recv_console() { # name
	"$OCI_T/recvtty" "$OCI_T/$1.sock" "$OCI_T/$1" 2>>"$OCI_T/recvtty.err" &
	RECV=$!
	echo "$RECV" >>"$OCI_T/recv.pids"
	for _ in $(seq 100); do
		[ -S "$OCI_T/$1.sock" ] && return 0
		sleep 0.05
	done
	return 1
}

# The last count a terminal file holds once it passes $2 (10 s at most).
tty_count_passes() { # file min
	local v
	for _ in $(seq 100); do
		v=$(tail -n1 "$1" 2>/dev/null)
		case $v in '' | *[!0-9]*) ;; *) [ "$v" -gt "$2" ] && return 0 ;; esac
		sleep 0.1
	done
	echo "count in $1 stuck at $v (<= $2)" >&2
	return 1
}

# A runc container oci-bt$$-$1 of the counter, running; its bundle is $OCI_T/$1.
start_counter() {
	local n=$1
	oci_bundle "$OCI_T/$n" "$OCI_COUNTER # oci-mark-$$-$n" "oci-h$n"
	(cd "$OCI_T/$n" && runc run -d "oci-bt$$-$n" </dev/null >/dev/null 2>&1)
	PID=$(oci_runc_pid "oci-bt$$-$n")
	[ -n "$PID" ]
	oci_count_passes "$PID" 2
}

@test "bundle: a runc container checkpointed by crshim restores from its bundle: counter, hostname" {
	start_counter a
	run "$CRSHIM" checkpoint "oci-bt$$-a" --image-path "$OCI_T/img-a"
	[ "$status" = 0 ] || { echo "$output"; cat "$OCI_T/img-a/checkpoint.log"; false; }
	[ -z "$(oci_procs "oci-mark-$$-a")" ]
	[ -f "$OCI_T/img-a/config.json" ] && grep -q "oci-bt$$-a" "$OCI_T/img-a/oci-state.json"
	runc delete -f "oci-bt$$-a"
	run "$CRSHIM" restore --bundle "$OCI_T/a" --image-path "$OCI_T/img-a" "oci-r$$-a" --detach \
		--pid-file "$OCI_T/a.pid"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-a/restore.log"; false; }
	pid=$(oci_pid "oci-r$$-a")
	[ "$pid" = "$(cat "$OCI_T/a.pid")" ]
	"$CRSHIM" state "oci-r$$-a" | grep -q '"status": "running"'
	"$CRSHIM" list | grep -q "^oci-r$$-a .*running"
	n=$(oci_count "$pid")
	oci_count_passes "$pid" "$n"
	[ "$(nsenter -t "$pid" -u hostname)" = oci-ha ]
	# the restored container can be checkpointed again, signalled and removed
	run "$CRSHIM" checkpoint "oci-r$$-a" --image-path "$OCI_T/img-a2" --leave-running
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-a2/checkpoint.log"; false; }
	"$CRSHIM" kill "oci-r$$-a" KILL
	oci_stopped "oci-r$$-a"
	"$CRSHIM" delete "oci-r$$-a"
	! "$CRSHIM" state "oci-r$$-a"
}

@test "bundle: files in the container's tmpfs come back" {
	start_counter t
	echo kept >"/proc/$PID/root/tmp/file"
	"$CRSHIM" checkpoint "oci-bt$$-t" --image-path "$OCI_T/img-t"
	runc delete -f "oci-bt$$-t"
	"$CRSHIM" restore --bundle "$OCI_T/t" --image-path "$OCI_T/img-t" "oci-r$$-t" --detach
	pid=$(oci_pid "oci-r$$-t")
	[ "$(cat "/proc/$pid/root/tmp/file")" = kept ]
	grep -q " /tmp [^ ]* .*- tmpfs " "/proc/$pid/mountinfo"
	# no linux.cgroupsPath: a cgroup of its own all the same (runc's default: the id below ours, here the
	# memory hierarchy's path in every one), gone at delete
	own=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
	cg=${own%/}/oci-r$$-t
	grep -q "^[0-9]*:pids:$cg\$" "/proc/$pid/cgroup"
	grep -q "^[0-9]*:memory:$cg\$" "/proc/$pid/cgroup"
	[ -d "/sys/fs/cgroup/pids$cg" ]
	"$CRSHIM" delete --force "oci-r$$-t"
	! ls -d /sys/fs/cgroup/*"$cg" 2>/dev/null
}

# bats test_tags=extra
@test "bundle: --tcp-established: a connection from outside through a veth goes on byte-exact" {
	NETNS=ocirt-tcp-$$ VETH=ocirt$$h
	local sub="10.$((200 + RANDOM % 50)).$((RANDOM % 250))" port=$((20000 + RANDOM % 20000))
	ip netns add "$NETNS"
	ip link add "$VETH" type veth peer name eth0 netns "$NETNS"
	ip addr add "$sub.1/24" dev "$VETH" && ip link set "$VETH" up
	ip -n "$NETNS" addr add "$sub.2/24" dev eth0 && ip -n "$NETNS" link set eth0 up && ip -n "$NETNS" link set lo up
	oci_bundle "$OCI_T/n" "exec nc -l -p $port -e cat # oci-mark-$$-n"
	python3 - "$OCI_T/n/config.json" "/var/run/netns/$NETNS" <<'PY'
import json, sys
p, ns = sys.argv[1:3]
c = json.load(open(p))
for n in c['linux']['namespaces']:
    if n['type'] == 'network':
        n['path'] = ns
json.dump(c, open(p, 'w'), indent=1)
PY
	(cd "$OCI_T/n" && runc run -d "oci-bt$$-n" </dev/null >/dev/null 2>&1)
	for _ in $(seq 50); do ip netns exec "$NETNS" ss -Hltn "sport = :$port" | grep -q . && break; sleep 0.1; done
	exec 5<>"/dev/tcp/$sub.2/$port"
	echo "before checkpoint" >&5
	read -r -t 10 line <&5
	[ "$line" = "before checkpoint" ]
	run "$CRSHIM" checkpoint "oci-bt$$-n" --image-path "$OCI_T/img-n" --tcp-established
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-n/checkpoint.log"; false; }
	runc delete -f "oci-bt$$-n"
	run "$CRSHIM" restore --bundle "$OCI_T/n" --image-path "$OCI_T/img-n" "oci-r$$-n" --detach --tcp-established
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-n/restore.log"; false; }
	echo "after restore" >&5
	read -r -t 10 line <&5
	[ "$line" = "after restore" ] || { echo "read back '$line'"; false; }
	# byte-exact both ways, a larger block too
	head -c 2250 /dev/urandom | base64 -w 100 >"$OCI_T/blk"
	cat "$OCI_T/blk" >&5
	for _ in $(seq 30); do read -r -t 10 l <&5 && echo "$l"; done >"$OCI_T/blk.back"
	cmp "$OCI_T/blk" "$OCI_T/blk.back"
	exec 5>&-
}

@test "bundle: the same images restored twice side by side under two ids" {
	start_counter d
	"$CRSHIM" checkpoint "oci-bt$$-d" --image-path "$OCI_T/img-d"
	runc delete -f "oci-bt$$-d"
	run "$CRSHIM" restore --bundle "$OCI_T/d" --image-path "$OCI_T/img-d" "oci-r$$-d1" --detach
	[ "$status" = 0 ] || { echo "$output"; false; }
	run "$CRSHIM" restore --bundle "$OCI_T/d" --image-path "$OCI_T/img-d" "oci-r$$-d2" --detach
	[ "$status" = 0 ] || { echo "$output"; false; }
	p1=$(oci_pid "oci-r$$-d1") p2=$(oci_pid "oci-r$$-d2")
	[ "$p1" != "$p2" ]
	[ "$(readlink "/proc/$p1/ns/pid")" != "$(readlink "/proc/$p2/ns/pid")" ]
	oci_count_passes "$p1" "$(oci_count "$p1")"
	oci_count_passes "$p2" "$(oci_count "$p2")"
}

@test "bundle: an unknown cr.fault fails the checkpoint before anything is touched, naming the annotation" {
	oci_bundle "$OCI_T/u" "$OCI_COUNTER # oci-mark-$$-u"
	oci_annotate "$OCI_T/u" cr.fault no-such-point
	(cd "$OCI_T/u" && runc run -d "oci-bt$$-u" </dev/null >/dev/null 2>&1)
	pid=$(oci_runc_pid "oci-bt$$-u")
	oci_count_passes "$pid" 1
	run "$CRSHIM" checkpoint "oci-bt$$-u" --image-path "$OCI_T/img-u"
	[ "$status" = 1 ]
	[[ "$output" == *"annotation cr.fault=no-such-point"* ]]
	[ "${#lines[@]}" = 1 ]
	[ ! -e "$OCI_T/img-u" ]
	oci_count_passes "$pid" "$(oci_count "$pid")"
}

@test "bundle: every fatal dump fault point through cr.fault leaves the container running" {
	start_counter f
	# (dump-dedup is a point of dump --auto-dedup on a chain, after which the dump succeeds by design;
	# dump-timer-taken is reached only by a process with a periodic POSIX timer's signal pending, which the
	# counter has not: the ZDTM fault runner takes it with posix_timer_pending_overrun and _pending_rel;
	# dump-timer-stale and dump-timer-rearm, likewise, only by one whose pending timer signal is stale:
	# posix_timer_stale_back)
	for p in $("$CRSHIM" check --faults |
		awk '$4 == "fatal" && $2 ~ /^dump/ && $2 != "dump-dedup" && $2 != "dump-timer-taken" && $2 != "dump-timer-stale" && $2 != "dump-timer-rearm" && $2 != "dump-timer-lost" { print $2 }'); do
		python3 - "/run/runc/oci-bt$$-f/state.json" "$p" <<'PY'
import json, sys
# runc keeps the config's annotations as labels: the way crshim finds them
p, f = sys.argv[1:3]
s = json.load(open(p))
s['config']['labels'] = [l for l in s['config']['labels'] if not l.startswith('cr.fault=')] + ['cr.fault=' + f]
json.dump(s, open(p, 'w'))
PY
		run "$CRSHIM" checkpoint "oci-bt$$-f" --image-path "$OCI_T/img-f-$p"
		echo "$p: $output"
		[ "$status" = 1 ]
		[[ "$output" == *"fault injected at $p"*"annotation cr.fault=$p"* ]]
		oci_count_passes "$PID" "$(oci_count "$PID")"
	done
}

@test "bundle: every fatal restore fault point through cr.fault leaves nothing behind; then it restores" {
	start_counter g
	"$CRSHIM" checkpoint "oci-bt$$-g" --image-path "$OCI_T/img-g"
	runc delete -f "oci-bt$$-g"
	# the restore puts the container into the config's cgroup: a failed one must remove it
	python3 - "$OCI_T/g/config.json" "/oci-cg$$/g" <<'PY'
import json, sys
p, cg = sys.argv[1:3]
c = json.load(open(p))
c['linux']['cgroupsPath'] = cg
c['linux'].setdefault('resources', {})['memory'] = {'limit': 67108864}
c['linux']['resources']['pids'] = {'limit': 100}
json.dump(c, open(p, 'w'), indent=1)
PY
	# (not restore-lazy-mid: reached only by restore --lazy-pages, which a bundle restore does not do; mode lazy tests it;
	# not restore-mnt-nested: reached only by a process with a mount namespace of its own, nested.bats tests it)
	for p in $("$CRSHIM" check --faults | awk '$4 == "fatal" && $2 ~ /^restore/ && $2 != "restore-lazy-mid" &&
		$2 != "restore-mnt-nested" { print $2 }'); do
		oci_annotate "$OCI_T/g" cr.fault "$p"
		mounts=$(wc -l </proc/self/mountinfo)
		run "$CRSHIM" restore --bundle "$OCI_T/g" --image-path "$OCI_T/img-g" "oci-r$$-g" --detach
		echo "$p: $output"
		[ "$status" = 1 ]
		[[ "$output" == *"fault injected at $p"*"annotation cr.fault=$p"* ]]
		sleep 0.2
		[ -z "$(oci_procs "oci-mark-$$-g")" ]
		! "$CRSHIM" state "oci-r$$-g" 2>/dev/null
		[ "$(wc -l </proc/self/mountinfo)" = "$mounts" ]
		! ls -d /sys/fs/cgroup/*/"oci-cg$$" 2>/dev/null # in no hierarchy
	done
	oci_annotate "$OCI_T/g" cr.fault ""
	run "$CRSHIM" restore --bundle "$OCI_T/g" --image-path "$OCI_T/img-g" "oci-r$$-g" --detach
	[ "$status" = 0 ] || { echo "$output"; false; }
	pid=$(oci_pid "oci-r$$-g")
	oci_count_passes "$pid" "$(oci_count "$pid")"
	grep -q ":memory:/oci-cg$$/g\$" "/proc/$pid/cgroup"
	grep -q ":cpuset:/oci-cg$$/g\$" "/proc/$pid/cgroup" # the engine's --cgroup-root: every hierarchy
	[ "$(cat "/sys/fs/cgroup/memory/oci-cg$$/g/memory.limit_in_bytes")" = 67108864 ]
	[ "$(cat "/sys/fs/cgroup/pids/oci-cg$$/g/pids.max")" = 100 ]
	! grep -q "/oci-cg$$" /proc/self/cgroup
	"$CRSHIM" delete --force "oci-r$$-g"
	! ls -d /sys/fs/cgroup/*/"oci-cg$$/g" 2>/dev/null
	for c in /sys/fs/cgroup/*; do rmdir "$c/oci-cg$$" 2>/dev/null || true; done
}

# bats test_tags=extra
@test "bundle: a container with a terminal (runc -t): after restore its console goes to --console-socket" {
	oci_need gcc
	gcc -O2 -Wall -Werror -o "$OCI_T/recvtty" "$BATS_TEST_DIRNAME/helpers/recvtty.c"
	oci_bundle "$OCI_T/t" "i=0; while :; do i=\$((i+1)); echo \$i; sleep 0.1; done # oci-mark-$$-t" oci-ht
	sed -i 's/"terminal": false/"terminal": true/' "$OCI_T/t/config.json"
	grep -q '"terminal": true' "$OCI_T/t/config.json"
	recv_console t1
	first=$RECV
	(cd "$OCI_T/t" && runc run -d --console-socket "$OCI_T/t1.sock" "oci-bt$$-t" </dev/null >/dev/null 2>&1)
	tty_count_passes "$OCI_T/t1" 3
	run "$CRSHIM" checkpoint "oci-bt$$-t" --image-path "$OCI_T/img-t"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-t/checkpoint.log"; false; }
	wait "$first" # its terminal went with it
	runc delete -f "oci-bt$$-t"
	at=$(tail -n1 "$OCI_T/t1")
	# its console needs a receiver: refused with one line before anything is made
	run "$CRSHIM" restore --bundle "$OCI_T/t" --image-path "$OCI_T/img-t" "oci-r$$-t" --detach
	[ "$status" = 1 ] && [[ "$output" == *"--console-socket"* ]] && [ "$(echo "$output" | grep -c .)" = 1 ]
	recv_console t2
	run "$CRSHIM" restore --bundle "$OCI_T/t" --image-path "$OCI_T/img-t" "oci-r$$-t" --detach \
		--console-socket "$OCI_T/t2.sock"
	[ "$status" = 0 ] || { echo "$output"; tail -5 "$OCI_T/img-t/restore.log"; false; }
	pid=$(oci_pid "oci-r$$-t")
	[[ "$(readlink "/proc/$pid/fd/1")" == /dev/pts/* ]]
	tty_count_passes "$OCI_T/t2" $((at + 3))
	cat "$OCI_T/t1" "$OCI_T/t2" | awk 'NR > 1 && $1 != prev + 1 { print "line " NR ": " $1 " after " prev; exit 1 } { prev = $1 }'
	"$CRSHIM" kill "oci-r$$-t" KILL
	oci_stopped "oci-r$$-t"
	"$CRSHIM" delete "oci-r$$-t"
	wait "$RECV"
}
