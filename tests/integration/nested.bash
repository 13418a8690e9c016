# Shared by nested.bats and podman.bats: a container of busybox that makes namespaces inside itself (NESTED_SH,
# its /nested.sh), and its state compared before and after a checkpoint (in $D/before.* and $D/after.*).

# What the container runs (sh /nested.sh ID [option...]; ID marks its command lines): a process in a mount
# namespace of its own (a tmpfs on /mnt with a file), two in network namespaces of their own, N1 and N2 (N2 holds
# tun device tunh, owner 4321, by an fd), a veth between them: N1's vx 10.78.0.1 <-> N2's vy 10.78.0.2;
# persistent taps: tapc (the container's, 10.80.0.1), tapn (N1's); tunh 10.79.0.1. With root-veth a veth between
# the container's netns and N1 too: vc 10.77.0.1 <-> vn 10.77.0.2. A third one, N3, held by a mount only
# (below). /tmp/ready when all is up.
# (busybox's `ip link add X type veth` names the other end veth0.)
NESTED_SH='
set -e
exec </dev/null >/tmp/nested.log 2>&1
hold="while :; do sleep 1000; done"
opt() { case " $OPTS " in *" $1 "*) ;; *) return 1 ;; esac; }
ID=$1
shift
OPTS="$*"
waitfor() { while [ ! -e "$1" ]; do sleep 0.05; done; }
unshare -m --propagation private sh -c "mount -t tmpfs -o size=1m,mode=750 nested-tmp /mnt && echo nested-data >/mnt/file && touch /tmp/m.ready && $hold # nest-mnt-$ID" &
unshare -n sh -c "touch /tmp/n1.ready; $hold # nest-net1-$ID" &
N1=$!
# the fd of tunh is held by N2 alone, or by a child of it too with tun-shared
unshare -n tunhold tunh tun 4321 -1 /tmp/n2-$ID.ready $(opt tun-shared && echo shared) &
N2=$!
waitfor /tmp/m.ready
waitfor /tmp/n1.ready
waitfor /tmp/n2-$ID.ready
ip link set lo up
# tapn: ifindex 2, or with tap-gap 4 (a veth pair made and deleted before it)
! opt tap-gap || nsenter -t $N1 -n sh -c "ip link add vg type veth && ip link del vg"
nsenter -t $N1 -n sh -c "tunctl -t tapn >/dev/null && ip link set tapn up"
nsenter -t $N1 -n sh -c "ip link set lo up && ip link add vx type veth && ip link set veth0 netns $N2 &&
	ip addr add 10.78.0.1/24 dev vx && ip link set vx up"
nsenter -t $N2 -n sh -c "ip link set lo up && ip link set veth0 name vy && ip addr add 10.78.0.2/24 dev vy &&
	ip link set vy up && ip addr add 10.79.0.1/24 dev tunh && ip link set tunh up"
tunctl -t tapc >/dev/null
ip addr add 10.80.0.1/24 dev tapc
ip link set tapc up
if opt root-veth; then
	ip link add vc type veth
	ip link set veth0 netns $N1
	ip addr add 10.77.0.1/24 dev vc
	ip link set vc up
	nsenter -t $N1 -n sh -c "ip link set veth0 name vn && ip addr add 10.77.0.2/24 dev vn && ip link set vn up"
fi
# N3: a netns no process is in, kept by a bind mount of its nsfs file (as `ip netns add n3` keeps one), with a
# veth to N1: vw 10.81.0.2 <-> vz 10.81.0.1 of N1
mkdir -p /run/netns
touch /run/netns/n3
unshare --net=/run/netns/n3 true
nsenter --net=/run/netns/n3 sh -c "ip link set lo up && ip link add vw type veth && ip link set veth0 netns $N1 &&
	ip addr add 10.81.0.2/24 dev vw && ip link set vw up"
nsenter -t $N1 -n sh -c "ip link set veth0 name vz && ip addr add 10.81.0.1/24 dev vz && ip link set vz up"
touch /tmp/ready
exec sh -c "$hold # nest-init-$ID"
'

# /nested.sh and its /mnt in the busybox rootfs at $1 (make_rootfs put tunhold there).
nested_rootfs() {
	echo "$NESTED_SH" >"$1/nested.sh"
	mkdir -p "$1/mnt"
}

# The bundle: busybox, sh /nested.sh, every capability (it unshares, mounts, makes links), /dev/net/tun with
# the device cgroup letting it be opened.
make_nested_bundle() { # [option...]
	make_bundle "$B" "exec sh /nested.sh $ID $*"
	nested_rootfs "$B/rootfs"
	local caps
	caps=$(capsh --print 2>/dev/null | sed -n 's/^Bounding set =//p' | tr a-z A-Z)
	[ -n "$caps" ] || caps=CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_KILL,CAP_SETUID,CAP_SETGID,CAP_NET_ADMIN,CAP_NET_RAW,CAP_SYS_ADMIN,CAP_SYS_CHROOT,CAP_SYS_PTRACE,CAP_MKNOD
	bundle_jq "$B" '.process.capabilities |= with_entries(.value = ($c | split(",")))
		| .linux.devices += [{"path": "/dev/net/tun", "type": "c", "major": 10, "minor": 200, "fileMode": 438, "uid": 0, "gid": 0}]
		| .linux.resources.devices += [{"allow": true, "type": "c", "major": 10, "minor": 200, "access": "rwm"}]' \
		--arg c "$caps"
}

# Wait for /tmp/ready of the container of init $1 (60 s at most: at load 35 on 2 cores a whole test took up to
# 26 s).
nested_ready() { # init
	for _ in $(seq 600); do
		[ -e "/proc/$1/root/tmp/ready" ] && return 0
		sleep 0.1
	done
	echo "the container did not get ready; its log:" >&2
	cat "/proc/$1/root/tmp/nested.log" >&2
	return 1
}

# The host PID of the child of container init $1 whose command line has $2 in it.
child_of() { # init marker
	local p
	for p in $(cat /proc/"$1"/task/*/children) ; do
		tr '\0' ' ' <"/proc/$p/cmdline" | grep -qF -- "$2" && { echo "$p"; return 0; }
	done
	echo "no process '$2' under $1" >&2
	return 1
}

# The container's init is INIT (host PID $1), its process in a mount namespace of its own M, those in netns N1
# and N2.
find_nested() { # init
	INIT=$1
	M=$(child_of "$INIT" "# nest-mnt-$ID ") && N1=$(child_of "$INIT" "# nest-net1-$ID ") &&
		N2=$(child_of "$INIT" "tunhold tunh tun 4321 -1 /tmp/n2-$ID.ready")
}

# Everything of the mount namespaces compared before and after (find_nested gave the PIDs).
mnt_state() {
	echo "M: $(grep -c . "/proc/$M/mountinfo") mounts, /mnt $(awk '$5 == "/mnt" {print $(NF-2), $(NF-1)}' "/proc/$M/mountinfo")"
	echo "M: /mnt $(stat -c %a "/proc/$M/root/mnt"), /mnt/file: $(cat "/proc/$M/root/mnt/file")"
	echo "init: $(grep -c . "/proc/$INIT/mountinfo") mounts, /mnt: $(awk '$5 == "/mnt"' "/proc/$INIT/mountinfo" | grep -c .)"
	[ "$(readlink "/proc/$M/ns/mnt")" != "$(readlink "/proc/$INIT/ns/mnt")" ] && echo "M: a mount namespace of its own"
}

# The links of the network namespace of $1 (name, index, flags but the carrier's, MTU, MAC, kind, tun
# settings), its IPv4 addresses, one line each; the netns of N1 and N2 their own.
net_state() { # pid|nsfs-file
	local in=(-t "$1" -n)
	[[ "$1" != /* ]] || in=(--net="$1")
	nsenter "${in[@]}" ip -d -j link show | jq -r '.[] | [.ifname, .ifindex,
		(.flags - ["NO-CARRIER", "LOWER_UP"] | join(",")), .mtu, .address, (.linkinfo.info_kind // "-"),
		(.linkinfo.info_data // {} | tostring)] | join(" ")' | sed 's/^/link: /'
	nsenter "${in[@]}" ip -o -4 addr show | awk '{print "addr:", $2, $4}'
	[ "$1" = "$INIT" ] || [[ "$1" == /* ]] || [ "$(readlink "/proc/$1/ns/net")" != "$(readlink "/proc/$INIT/ns/net")" ] ||
		echo "in the container's netns"
}

# The state of all (find_nested gave the PIDs) into $D/$1.{mnt,init,n1,n2,fd}.
save_state() { # name
	mnt_state >"$D/$1.mnt"
	net_state "$INIT" >"$D/$1.init"
	net_state "$N1" >"$D/$1.n1"
	net_state "$N2" >"$D/$1.n2"
	net_state "/proc/$INIT/root/run/netns/n3" >"$D/$1.n3"
	[ "$(stat -L -c %i "/proc/$INIT/root/run/netns/n3")" != "$(stat -L -c %i "/proc/$N1/ns/net")" ] ||
		echo "N3 is N1" >>"$D/$1.n3"
	[ "$(readlink "/proc/$N1/ns/net")" != "$(readlink "/proc/$N2/ns/net")" ] || echo "N1 and N2 share a netns" >>"$D/$1.n2"
	grep '^iff:' "/proc/$N2/fdinfo/9" >"$D/$1.fd" || echo "fd 9 of N2 is not attached" >"$D/$1.fd"
	local k
	for k in $(cat "/proc/$N2/task/$N2/children"); do # (tun-shared: the same open file)
		echo "child: $(grep '^iff:' "/proc/$k/fdinfo/9")" >>"$D/$1.fd"
	done
}

# Process $1's netns reaches address $2 (a ping answered; 5 tries: a veth's carrier comes a moment after it
# is up, and a first packet may go before the neighbour is resolved).
ping_ok() { # pid address
	for _ in 1 2 3 4 5; do
		nsenter -t "$1" -a ping -c 1 -W 3 "$2" >/dev/null && return 0
	done
	echo "no answer from $2 in the netns of $1" >&2
	return 1
}

# The same in $D/before.X and $D/after.X, X each of $@.
same_state() { # what...
	local w
	for w in "$@"; do
		diff -u "$D/before.$w" "$D/after.$w" || { echo "^ $w differs after restore"; return 1; }
	done
}

# The container is ready, with all it made (checked); its state in $D/before.*; pings go across N1-N2 (and
# with option root-veth the container's netns-N1).
started() { # init [option...]
	nested_ready "$1"
	find_nested "$1"
	save_state before
	cat "$D"/before.*
	grep -q "/mnt tmpfs nested-tmp$" "$D/before.mnt"
	grep -q "/mnt/file: nested-data$" "$D/before.mnt"
	grep -q "^link: tapn .* tun .*\"type\":\"tap\"" "$D/before.n1"
	grep -q "^link: tunh .* tun .*\"type\":\"tun\".*\"user\":4321" "$D/before.n2"
	grep -q "^link: tapc .* tun " "$D/before.init"
	grep -q "tunh" "$D/before.fd"
	grep -q "^addr: vw 10.81.0.2/24" "$D/before.n3"
	[[ " $* " != *" tap-gap "* ]] || grep -q "^link: tapn 4 " "$D/before.n1"
	[[ " $* " != *" tun-shared "* ]] || grep -q "^iff:	tunh$" "/proc/$(tr -d " " <"/proc/$N2/task/$N2/children")/fdinfo/9"
	ping_ok "$N1" 10.78.0.2
	ping_ok "$N1" 10.81.0.2
	[[ " $* " != *" root-veth "* ]] || ping_ok "$INIT" 10.77.0.2
}
