/* Unit tests of the /proc parsers (engine/base/proc.h) against real processes whose state the test sets:
 * status (ids, groups, caps, umask, blocked signals, threads), stat, limits, POSIX timers, smaps (VmFlags
 * from madvise/mlock), the vdso, fdinfo (pos, flags), and that a gone process or a missing file is one error
 * naming the file, never a crash. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/vma-flags.h"
#include "crshim.h"
#include "tap.h"

static struct cr_err err;

/* A child that sets its state, tells the parent, then waits to be killed. */
static pid_t child_with_state(int *ready_fd)
{
	int p[2];
	if (pipe(p))
		abort();
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		close(p[0]);
		umask(0027);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR2);
		sigaddset(&s, SIGWINCH);
		sigprocmask(SIG_BLOCK, &s, NULL);
		struct rlimit rl = {.rlim_cur = 123, .rlim_max = 456};
		setrlimit(RLIMIT_NOFILE, &rl);
		struct rlimit core = {.rlim_cur = 0, .rlim_max = RLIM_INFINITY};
		setrlimit(RLIMIT_CORE, &core);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		/* two timers: a signal one with a value, a SIGEV_NONE one on CLOCK_MONOTONIC */
		timer_t t1, t2;
		struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN + 2};
		ev.sigev_value.sival_ptr = (void *)0xabcdef;
		timer_create(CLOCK_REALTIME, &ev, &t1);
		struct sigevent none = {.sigev_notify = SIGEV_NONE};
		timer_create(CLOCK_MONOTONIC, &none, &t2);
		/* VMAs with flags: dontdump + random, dontfork, locked */
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, 6 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		madvise(m, pg, MADV_DONTDUMP);
		madvise(m, pg, MADV_RANDOM);
		madvise(m + 2 * pg, pg, MADV_DONTFORK);
		madvise(m + 4 * pg, pg, MADV_SEQUENTIAL);
		char addr[64];
		int len = snprintf(addr, sizeof(addr), "%lx\n", (unsigned long)m);
		/* an fd with a position and flags */
		int fd = open("/proc/self/status", O_RDONLY | O_NONBLOCK);
		char junk[7];
		if (fd < 0 || read(fd, junk, sizeof(junk)) != sizeof(junk) || dup2(fd, 77) != 77)
			_exit(1);
		if (write(p[1], addr, (size_t)len) != len)
			_exit(1);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	*ready_fd = p[0];
	return pid;
}

static void kill_wait(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void *thread_fn(void *a)
{
	pause();
	return a;
}

int main(void)
{
	int rfd;
	pid_t pid = child_with_state(&rfd);
	char addrbuf[64] = "";
	ssize_t n = read(rfd, addrbuf, sizeof(addrbuf) - 1);
	close(rfd);
	ok(n > 0, "child set its state");
	uint64_t maddr = strtoull(addrbuf, NULL, 16);
	char buf[512];
	/* it wrote before pause(): wait until it sleeps there (at most 2 s) */
	for (int i = 0; i < 2000; i++) {
		const char *c = proc_stat_comm_end(pid, 0, buf, sizeof(buf));
		if (c && c[2] == 'S')
			break;
		usleep(1000);
	}
	long pg = sysconf(_SC_PAGESIZE);

	/* status */
	struct proc_status st;
	ok(proc_parse_status(pid, &st, &err) == 0, "status parses (%s)", err.msg);
	ok(st.state == 'S', "state S (sleeping in pause), got %c", st.state);
	is_int(st.ppid, getpid(), "PPid is the test");
	is_int(st.threads, 1, "one thread");
	is_int(st.uid[0], getuid(), "real uid");
	is_int(st.uid[1], geteuid(), "effective uid");
	is_int(st.gid[3], getegid(), "fs gid");
	is_int(st.umask, 0027, "umask 0027");
	is_int(st.no_new_privs, 1, "NoNewPrivs set");
	is_int(st.seccomp, 0, "no seccomp");
	ok(st.sigblk == ((1ull << (SIGUSR2 - 1)) | (1ull << (SIGWINCH - 1))), "SigBlk = USR2|WINCH (%llx)",
	   (unsigned long long)st.sigblk);
	int ng = getgroups(0, NULL);
	is_int(st.ngroups, ng, "as many groups as getgroups()");
	if (ng > 0) {
		gid_t *g = calloc((size_t)ng, sizeof(*g));
		getgroups(ng, g);
		int same = 1;
		for (int i = 0; i < ng; i++)
			same &= st.groups[i] == g[i];
		ok(same, "the same groups in order");
		free(g);
	}
	if (geteuid() == 0)
		ok(st.cap_eff != 0 && st.cap_bnd != 0, "root: CapEff and CapBnd non-zero");
	proc_status_free(&st);
	ok(st.groups == NULL && st.ngroups == 0, "status freed");

	/* one thread's status: a thread of our own */
	pthread_t th;
	pthread_create(&th, NULL, thread_fn, NULL);
	ok(proc_parse_status(getpid(), &st, &err) == 0 && st.threads == 2, "own status: 2 threads");
	proc_status_free(&st);
	pid_t tid = getpid();
	ok(proc_parse_task_status(getpid(), tid, &st, &err) == 0 && st.state == 'R',
	   "task/TID/status of the running thread: R");
	proc_status_free(&st);
	ok(proc_parse_task_status(getpid(), 1, &st, &err) < 0 && strstr(err.msg, "task/1/status") &&
	       err.errnum == ENOENT,
	   "a tid not of the process: ENOENT naming the file (%s)", err.msg);
	pthread_cancel(th);
	pthread_join(th, NULL);

	/* stat */
	struct proc_stat ps;
	ok(proc_parse_stat(pid, &ps, &err) == 0, "stat parses (%s)", err.msg);
	ok(ps.state == 'S', "stat state S");
	is_int(ps.f[4], getpid(), "field 4 is the ppid");
	is_int(ps.f[5], getpgrp(), "field 5 is the pgrp");
	is_int(ps.f[20], 1, "field 20 num_threads");
	const char *ce = proc_stat_comm_end(pid, 0, buf, sizeof(buf));
	ok(ce && ce[0] == ')' && ce[2] == 'S', "comm end found, state after it");
	ce = proc_stat_comm_end(pid, pid, buf, sizeof(buf));
	ok(ce && ce[2] == 'S', "the same through task/TID/stat");

	/* limits */
	struct proc_rlimit lim[PROC_NR_RLIMITS];
	ok(proc_parse_limits(pid, lim, &err) == 0, "limits parse (%s)", err.msg);
	ok(lim[RLIMIT_NOFILE].cur == 123 && lim[RLIMIT_NOFILE].max == 456, "NOFILE 123/456");
	ok(lim[RLIMIT_CORE].cur == 0 && lim[RLIMIT_CORE].max == ~0ull, "CORE 0/unlimited");
	struct rlimit own;
	getrlimit(RLIMIT_STACK, &own);
	ok(lim[RLIMIT_STACK].cur == (own.rlim_cur == RLIM_INFINITY ? ~0ull : own.rlim_cur),
	   "STACK as inherited");

	/* timers */
	struct proc_timer *t;
	size_t nt;
	ok(proc_parse_timers(pid, &t, &nt, &err) == 0, "timers parse (%s)", err.msg);
	is_int(nt, 2, "two timers");
	int sig_ok = 0, none_ok = 0;
	for (size_t i = 0; i < nt; i++) {
		if (t[i].notify == 0 && t[i].signo == SIGRTMIN + 2 && t[i].sival == 0xabcdef &&
		    t[i].clock == CLOCK_REALTIME)
			sig_ok = 1;
		if (t[i].notify == 1 && t[i].clock == CLOCK_MONOTONIC)
			none_ok = 1;
	}
	ok(sig_ok, "the SIGEV_SIGNAL timer: signal, value, clock");
	ok(none_ok, "the SIGEV_NONE timer on CLOCK_MONOTONIC");
	free(t);
	ok(proc_parse_timers(getpid(), &t, &nt, &err) == 0 && nt == 0 && !t, "no timers: none, no error");

	/* smaps */
	struct proc_vma *v;
	size_t nv;
	ok(proc_parse_smaps(pid, &v, &nv, &err) == 0 && nv > 4, "smaps parses, %zu VMAs", nv);
	int seen_dd = 0, seen_dc = 0, seen_sr = 0, seen_plain = 0, seen_stack = 0, all_vmflags = 1;
	for (size_t i = 0; i < nv; i++) {
		all_vmflags &= v[i].has_vmflags;
		if (v[i].start == maddr && v[i].end == maddr + (uint64_t)pg)
			seen_dd = (v[i].madv & (VMA_F_DONTDUMP | VMA_F_RAND_READ)) ==
				      (VMA_F_DONTDUMP | VMA_F_RAND_READ) &&
				  !strcmp(v[i].perms, "rw-p") && v[i].name[0] == '\0' && v[i].ino == 0;
		if (v[i].start == maddr + 2 * (uint64_t)pg)
			seen_dc = v[i].end == maddr + 3 * (uint64_t)pg && (v[i].madv & VMA_F_DONTFORK);
		if (v[i].start == maddr + 4 * (uint64_t)pg)
			seen_sr = (v[i].madv & VMA_F_SEQ_READ) != 0;
		if (v[i].start == maddr + (uint64_t)pg)
			seen_plain = v[i].madv == 0;
		if (!strcmp(v[i].name, "[stack]"))
			seen_stack = (v[i].vmflags & PROC_VMA_GD) != 0;
	}
	ok(all_vmflags, "every VMA had its VmFlags line");
	ok(seen_dd, "the first page: own VMA, dd+rr, rw-p, anonymous");
	ok(seen_dc, "the third page: own VMA with dc");
	ok(seen_sr, "the fifth page: sr");
	ok(seen_plain, "the second page: no flags");
	ok(seen_stack, "[stack] grows down (gd)");
	proc_vmas_free(v, nv);

	uint64_t vs = 0, ve = 0;
	char *maps = NULL;
	ok(proc_read(pid, "maps", &maps, NULL, &err) == 0, "maps read (%s)", err.msg);
	int r = maps ? proc_find_vdso(maps, &vs, &ve) : -1;
	ok(r == 1 || (r == 0 && vs < ve && (ve - vs) % (uint64_t)pg == 0),
	   "vdso found page aligned (or none: %d)", r);
	free(maps);
	ok(proc_find_vdso("1000-2000 r-xp 00000000 00:00 0 /tmp/a [vdso]\n3000-5000 r-xp 00000000 00:00 0    "
			  "  [vdso]\n",
			  &vs, &ve) == 0 &&
	       vs == 0x3000 && ve == 0x5000,
	   "vdso: the mapping named [vdso], not a file whose name ends so");
	ok(proc_find_vdso("1000-2000 r-xp 00000000 00:00 0 /tmp/[vdso]", &vs, &ve) == 1, "no vdso: 1");

	/* fds with links and stats */
	struct proc_fd *pf = NULL;
	size_t npf = 0;
	ok(proc_read_fds(pid, &pf, &npf, &err) == 0 && pf, "fds read (%s)", err.msg);
	const struct proc_fd *f77 = NULL;
	for (size_t i = 0; pf && i < npf; i++) {
		if (i)
			ok(pf[i - 1].fd < pf[i].fd, "fds by number (%d, %d)", pf[i - 1].fd, pf[i].fd);
		if (pf[i].fd == 77)
			f77 = &pf[i];
	}
	struct stat st77;
	char p77[64];
	snprintf(p77, sizeof(p77), "/proc/%d/fd/77", pid);
	ok(f77 && !stat(p77, &st77) && f77->st.st_ino == st77.st_ino && strstr(f77->link, "/status"),
	   "fd 77: its link (%s) and the stat of its file", f77 ? f77->link : "-");
	proc_fds_free(pf, npf);

	/* fdinfo */
	struct proc_fdinfo fi;
	ok(proc_parse_fdinfo(pid, 77, &fi, &err) == 0, "fdinfo parses (%s)", err.msg);
	is_int(fi.pos, 7, "pos 7 after reading 7 bytes");
	ok((fi.flags & O_NONBLOCK) && (fi.flags & O_ACCMODE) == O_RDONLY, "flags O_RDONLY|O_NONBLOCK (%o)",
	   fi.flags);
	ok(fi.mnt_id > 0, "mnt_id read");
	ok(proc_parse_fdinfo(pid, 999, &fi, &err) < 0 && strstr(err.msg, "fdinfo/999"), "no such fd: %s",
	   err.msg);

	/* readlink, read */
	char *s = NULL;
	char want[64];
	snprintf(want, sizeof(want), "/proc/%d/status", pid);
	ok(proc_readlink(pid, "fd/77", &s, &err) == 0 && s && !strcmp(s, want), "readlink fd/77: %s",
	   s ? s : "-");
	free(s);
	char *rb = NULL;
	size_t rl = 0;
	ok(proc_read(getpid(), "smaps", &rb, &rl, &err) == 0 && rl > 8192 && strlen(rb) == rl,
	   "proc_read of a file larger than its first buffer: %zu bytes, NUL-terminated", rl);
	free(rb);

	/* small reads */
	char small[16];
	ok(proc_read_small("/proc/sys/kernel/ostype", small, sizeof(small)) == 6 && !strcmp(small, "Linux\n"),
	   "read_small ostype");
	ok(proc_read_small("/proc/sys/kernel/no-such", small, sizeof(small)) == -1, "read_small: missing -1");
	ok(proc_read_value("/proc/sys/kernel/ostype", small, sizeof(small)) == 0 && !strcmp(small, "Linux"),
	   "read_value cuts the newline");
	char tdir[] = "/tmp/cov-unit-proc.XXXXXX";
	if (mkdtemp(tdir)) {
		char path[128];
		snprintf(path, sizeof(path), "%s/empty", tdir);
		close(open(path, O_CREAT | O_WRONLY, 0600));
		small[0] = 'x';
		ok(proc_read_value(path, small, sizeof(small)) == 0 && small[0] == '\0',
		   "read_value: an empty file is an empty value");
		ok(proc_read_small(path, small, sizeof(small)) == -1, "read_small: an empty file is -1");
		unlink(path);
		rmdir(tdir);
	}
	ok(proc_read_value("/nonexistent/cov", small, sizeof(small)) == -1, "read_value: missing -1");

	/* gone process */
	kill_wait(pid);
	cr_err_clear(&err);
	ok(proc_parse_status(pid, &st, &err) < 0 && err.errnum == ENOENT && strstr(err.msg, "/status"),
	   "status of a gone process: %s", err.msg);
	ok(proc_parse_stat(pid, &ps, &err) < 0 && strstr(err.msg, "/stat"), "stat of a gone process");
	ok(proc_parse_limits(pid, lim, &err) < 0 && strstr(err.msg, "/limits"), "limits of a gone process");
	ok(proc_parse_timers(pid, &t, &nt, &err) < 0 && !t && !nt, "timers of a gone process");
	ok(proc_parse_smaps(pid, &v, &nv, &err) < 0 && strstr(err.msg, "/smaps"), "smaps of a gone process");
	ok(proc_read_fds(pid, &pf, &npf, &err) < 0 && strstr(err.msg, "/fd"), "fds of a gone process");
	ok(proc_readlink(pid, "exe", &s, &err) < 0 && strstr(err.msg, "readlink"),
	   "readlink of a gone process");
	ok(proc_stat_comm_end(pid, 0, buf, sizeof(buf)) == NULL, "comm end of a gone process: NULL");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left behind");
	return done_testing();
}
