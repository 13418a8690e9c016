# shellcheck shell=bash
# Sourced by bench.sh and bench-tree.sh: what makes numbers from a loaded machine comparable.
#
# - CPU seconds: each measured program (bench-mem, a tree) runs in a cpuacct cgroup of its own (cgroup v1
#   cpuacct, else v2 cpu.stat) that crshim or CRIU join for the dump and the restore; cg_ns before and after a
#   step gives the CPU time (user+sys) of the tool and the processes (their parasite, their exit, the restored
#   tasks). Wall time on a loaded machine says how long the step waited for a CPU; CPU time says what it cost.
# - loadavg: the 1-minute load average, printed beside each wall time.
# - bench_lock: one bench at a time (two at once make each other's numbers meaningless).
# - last_error: what a failed tool said (its output, else its log's last error line: CRIU logs to -o's file).
#
# CG is the cgroup of the run (made by cg_new, removed by cg_drop), CG_FILE the file giving its CPU time.
CG='' CG_FILE='' CG_RUNS=0
cg_new() {
	local top
	CG=''
	if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
		top=/sys/fs/cgroup/cpuacct CG_FILE=cpuacct.usage
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		top=/sys/fs/cgroup CG_FILE=cpu.stat
	else
		return 0
	fi
	CG_RUNS=$((CG_RUNS + 1)) # (a name of its own: the last one's killed processes may still be leaving it)
	if mkdir "$top/crshim-$ME.$$.$CG_RUNS" 2>/dev/null; then CG=$top/crshim-$ME.$$.$CG_RUNS; fi
	return 0
}
cg_drop() {
	local i
	[ -n "$CG" ] || return 0
	for ((i = 0; i < 400; i++)); do
		rmdir "$CG" 2>/dev/null && break
		sleep 0.05
	done
	CG=''
}
cg_ns() { # CPU time (user+sys) of the cgroup so far in ns; 0 without one
	if [ -z "$CG" ]; then
		echo 0
	elif [ "$CG_FILE" = cpu.stat ]; then
		awk '$1 == "usage_usec" { print $2 * 1000 }' "$CG/cpu.stat"
	else
		cat "$CG/cpuacct.usage"
	fi
}
in_cg() { # command...: run it in the cgroup
	if [ -n "$CG" ]; then
		(echo "$BASHPID" >"$CG/cgroup.procs" && exec "$@")
	else
		"$@"
	fi
}
cg_note() { # one line: where the CPU seconds come from
	if [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo "CPU seconds: user+sys of the tool and the processes, a cgroup per run (cpuacct.usage or cpu.stat)"
	else
		echo "CPU seconds: none (no cgroup v1 cpuacct, no cgroup v2): wall times only, CPU printed as 0"
	fi
}
loadavg() { cut -d' ' -f1 /proc/loadavg; }
last_error() { # OUT LOG: the tool's last line of output, else the log's last error line
	local l
	l=$(tail -n 1 "$1" 2>/dev/null || true)
	[ -n "$l" ] || l=$(grep -i 'error' "$2" 2>/dev/null | tail -n 1 || true)
	echo "$l"
}

# "MIN MEDIAN" of a list of numbers ("- -" for none); minmax: "MIN-MAX" (the load averages of the rounds)
minmed() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
	if (!NR) { print "- -"; exit }
	printf "%.3f %.3f\n", v[1], NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minmax() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
	if (!NR) print "-"; else if (v[1] == v[NR]) print v[1]; else print v[1] "-" v[NR] }'; }

bench_lock() { # one bench at a time on this machine: fd 8 holds the lock until the script exits
	exec 8>/dev/shm/crshim-bench.lock
	flock -n 8 || {
		echo "$ME: waiting for another bench run to end" >&2
		flock 8
	}
}
