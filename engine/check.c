/* `crshim check`: probe, once, the kernel features the engine needs and report each.
 * The ptrace probes share one short-lived child (killed before we return); nothing else in the
 * system is touched: clone3/set_tid is tested with our own PID (EEXIST) and one child with a free PID. */
#define LOG_PREFIX "check: "
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/prctl.h>
#include <linux/filter.h>
#include <linux/kcmp.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>

#include "base/cleanup.h"
#include "crshim.h"
#include "base/log.h"
#include "base/proc.h"
#include "mem/pagemap-scan.h"
#include "net/sk-inet.h"
#include "ns.h"
#include "sock-diag.h"

/* UAPI of newer kernels than the build host's headers (Linux 6.7+). */
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef TFD_IOC_SET_TICKS
#define TFD_IOC_SET_TICKS _IOW('T', 0, uint64_t)
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

#define UFFD_NONCOOP                                                                                         \
	(UFFD_FEATURE_EVENT_FORK | UFFD_FEATURE_EVENT_REMAP | UFFD_FEATURE_EVENT_REMOVE |                    \
	 UFFD_FEATURE_EVENT_UNMAP)

enum { F_REQUIRED, F_OPTIONAL, F_INFO };

struct feat_res {
	int ok;
	char detail[200];
};

/* Shared state of one check run. */
struct probe_ctx {
	pid_t child;   /* ptrace/pidfd test child, 0 = none */
	int child_rfd; /* the pipe end the child blocks on (same number in the child) */
	int child_wfd;
	int child_err;	/* errno of a failed start or seize */
	int stopped;	/* seized and in a ptrace stop */
	uint64_t magic; /* value of probe_magic in the child */
	int uffd_probed;
	int uffd_err;
	uint64_t uffd_features;
	int dirty_probed;
	struct feat_res dirty;
};

static volatile uint64_t probe_magic;

static int res(struct feat_res *r, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int res(struct feat_res *r, int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
	r->ok = ok;
	return ok;
}

/* ---------------- the test child ---------------- */

/* The child: an allow-all seccomp filter (for the filter dump probe), then it reports ready and
 * blocks until we close the pipe or die. */
static void child_main(pid_t parent, int rfd, int wfd, int ready)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {1, &allow};
	char ch;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	close(wfd);
	if (!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	close(ready);
	while (read(rfd, &ch, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Wait until the child is set up (or gone). */
static void child_wait_ready(int ready)
{
	char ch;
	while (read(ready, &ch, 1) < 0 && errno == EINTR)
		;
	close(ready);
}

static int child_start(struct probe_ctx *c)
{
	int p[2], r[2];
	if (c->child || c->child_err)
		return c->child ? 0 : -1;
	if (pipe2(p, O_CLOEXEC)) {
		c->child_err = errno;
		return -1;
	}
	if (pipe2(r, O_CLOEXEC)) {
		c->child_err = errno;
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid_t parent = getpid();
	probe_magic = 0x63727368696d0000ull ^ (uint64_t)parent;
	pid_t pid = fork();
	if (pid == 0) {
		close(r[0]);
		child_main(parent, p[0], p[1], r[1]);
	}
	c->magic = probe_magic;
	probe_magic = 0;
	close(r[1]);
	if (pid < 0) {
		c->child_err = errno;
		close(r[0]);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	child_wait_ready(r[0]);
	c->child = pid;
	c->child_rfd = p[0];
	c->child_wfd = p[1];
	return 0;
}

static void child_stop(struct probe_ctx *c)
{
	if (!c->child)
		return;
	kill(c->child, SIGKILL);
	while (waitpid(c->child, NULL, __WALL) < 0 && errno == EINTR)
		;
	close(c->child_rfd);
	close(c->child_wfd);
	c->child = 0;
}

/* PTRACE_SEIZE + PTRACE_INTERRUPT, wait for the event stop. */
static int child_seize(struct probe_ctx *c)
{
	int st;
	if (c->stopped)
		return 0;
	if (child_start(c))
		return -1;
	if (ptrace(PTRACE_SEIZE, c->child, 0, 0) || ptrace(PTRACE_INTERRUPT, c->child, 0, 0))
		goto fail;
	while (waitpid(c->child, &st, __WALL) < 0)
		if (errno != EINTR)
			goto fail;
	if (!WIFSTOPPED(st) || (st >> 16) != PTRACE_EVENT_STOP) {
		errno = EPROTO;
		goto fail;
	}
	c->stopped = 1;
	return 0;
fail:
	c->child_err = errno;
	return -1;
}

/* ---------------- probes ---------------- */

static int p_ptrace(struct probe_ctx *c, struct feat_res *r)
{
	if (child_seize(c))
		return res(r, 0, "PTRACE_SEIZE/PTRACE_INTERRUPT: %s", strerror(c->child_err));
	return res(r, 1, "PTRACE_SEIZE + PTRACE_INTERRUPT stop a task");
}

static int p_rseq(struct probe_ctx *c, struct feat_res *r)
{
	struct {
		uint64_t rseq_abi_pointer;
		uint32_t rseq_abi_size, signature, flags, pad;
	} conf;
	if (child_seize(c))
		return res(r, 0, "needs ptrace: %s", strerror(c->child_err));
	long n = ptrace(PTRACE_GET_RSEQ_CONFIGURATION, c->child, sizeof(conf), &conf);
	if (n <= 0)
		return res(r, 0, "PTRACE_GET_RSEQ_CONFIGURATION: %s", n < 0 ? strerror(errno) : "empty");
	return res(r, 1, "PTRACE_GET_RSEQ_CONFIGURATION (rseq %s, size %u)",
		   conf.rseq_abi_pointer ? "registered" : "not registered", conf.rseq_abi_size);
}

static int p_seccomp(struct probe_ctx *c, struct feat_res *r)
{
	if (child_seize(c))
		return res(r, 0, "needs ptrace: %s", strerror(c->child_err));
	long n = ptrace(PTRACE_SECCOMP_GET_FILTER, c->child, 0, NULL);
	if (n < 0)
		return res(r, 0, "PTRACE_SECCOMP_GET_FILTER: %s", strerror(errno));
	if (n != 1)
		return res(r, 0, "PTRACE_SECCOMP_GET_FILTER: %ld instructions, expected 1", n);
	return res(r, 1, "PTRACE_SECCOMP_GET_FILTER reads a task's seccomp filters");
}

#ifndef PTRACE_O_SUSPEND_SECCOMP
#define PTRACE_O_SUSPEND_SECCOMP (1 << 21)
#endif

/* Tracing a task with its seccomp filters suspended: how dump and restore handle a task under seccomp. */
static int p_seccomp_suspend(struct probe_ctx *c, struct feat_res *r)
{
	if (child_seize(c))
		return res(r, 0, "needs ptrace: %s", strerror(c->child_err));
	if (ptrace(PTRACE_SETOPTIONS, c->child, 0, (void *)(long)PTRACE_O_SUSPEND_SECCOMP))
		return res(r, 0, "PTRACE_O_SUSPEND_SECCOMP: %s", strerror(errno));
	return res(r, 1, "PTRACE_O_SUSPEND_SECCOMP: seccomp filters suspended while traced");
}

static int p_vm_readv(struct probe_ctx *c, struct feat_res *r)
{
	uint64_t got = 0;
	if (child_start(c))
		return res(r, 0, "test child: %s", strerror(c->child_err));
	struct iovec l = {&got, sizeof(got)}, rem = {(void *)&probe_magic, sizeof(got)};
	ssize_t n = process_vm_readv(c->child, &l, 1, &rem, 1, 0);
	if (n != (ssize_t)sizeof(got))
		return res(r, 0, "process_vm_readv: %s", n < 0 ? strerror(errno) : "short read");
	if (got != c->magic)
		return res(r, 0, "process_vm_readv read a wrong value");
	return res(r, 1, "process_vm_readv reads another task's memory");
}

static int p_pidfd(struct probe_ctx *c, struct feat_res *r)
{
	struct stat a, b;
	if (child_start(c))
		return res(r, 0, "test child: %s", strerror(c->child_err));
	__cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, c->child, 0);
	if (pidfd < 0)
		return res(r, 0, "pidfd_open: %s", strerror(errno));
	__cleanup_close int fd = (int)syscall(SYS_pidfd_getfd, pidfd, c->child_rfd, 0);
	if (fd < 0)
		return res(r, 0, "pidfd_getfd: %s", strerror(errno));
	if (fstat(fd, &a) || fstat(c->child_rfd, &b) || a.st_ino != b.st_ino)
		return res(r, 0, "pidfd_getfd returned a different file");
	return res(r, 1, "pidfd_open + pidfd_getfd copy a task's fd");
}

static pid_t clone3_tid(pid_t want)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	ca.set_tid = (uint64_t)(uintptr_t)&want;
	ca.set_tid_size = 1;
	pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		syscall(SYS_exit_group, 0);
	return pid;
}

/* A PID nobody uses now, far from where new PIDs are being handed out. */
static pid_t free_pid(unsigned attempt)
{
	long max = 32768;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 32768;
		fclose(f);
	}
	for (long p = max / 2 + (getpid() * 7919L + attempt * 104729L) % (max / 2 - 1); p > 300; p--)
		if (kill((pid_t)p, 0) < 0 && errno == ESRCH)
			return (pid_t)p;
	return -1;
}

static int p_clone3(struct probe_ctx *c, struct feat_res *r)
{
	if (clone3_tid(getpid()) >= 0 || errno != EEXIST)
		return res(r, 0, "clone3 with set_tid: %s",
			   errno == EPERM ? "no permission" : strerror(errno));
	for (unsigned i = 0; i < 5; i++) {
		pid_t want = free_pid(i), got;
		if (want < 0)
			break;
		got = clone3_tid(want);
		if (got < 0 && errno == EEXIST)
			continue; /* taken meanwhile */
		if (got < 0)
			return res(r, 0, "clone3 with set_tid %d: %s", want, strerror(errno));
		while (waitpid(got, NULL, 0) < 0 && errno == EINTR)
			;
		if (got != want)
			return res(r, 0, "clone3 with set_tid %d gave PID %d", want, got);
		return res(r, 1, "clone3 with set_tid creates a task with a chosen PID");
	}
	return res(r, 0, "clone3 with set_tid: found no free PID to test with");
}

static int p_mm_map(struct probe_ctx *c, struct feat_res *r)
{
	unsigned int size = 0;
	if (prctl(PR_SET_MM, PR_SET_MM_MAP_SIZE, (unsigned long)&size, 0, 0))
		return res(r, 0, "prctl(PR_SET_MM_MAP_SIZE): %s", strerror(errno));
	if (size != sizeof(struct prctl_mm_map))
		return res(r, 0, "prctl_mm_map size %u, expected %zu", size, sizeof(struct prctl_mm_map));
	return res(r, 1, "prctl(PR_SET_MM, PR_SET_MM_MAP) (%u bytes)", size);
}

/* PAGEMAP_SCAN of our pages [m, m + 4 pages) for the pages of category cat, page 1 alone made so by mark: 1
 * if it finds page 1 alone, 0 if it finds others, -1 and errno if it fails. */
static int scan_page1(int (*mark)(char *p, long psz), uint64_t cat)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct page_region reg[4];
	__cleanup_close int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	__cleanup_munmap struct cr_map m = {
	    mmap(NULL, 4 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4 * psz};
	if (fd < 0 || m.addr == MAP_FAILED || mark((char *)m.addr + psz, psz))
		return -1;
	struct pm_scan_arg a = {.size = sizeof(a),
				.start = (uintptr_t)m.addr,
				.end = (uintptr_t)m.addr + 4 * psz,
				.vec = (uintptr_t)reg,
				.vec_len = 4,
				.category_anyof_mask = cat,
				.return_mask = cat};
	long n = ioctl(fd, PAGEMAP_SCAN, &a);
	if (n < 0)
		return -1;
	return n == 1 && reg[0].start == (uintptr_t)m.addr + psz && reg[0].end == reg[0].start + psz;
}

static int mark_present(char *p, long psz)
{
	memset(p, 1, (size_t)psz);
	return 0;
}

static int mark_guard(char *p, long psz)
{
	return madvise(p, (size_t)psz, 102 /* MADV_GUARD_INSTALL */);
}

static int p_pagemap_scan(struct probe_ctx *c, struct feat_res *r)
{
	int ok = scan_page1(mark_present, PAGE_IS_PRESENT);
	if (ok < 0)
		return res(r, 0, "ioctl(PAGEMAP_SCAN): %s", strerror(errno));
	if (!ok)
		return res(r, 0, "PAGEMAP_SCAN reported the wrong present pages");
	return res(r, 1, "ioctl(PAGEMAP_SCAN) finds present pages");
}

/* CRIU's pagemap_scan_guard_pages: PAGEMAP_SCAN tells a guard region (MADV_GUARD_INSTALL, Linux 6.14+), which
 * the dump saves and the restore installs again (engine/mem). */
static int p_guard_pages(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	int ok = scan_page1(mark_guard, PAGE_IS_GUARD);
	if (ok < 0)
		return res(r, 0, "madvise(MADV_GUARD_INSTALL) or ioctl(PAGEMAP_SCAN, PAGE_IS_GUARD): %s",
			   strerror(errno));
	if (!ok)
		return res(r, 0, "PAGEMAP_SCAN reported the wrong guard pages");
	return res(r, 1, "ioctl(PAGEMAP_SCAN) finds guard pages (MADV_GUARD_INSTALL)");
}

/* CRIU's loginuid: the audit login uid of each task (/proc/self/loginuid) is restored when the kernel has
 * it (engine/restore-child.c). */
static int p_loginuid(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	char buf[16];
	if (proc_read_small("/proc/self/loginuid", buf, sizeof(buf)) <= 0)
		return res(r, 0, "/proc/self/loginuid: %s (a kernel without audit)", strerror(errno));
	return res(r, 1, "/proc/self/loginuid: restored per task");
}

static int uffd_open(void)
{
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 || errno != EPERM)
		return fd;
	__cleanup_close int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	return dev < 0 ? -1 : ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
}

/* The API handshake once, on a throwaway fd: which features the kernel offers. */
static int uffd_probe(struct probe_ctx *c)
{
	if (c->uffd_probed)
		return c->uffd_err ? -1 : 0;
	c->uffd_probed = 1;
	__cleanup_close int fd = uffd_open();
	struct uffdio_api api = {.api = UFFD_API};
	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		c->uffd_err = errno;
		return -1;
	}
	c->uffd_features = api.features;
	return 0;
}

static int p_uffd(struct probe_ctx *c, struct feat_res *r)
{
	if (uffd_probe(c))
		return res(r, 0, "userfaultfd: %s", strerror(c->uffd_err));
	return res(r, 1, "userfaultfd (features 0x%" PRIx64 ")", c->uffd_features);
}

static int p_uffd_noncoop(struct probe_ctx *c, struct feat_res *r)
{
	if (uffd_probe(c))
		return res(r, 0, "userfaultfd: %s", strerror(c->uffd_err));
	if ((c->uffd_features & UFFD_NONCOOP) != UFFD_NONCOOP)
		return res(r, 0, "userfaultfd without fork/remap/remove/unmap events");
	return res(r, 1, "userfaultfd fork/remap/remove/unmap events");
}

static int p_wp_async(struct probe_ctx *c, struct feat_res *r)
{
	if (uffd_probe(c))
		return res(r, 0, "userfaultfd: %s", strerror(c->uffd_err));
	if (!(c->uffd_features & UFFD_FEATURE_WP_ASYNC))
		return res(r, 0, "userfaultfd without UFFD_FEATURE_WP_ASYNC");
	return res(r, 1, "userfaultfd UFFD_FEATURE_WP_ASYNC");
}

/* Written pages since the last scan (and write-protect them again). -1 on error. */
static long scan_written(int pm, void *addr, long len, struct page_region *reg, int nreg)
{
	struct pm_scan_arg a = {.size = sizeof(a),
				.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
				.start = (uintptr_t)addr,
				.end = (uintptr_t)addr + (uint64_t)len,
				.vec = (uintptr_t)reg,
				.vec_len = (uint64_t)nreg,
				.category_mask = PAGE_IS_WRITTEN,
				.return_mask = PAGE_IS_WRITTEN};
	return ioctl(pm, PAGEMAP_SCAN, &a);
}

/* Dirty-page tracking as the engine does it: uffd async WP + PAGEMAP_SCAN, on our own 4 pages. */
static int dirty_track_test(struct feat_res *r)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct page_region reg[4];
	__cleanup_close int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	__cleanup_close int uffd = uffd_open();
	__cleanup_munmap struct cr_map m = {
	    mmap(NULL, 4 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4 * psz};
	struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC};
	if (pm < 0 || uffd < 0 || m.addr == MAP_FAILED || ioctl(uffd, UFFDIO_API, &api))
		return res(r, 0, "userfaultfd WP_ASYNC setup: %s", strerror(errno));
	memset(m.addr, 1, m.len);
	struct uffdio_register reg_arg = {.range = {(uintptr_t)m.addr, m.len},
					  .mode = UFFDIO_REGISTER_MODE_WP};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg_arg))
		return res(r, 0, "UFFDIO_REGISTER (WP): %s", strerror(errno));
	if (scan_written(pm, m.addr, 4 * psz, reg, 4) < 0)
		return res(r, 0, "PAGEMAP_SCAN (WP matching): %s", strerror(errno));
	((volatile char *)m.addr)[2 * psz] = 2; /* async WP: resolved by the kernel, never blocks */
	long n = scan_written(pm, m.addr, 4 * psz, reg, 4);
	if (n < 0)
		return res(r, 0, "PAGEMAP_SCAN (WP matching): %s", strerror(errno));
	if (n != 1 || reg[0].start != (uintptr_t)m.addr + 2 * psz || reg[0].end != reg[0].start + psz)
		return res(r, 0, "uffd WP_ASYNC + PAGEMAP_SCAN did not find exactly the written page");
	return res(r, 1, "via userfaultfd WP_ASYNC + PAGEMAP_SCAN (verified)");
}

static int soft_dirty_present(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t ent = 0;
	__cleanup_close int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	__cleanup_munmap struct cr_map m = {
	    mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), psz};
	if (fd < 0 || m.addr == MAP_FAILED)
		return 0;
	*(volatile char *)m.addr = 1; /* a new page is soft-dirty when the kernel tracks it */
	if (pread(fd, &ent, sizeof(ent), (off_t)((uintptr_t)m.addr / psz * 8)) != sizeof(ent))
		return 0;
	return (ent >> 55) & 1;
}

static int p_soft_dirty(struct probe_ctx *c, struct feat_res *r)
{
	if (soft_dirty_present())
		return res(r, 1, "soft-dirty bits in /proc/PID/pagemap");
	return res(r, 0, "no soft-dirty (CONFIG_MEM_SOFT_DIRTY off; expected, not needed)");
}

static int p_dirty_track(struct probe_ctx *c, struct feat_res *r)
{
	if (!c->dirty_probed) {
		c->dirty_probed = 1;
		if (soft_dirty_present())
			res(&c->dirty, 1, "via soft-dirty");
		else
			dirty_track_test(&c->dirty);
	}
	*r = c->dirty;
	return r->ok;
}

static int p_vdso(struct probe_ctx *c, struct feat_res *r)
{
	static const char *const names[] = {"[vvar]", "[vvar_vclock]", "[vdso]"};
	unsigned long start, end, pages[3] = {0};
	char line[512];
	__cleanup_fclose FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return res(r, 0, "/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, ' ');
		if (!name || sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		name[strcspn(name, "\n")] = '\0';
		for (int i = 0; i < 3; i++)
			if (!strcmp(name + 1, names[i]))
				pages[i] += (end - start) / (unsigned long)sysconf(_SC_PAGESIZE);
	}
	if (!pages[2])
		return res(r, 0, "no [vdso] mapping");
	return res(r, 1, "[vvar] %lu pages, [vvar_vclock] %lu pages, [vdso] %lu pages", pages[0], pages[1],
		   pages[2]);
}

static int p_caps(struct probe_ctx *c, struct feat_res *r)
{
	cap_flag_value_t cr = CAP_CLEAR, sa = CAP_CLEAR;
	cap_t caps = cap_get_proc();
	if (!caps)
		return res(r, 0, "cap_get_proc: %s", strerror(errno));
	if (CAP_IS_SUPPORTED(CAP_CHECKPOINT_RESTORE))
		cap_get_flag(caps, CAP_CHECKPOINT_RESTORE, CAP_EFFECTIVE, &cr);
	cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &sa);
	cap_free(caps);
	if (cr != CAP_SET && sa != CAP_SET)
		return res(r, 0, "neither CAP_CHECKPOINT_RESTORE nor CAP_SYS_ADMIN is effective");
	return res(r, 1, "%s%s%s", cr == CAP_SET ? "CAP_CHECKPOINT_RESTORE" : "",
		   cr == CAP_SET && sa == CAP_SET ? " + " : "", sa == CAP_SET ? "CAP_SYS_ADMIN" : "");
}

/* Epoll targets are found with kcmp(KCMP_EPOLL_TFD) (engine/dump-epoll.c): a watched pipe end. */
static int p_kcmp_epoll(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	__cleanup_close int ep = epoll_create1(EPOLL_CLOEXEC);
	int p[2];
	if (ep < 0 || pipe2(p, O_CLOEXEC))
		return res(r, 0, "setup: %s", strerror(errno));
	__cleanup_close int rd = p[0];
	close(p[1]); /* only the read end is watched */
	struct epoll_event ev = {.events = EPOLLIN};
	struct kcmp_epoll_slot slot = {.efd = (uint32_t)ep, .tfd = (uint32_t)rd, .toff = 0};
	if (epoll_ctl(ep, EPOLL_CTL_ADD, rd, &ev))
		return res(r, 0, "epoll_ctl: %s", strerror(errno));
	if (syscall(SYS_kcmp, getpid(), getpid(), KCMP_EPOLL_TFD, rd, &slot))
		return res(r, 0, "kcmp(KCMP_EPOLL_TFD): %s", strerror(errno));
	return res(r, 1, "kcmp(KCMP_EPOLL_TFD) finds an epoll target");
}

/* A timerfd's expirations are put back with TFD_IOC_SET_TICKS (engine/restore-evfd.c). */
static int p_timerfd(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	uint64_t ticks = 3, got = 0;
	__cleanup_close int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return res(r, 0, "timerfd_create: %s", strerror(errno));
	if (ioctl(fd, TFD_IOC_SET_TICKS, &ticks))
		return res(r, 0, "ioctl(TFD_IOC_SET_TICKS): %s", strerror(errno));
	if (read(fd, &got, sizeof(got)) != (ssize_t)sizeof(got) || got != ticks)
		return res(r, 0, "TFD_IOC_SET_TICKS: the ticks did not read back");
	return res(r, 1, "timerfd with TFD_IOC_SET_TICKS");
}

/* Half-closed TCP connections (CLOSE_WAIT, LAST_ACK, CLOSING) through repair mode (engine/check-tcp.c). */
static int p_tcp_half_closed(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	char d[sizeof(r->detail)];
	int ok = tcp_half_closed_probe(d, sizeof(d));
	return res(r, ok, "%s", d);
}

/* A network namespace that belongs to the caller (runc's config.json "path"): named --external net[INO]:KEY
 * at dump, joined again from the fd given by --inherit-fd fd[N]:KEY at restore: setns needs nsfs fds. */
static int p_ext_netns(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return res(r, 0, "/proc/self/ns/net: %s", strerror(errno));
	close(fd);
	return res(r, 1, "network namespaces as nsfs fds");
}

/* ---------------- CRIU's feature names (check --feature NAME only) ----------------
 * CRIU's zdtm.py skips a test whose feature `criu check --feature NAME` denies. Each name CRIU 4.2 knows is
 * answered: yes when this kernel has what the name probes and crshim saves and restores the state it is
 * about; no, with the reason, when crshim does not (whatever the kernel has). */

static int has_line(const char *path, const char *prefix)
{
	__cleanup_fclose FILE *f = fopen(path, "re");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, strlen(prefix)))
			return 1;
	return 0;
}

/* fd's fdinfo has a line starting with prefix */
static int fdinfo_has(int fd, const char *prefix)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
	return has_line(p, prefix);
}

static int p_mnt_id(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	__cleanup_close int fd = open("/", O_PATH | O_CLOEXEC);
	if (fd < 0 || !fdinfo_has(fd, "mnt_id:"))
		return res(r, 0, "no mnt_id in /proc/self/fdinfo");
	return res(r, 1, "mnt_id in fdinfo: files are placed on their mounts");
}

static int p_fdinfo_lock(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	__cleanup_close int fd = memfd_create("crshim-check-lock", MFD_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_SH))
		return res(r, 0, "flock on a memfd: %s", strerror(errno));
	if (!fdinfo_has(fd, "lock:"))
		return res(r, 0, "no lock: lines in /proc/self/fdinfo");
	return res(r, 1, "locks in fdinfo (dumped with --file-locks)");
}

/* /proc/self/ns/NAME exists: crshim saves and restores that namespace */
static int ns_file(struct feat_res *r, const char *name)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/ns/%s", name);
	if (access(p, F_OK))
		return res(r, 0, "%s: %s", p, strerror(errno));
	return res(r, 1, "%s namespaces", name);
}

static int p_userns(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	return ns_file(r, "user");
}

static int p_cgroupns(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	return ns_file(r, "cgroup");
}

static int p_timens(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	return ns_file(r, "time");
}

static int p_ns_pid(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	if (!has_line("/proc/self/status", "NSpid:"))
		return res(r, 0, "no NSpid in /proc/self/status");
	return res(r, 1, "NSpid: pids inside PID namespaces");
}

static int p_sk_ns(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	__cleanup_close int sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	__cleanup_close int ns = sk < 0 ? -1 : ioctl(sk, SIOCGSKNS);
	if (ns < 0)
		return res(r, 0, "SIOCGSKNS: %s", strerror(errno));
	return res(r, 1, "SIOCGSKNS: a socket's network namespace");
}

#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE (SIOCPROTOPRIVATE + 0) /* linux/un.h */
#endif
/* SIOCUNIXFILE answers (ENOENT for a socket bound to no file); a unix socket bound in a nested mount
 * namespace of the tree is bound there again (engine/net/restore-sk-unix.c) */
static int p_sk_unix_file(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	__cleanup_close int sk = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	__cleanup_close int f = sk < 0 ? -1 : ioctl(sk, SIOCUNIXFILE);
	if (f >= 0 || errno != ENOENT)
		return res(r, 0, "SIOCUNIXFILE: %s",
			   f >= 0 ? "a file for an unbound socket" : strerror(errno));
	return res(r, 1, "SIOCUNIXFILE; unix sockets bound in the tree's other mount namespaces");
}

/* Raw sockets are dumped (CRIU's net_diag_raw): found by sock_diag when the kernel has its raw part
 * (CONFIG_INET_RAW_DIAG), else their addresses are read with getsockname/getpeername
 * (engine/net/dump-sk-inet.c) */
static int p_net_diag_raw(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	struct ns_inet_table t;
	struct cr_err e = {0};
	struct stat st;
	__cleanup_close int sk = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP);
	if (sk < 0 || fstat(sk, &st))
		return res(r, 0, "raw socket: %s", strerror(errno));
	if (ns_inet_collect(0, &t, &e))
		return res(r, 0, "sock_diag: %s", e.msg);
	const struct ns_inet_sk *k = ns_inet_find(&t, (uint32_t)st.st_ino);
	int ok = k && k->raw;
	ns_inet_table_free(&t);
	return res(r, 1,
		   ok ? "raw sockets, found by sock_diag"
		      : "raw sockets (sock_diag has none: their addresses from getsockname)");
}

/* CRIU's has_ipt_legacy (can iptables be used): the iptables network lock (--network-lock iptables) runs
 * iptables-restore and ip6tables-restore. The rules of the tree's network namespaces are saved as their
 * nftables rulesets (iptables-nft's rules are nftables rules) and, when they have x_tables of
 * iptables-legacy, by iptables-legacy-save / ip6tables-legacy-save (restored by their -restore): yes when the
 * lock's tools are there and either iptables is iptables-nft or the four legacy tools are in PATH. */
static bool in_path(const char *tool)
{
	const char *path = getenv("PATH");
	char p[PATH_MAX];
	for (const char *s = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *s;) {
		size_t n = strcspn(s, ":");
		if (n && snprintf(p, sizeof(p), "%.*s/%s", (int)n, s, tool) < (int)sizeof(p) &&
		    !access(p, X_OK))
			return true;
		s += n + (s[n] == ':');
	}
	return false;
}

static int p_ipt(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	static const char *const legacy[] = {"iptables-legacy-save", "iptables-legacy-restore",
					     "ip6tables-legacy-save", "ip6tables-legacy-restore"};
	const char *v4 = tcp_ipt_path(false), *v6 = tcp_ipt_path(true);
	if (!v4 || !v6)
		return res(r, 0, "no %s (install iptables)", v4 ? "ip6tables-restore" : "iptables-restore");
	__cleanup_free char *real = realpath(v4, NULL);
	const char *base = real ? strrchr(real, '/') : NULL;
	bool nft = base && strstr(base, "nft");
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		if (in_path(legacy[i]))
			continue;
		if (!nft)
			return res(r, 0,
				   "%s is iptables-legacy and %s is missing: its rules would not be saved",
				   v4, legacy[i]);
		return res(
		    r, 1,
		    "%s (iptables-nft): the iptables network lock; its rules are nftables rules, saved (no "
		    "%s: iptables-legacy tables are refused at dump)",
		    v4, legacy[i]);
	}
	return res(r, 1, "%s: the iptables network lock; nftables rulesets and iptables-legacy tables saved",
		   v4);
}

static int p_ipv6_freebind(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	int one = 1;
	__cleanup_close int sk = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0 || setsockopt(sk, SOL_IPV6, IPV6_FREEBIND, &one, sizeof(one)))
		return res(r, 0, "IPV6_FREEBIND: %s", strerror(errno));
	return res(r, 1, "IPV6_FREEBIND");
}

static int p_memfd_hugetlb(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	__cleanup_close int fd = memfd_create("crshim-check-huge", MFD_CLOEXEC | MFD_HUGETLB);
	if (fd < 0)
		return res(r, 0, "memfd_create(MFD_HUGETLB): %s", strerror(errno));
	return res(r, 1, "memfds in huge pages");
}

/* An AIO ring can be moved (mremap updates the context's id: the restore moves a new ring to the saved
 * address). */
static int p_aio_remap(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	unsigned long ctx = 0;
	if (syscall(SYS_io_setup, 1, &ctx))
		return res(r, 0, "io_setup: %s", strerror(errno));
	const uint32_t *ring = (const uint32_t *)ctx; /* id, nr, ... 32 bytes, then 32 per event */
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), len = (32 + (size_t)ring[1] * 32 + psz - 1) & ~(psz - 1);
	void *to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *moved =
	    to == MAP_FAILED ? MAP_FAILED : mremap((void *)ctx, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	int err = errno;
	if (moved == MAP_FAILED) {
		if (to != MAP_FAILED)
			munmap(to, len);
		syscall(SYS_io_destroy, ctx);
		return res(r, 0, "mremap of an AIO ring: %s", strerror(err));
	}
	if (syscall(SYS_io_destroy, (unsigned long)moved)) {
		err = errno;
		syscall(SYS_io_destroy, ctx);
		return res(r, 0, "an AIO ring moved keeps its old id: %s", strerror(err));
	}
	return res(r, 1, "AIO rings (io_setup) are restored at their address");
}

/* The flag is known when the call fails for its (bad) paths rather than with EINVAL; nothing is moved. */
static int p_move_mount_set_group(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	if (syscall(SYS_move_mount, -1, "", -1, "", MOVE_MOUNT_SET_GROUP) == 0 || errno == EINVAL ||
	    errno == ENOSYS || errno == EPERM)
		return res(r, 0, "move_mount(MOVE_MOUNT_SET_GROUP): %s", strerror(errno));
	return res(r, 1, "MOVE_MOUNT_SET_GROUP (mounts' peer groups are restored)");
}

static int p_openat2(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
	__cleanup_close int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	if (fd < 0)
		return res(r, 0, "openat2: %s", strerror(errno));
	return res(r, 1, "openat2");
}

#ifndef PR_TIMER_CREATE_RESTORE_IDS
#define PR_TIMER_CREATE_RESTORE_IDS 77
#endif

static int p_timer_cr_ids(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	if (prctl(PR_TIMER_CREATE_RESTORE_IDS, 2 /* _GET */, 0, 0, 0) < 0)
		return res(r, 0, "PR_TIMER_CREATE_RESTORE_IDS: %s", strerror(errno));
	return res(r, 1, "POSIX timers made again with their ids");
}

/* tun/tap devices and the fds of /dev/net/tun attached to them (ns/net-tun.c, engine/files/file-reg.c) */
static int p_tun(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return res(r, 0, "open /dev/net/tun: %s", strerror(errno));
	close(fd);
	return res(r, 1, "tun/tap devices and their fds (multi-queue, detached queues) are saved");
}

/* The nft tool that the network lock and the saved nftables ruleset run */
static int p_nft(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	const char *nft = tcp_nft_path();
	if (!nft)
		return res(r, 0, "no nft tool (install nftables)");
	return res(r, 1, "%s", nft);
}

static int p_newifindex(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	if (!ns_net_has_newifindex())
		return res(r, 0, "RTM_SETLINK does not take IFLA_NEW_IFINDEX");
	return res(r, 1, "IFLA_NEW_IFINDEX: a device moved in with --external netdev[..] keeps its ifindex");
}

/* Namespace ids (RTM_GETNSID): veth pairs between the tree's network namespaces (IFLA_LINK_NETNSID) */
static int p_link_nsid(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	if (!ns_net_has_link_nsid())
		return res(r, 0, "RTM_GETNSID: no network namespace ids");
	return res(r, 1, "IFLA_LINK_NETNSID: veth pairs between the tree's network namespaces");
}

/* SO_BUF_LOCK (Linux 5.14), saved and restored with the other socket options */
static int p_buf_lock(struct probe_ctx *c, struct feat_res *r)
{
	(void)c;
	int v = 0;
	socklen_t l = sizeof(v);
	__cleanup_close int sk = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sk < 0 || getsockopt(sk, SOL_SOCKET, 72 /* SO_BUF_LOCK */, &v, &l))
		return res(r, 0, "SO_BUF_LOCK: %s", strerror(errno));
	return res(r, 1, "SO_BUF_LOCK: socket buffer locks");
}

struct criu_name {
	const char *name;
	int (*probe)(struct probe_ctx *, struct feat_res *); /* NULL: no, for reason */
	const char *reason;
};

static const struct criu_name criu_names[] = {
    {"mnt_id", p_mnt_id, NULL},
    {"fdinfo_lock", p_fdinfo_lock, NULL},
    {"userns", p_userns, NULL},
    {"cgroupns", p_cgroupns, NULL},
    {"timens", p_timens, NULL},
    {"ns_pid", p_ns_pid, NULL},
    {"sk_ns", p_sk_ns, NULL},
    {"net_diag_raw", p_net_diag_raw, NULL},
    {"ipv6_freebind", p_ipv6_freebind, NULL},
    {"memfd_hugetlb", p_memfd_hugetlb, NULL},
    {"move_mount_set_group", p_move_mount_set_group, NULL},
    {"openat2", p_openat2, NULL},
    {"timer_cr_ids", p_timer_cr_ids, NULL},
    {"nftables", p_nft, NULL},
    {"network_lock_nftables", p_nft, NULL},
    {"can_map_vdso", p_vdso, NULL},
    {"newifindex", p_newifindex, NULL},
    {"sockopt_buf_lock", p_buf_lock, NULL},
    {"aio_remap", p_aio_remap, NULL},
    {"tun", p_tun, NULL},
    {"tun_ns", p_tun, NULL},
    {"loginuid", p_loginuid, NULL},
    {"autofs", NULL, "autofs mounts are refused"},
    {"compat_cr", NULL, "32-bit (compat) tasks are not dumped"},
    {"sk_unix_file", p_sk_unix_file, NULL},
    {"nsid", NULL, "network namespace ids are not saved"},
    {"link_nsid", p_link_nsid, NULL},
    {"has_ipt_legacy", p_ipt, NULL},
    {"apparmor_stacking", NULL, "no LSM label is set on restore"},
    {"breakpoints", NULL, "hardware breakpoints (debug registers) are not saved"},
    {"overlayfs_maps", NULL, "files mapped from overlayfs are not told apart from their real files"},
    {"pagemap_scan_guard_pages", p_guard_pages, NULL},
};

static const struct criu_name *criu_name_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(criu_names); i++)
		if (!strcmp(criu_names[i].name, name))
			return &criu_names[i];
	return NULL;
}

/* ---------------- the table and the report ---------------- */

struct feat_def {
	const char *name;
	int kind;
	int (*probe)(struct probe_ctx *, struct feat_res *);
};

static const struct feat_def feats[] = {
    {"ptrace_seize", F_REQUIRED, p_ptrace},
    {"get_rseq_conf", F_OPTIONAL, p_rseq},
    {"seccomp_filters", F_OPTIONAL, p_seccomp},
    {"seccomp_suspend", F_OPTIONAL, p_seccomp_suspend},
    {"process_vm_readv", F_REQUIRED, p_vm_readv},
    {"pidfd_store", F_REQUIRED, p_pidfd},
    {"clone3_set_tid", F_REQUIRED, p_clone3},
    {"prctl_mm_map", F_REQUIRED, p_mm_map},
    {"vdso_layout", F_REQUIRED, p_vdso},
    {"capabilities", F_REQUIRED, p_caps},
    {"pagemap_scan", F_OPTIONAL, p_pagemap_scan},
    {"uffd", F_OPTIONAL, p_uffd},
    {"uffd-noncoop", F_OPTIONAL, p_uffd_noncoop},
    {"uffd_wp_async", F_OPTIONAL, p_wp_async},
    {"mem_dirty_track", F_OPTIONAL, p_dirty_track},
    {"kcmp_epoll", F_OPTIONAL, p_kcmp_epoll},
    {"timerfd", F_OPTIONAL, p_timerfd},
    {"tcp_half_closed", F_OPTIONAL, p_tcp_half_closed},
    {"external_net_ns", F_OPTIONAL, p_ext_netns},
    {"soft_dirty", F_INFO, p_soft_dirty},
};

static const struct feat_def *feat_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++)
		if (!strcmp(feats[i].name, name))
			return &feats[i];
	return NULL;
}

static int unknown_feature(const char *name, struct cr_err *e)
{
	char list[sizeof(e->msg)] = "";
	size_t off = 0;
	for (size_t i = 0; i < ARRAY_SIZE(feats) && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "", feats[i].name);
	return cr_fail_errno(e, EINVAL, "unknown feature '%s' (known: %s; and CRIU's names)", name, list);
}

static int check_one(struct probe_ctx *c, const char *name, FILE *out, struct cr_err *e)
{
	const struct feat_def *d = feat_find(name);
	const struct criu_name *n = d ? NULL : criu_name_find(name);
	struct feat_res r = {0};
	if (!d && !n)
		return unknown_feature(name, e);
	if (d)
		d->probe(c, &r);
	else if (n->probe)
		n->probe(c, &r);
	else
		res(&r, 0, "%s", n->reason);
	pr_info("%s: %s: %s\n", name, r.ok ? "ok" : "missing", r.detail);
	if (!r.ok)
		return cr_fail_errno(e, 0, "%s is not supported: %s", name, r.detail);
	fprintf(out, "%s is supported\n", name);
	return 0;
}

static int check_all(struct probe_ctx *c, FILE *out, struct cr_err *e)
{
	char missing[512] = "";
	size_t off = 0;
	int nmissing = 0;
	for (size_t i = 0; i < ARRAY_SIZE(feats); i++) {
		const struct feat_def *d = &feats[i];
		struct feat_res r = {0};
		d->probe(c, &r);
		const char *tag = r.ok			  ? "ok"
				  : d->kind == F_INFO	  ? "info"
				  : d->kind == F_OPTIONAL ? "warn"
							  : "FAIL";
		fprintf(out, "%-17s %-5s %s\n", d->name, tag, r.detail);
		pr_info("%s: %s: %s\n", d->name, tag, r.detail);
		if (!r.ok && d->kind == F_REQUIRED && off < sizeof(missing)) {
			off += (size_t)snprintf(missing + off, sizeof(missing) - off, "%s%s",
						nmissing ? ", " : "", d->name);
			nmissing++;
		}
	}
	if (nmissing)
		return cr_fail_errno(e, 0, "%d required kernel feature%s missing: %s", nmissing,
				     nmissing > 1 ? "s" : "", missing);
	return 0;
}

int eng_check(const char *feature, FILE *out, struct cr_err *e)
{
	struct probe_ctx c = {0};
	int ret = feature ? check_one(&c, feature, out, e) : check_all(&c, out, e);
	child_stop(&c);
	return ret;
}
