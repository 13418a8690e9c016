#!/bin/bash
# Break each test's state by hand (gdb/prlimit/kill from outside) without any
# C/R and check that the test then reports FAIL: a test that cannot notice a
# broken state proves nothing. TAP output. Needs gdb.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${ZDTM_BIN:-$HERE/../../build/zdtm}
command -v gdb >/dev/null || { echo "1..0 # SKIP gdb not installed"; exit 0; }

# name|how (a shell command; $P is the test's pid; g 'gdb cmd'... runs gdb batch)
CASES=(
	"cwd_umask|g 'call (int)umask(0)'"
	"comm|g 'call (int)prctl(15, \"broken\")'"
	"personality|g 'call (int)personality(0)'"
	"rlimits|prlimit --pid \$P --nofile=200:777"
	"sig_handlers|g 'call (long)signal(10, 0)'"
	"sig_pending|kill -s RTMIN+1 \$P"
	"fd_files|g 'call (long)lseek(3, 0, 0)'"
	"fd_devices|g 'call (int)dup2(20, 21)'"
	"fd_shared|g 'call (int)dup2(6, 5)'"
	"heap_brk|g 'call (long)sbrk(8192)'"
	"creds|g 'call (int)setresuid(2000, 2000, 2000)'"
	"prctl|g 'call (int)prctl(4, 1)'"
	"prctl_misc|g 'call (int)prctl(29, 50000)'"
	"env_argv|g 'call (int)setenv(\"ZDTM_ENV_TEST\", \"x\", 1)'"
	"itimers|g 'call (int)setitimer(1, 0, 0)'"
	"fpu_regs|g 'set \$st3 = 1.5'"
	"sse_regs|g 'set \$xmm7.v4_int32[2] = 12345'"
	"avx_regs|g 'set \$ymm11.v8_int32[7] = 12345'"
	"fpu_sleep|g 'set \$ymm3.v8_int32[6] = 5'"
	"sleep_pause|g 'set \$orig_rax = -1' 'set \$rax = -4'"
	"sleep_nanosleep|g 'set \$orig_rax = -1' 'set \$rax = 0'"
	"sleep_sigsuspend|g 'set \$orig_rax = -1' 'set \$rax = -4'"
	"eventfd00|g 'call (int)dup2(11, 9)'"
	"eventfd_sem|g \"call (int)eventfd_write(\$(fdof eventfd), 4)\""
	"signalfd00|g \"call (int)close(\$(fdof signalfd))\""
	"timerfd00|g 'call (int)dup2(12, 10)'"
	"pidfd00|g \"call (int)close(\$(fdof pidfd))\""
	"epoll00|g \"call (int)close(\$(fdof eventpoll))\""
	"epoll_closed_target|g 'call (int)close(20)'"
	"epoll_tree|kill -KILL \$(cat /proc/\$P/task/\$P/children)"
	"memfd00|g \"call (int)ftruncate(\$(fdof memfd:two), 0)\""
	"inotify00|g \"call (int)inotify_rm_watch(\$(fdof inotify), 2)\""
	"fanotify00|g \"call (int)close(\$(fdof fanotify))\""
	"evfd_shared|g \"call (int)eventfd_write(\$(fdof eventfd), 1)\""
	"cwd_deleted|g 'call (int)chdir(\"/\")'"
	"unlink_fstat00|g 'call (int)close(40)'"
	"fifo_unlinked|g 'call (int)close(70)'"
	"proc_fds|g 'call (int)close(20)'"
	"subreaper00|g 'call (int)prctl(36, 0)'"
	"zombie_leader|kill -KILL \$(cat /proc/\$P/task/\$P/children)"
)

g() {
	local a=()
	for c in "$@"; do a+=(-ex "$c"); done
	timeout 30 gdb -q -p "$P" -batch "${a[@]}" >/dev/null 2>&1
}

# the first fd of the test above stdio whose link contains $1 (the outfile's path has the test's name)
fdof() {
	local f
	for f in $(ls /proc/$P/fd | sort -n); do
		[ "$f" -gt 2 ] && [[ $(readlink /proc/$P/fd/$f) == *"$1"* ]] && { echo "$f"; return; }
	done
	echo -1
}

echo "1..${#CASES[@]}"
n=0 bad=0
for c in "${CASES[@]}"; do
	name=${c%%|*} how=${c#*|}
	n=$((n + 1))
	d=$(mktemp -d "${ZDTM_TMP:-/tmp}/zdtm-break.$name.XXXXXX")
	(cd "$d" && exec "$BIN/static/$name" --pidfile="$d/pid" --outfile="$d/out") >/dev/null 2>&1
	P=$(cat "$d/pid" 2>/dev/null)
	if [ -z "$P" ]; then echo "not ok $n - $name: did not start"; bad=$((bad + 1)); continue; fi
	sleep 0.3
	eval "$how"
	sleep 0.2
	kill -TERM "$P"
	for i in $(seq 100); do [ -e /proc/$P ] && [ "$(awk '/^State/{print $2}' /proc/$P/status 2>/dev/null)" != Z ] && sleep 0.1; done
	kill -KILL "$P" 2>/dev/null
	if grep -q '^FAIL' "$d/out"; then
		echo "ok $n - $name notices: $(grep -m1 '^FAIL' "$d/out" | cut -c1-150)"
	else
		echo "not ok $n - $name did not notice ($how)"
		sed 's/^/# /' "$d/out"
		bad=$((bad + 1))
	fi
	rm -rf "$d"
done
[ $bad -eq 0 ]
