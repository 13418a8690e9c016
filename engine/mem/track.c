/* Dirty-page tracking without soft-dirty: userfaultfd async write-protect + PAGEMAP_SCAN (see track.h and
 * engine/mem/README.md for the keeper that holds the userfaultfds from one crshim run to the next). */
#define LOG_PREFIX "mem-track: "
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/scm.h"
#include "crshim.h"
#include "image/image.h"
#include "mem/pagemap-scan.h"
#include "mem/track.h"

#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define KEEPER_MAGIC 0x4b524d43u /* "CMRK" */
#define KEEPER_VERSION 1

struct keeper_hdr {
	uint32_t magic, version, n, cmd;
};
struct keeper_ent {
	int32_t pid, pad;
	uint64_t start_time;
};
enum { KCMD_GET = 1, KCMD_QUIT = 2 };
/* An answer of the keeper: the header, one entry a task, and the tasks' pidfds in one SCM_RIGHTS. */
struct keeper_msg {
	struct keeper_hdr h;
	struct keeper_ent ent[MEM_TRACK_MAX];
};
_Static_assert(MEM_TRACK_MAX <= SCM_FDS_MAX, "one message");

struct mem_track {
	int parent_dirfd;
	bool on;      /* --track-mem */
	bool touched; /* pages of inherited userfaultfds were write-protected again by this run */
	struct mem_track_task task[MEM_TRACK_MAX];
	size_t n;
};

int mem_track_parent_dirfd(const struct mem_track *t)
{
	return t ? t->parent_dirfd : -1;
}

bool mem_track_on(const struct mem_track *t)
{
	return t && t->on;
}

struct mem_track_task *mem_track_find(struct mem_track *t, pid_t pid, uint64_t start_time)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->task[i].pid == pid && t->task[i].start_time == start_time && t->task[i].uffd >= 0)
			return &t->task[i];
	return NULL;
}

/* ---------------- the kernel side ---------------- */

static int uffd_api(int uffd)
{
	struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC};
	return ioctl(uffd, UFFDIO_API, &api);
}

int mem_track_register(int uffd, uint64_t start, uint64_t end)
{
	struct uffdio_register r = {.range = {start, end - start}, .mode = UFFDIO_REGISTER_MODE_WP};
	return ioctl(uffd, UFFDIO_REGISTER, &r);
}

int mem_track_protect(int pagemap_fd, uint64_t start, uint64_t end, struct cr_err *e)
{
	struct page_region reg[64];
	struct pm_scan_arg a = {.size = sizeof(a),
				.flags = PM_SCAN_WP_MATCHING,
				.start = start,
				.end = end,
				.vec = (uint64_t)(uintptr_t)reg,
				.vec_len = 64,
				.category_mask = PAGE_IS_WRITTEN,
				/* not the holes: write-protecting them fills the page tables with markers */
				.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
				.return_mask = PAGE_IS_WRITTEN};
	while (a.start < end) {
		if (ioctl(pagemap_fd, PAGEMAP_SCAN, &a) < 0)
			return cr_fail_sys(e, "write-protect 0x%llx-0x%llx", (unsigned long long)a.start,
					   (unsigned long long)end);
		if (a.walk_end <= a.start)
			break;
		a.start = a.walk_end;
	}
	return 0;
}

static int mem_track_probe(char *why, size_t len)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct page_region reg[4];
	__cleanup_close int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	__cleanup_close int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	__cleanup_munmap struct cr_map m = {
	    mmap(NULL, 4 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), 4 * (size_t)psz};
	struct cr_err e = {0};
	if (pm < 0 || uffd < 0 || m.addr == MAP_FAILED || uffd_api(uffd)) {
		snprintf(why, len, "userfaultfd with UFFD_FEATURE_WP_ASYNC: %s", strerror(errno));
		return 0;
	}
	memset(m.addr, 1, m.len);
	uint64_t s = (uint64_t)(uintptr_t)m.addr;
	if (mem_track_register(uffd, s, s + m.len) || mem_track_protect(pm, s, s + m.len, &e)) {
		snprintf(why, len, "userfaultfd write-protect or PAGEMAP_SCAN: %s", strerror(errno));
		return 0;
	}
	((volatile char *)m.addr)[psz] = 2;
	struct pm_scan_arg a = {.size = sizeof(a),
				.start = s,
				.end = s + m.len,
				.vec = (uint64_t)(uintptr_t)reg,
				.vec_len = 4,
				.category_mask = PAGE_IS_WRITTEN,
				.return_mask = PAGE_IS_WRITTEN};
	long n = ioctl(pm, PAGEMAP_SCAN, &a);
	if (n != 1 || reg[0].start != s + (uint64_t)psz || reg[0].end != s + 2 * (uint64_t)psz) {
		snprintf(why, len, "PAGEMAP_SCAN did not find exactly the page written after write-protect");
		return 0;
	}
	snprintf(why, len, "userfaultfd WP_ASYNC + PAGEMAP_SCAN");
	return 1;
}

/* The kernel's answer does not change while crshim runs: probed once (a swrk client may ask many times;
 * each probe maps, registers and scans, slow on a busy machine: the fuzzer's swrk target timed out on 12). */
int eng_mem_track_supported(char *why, size_t len)
{
	static int known = -1;
	static char known_why[256];
	if (known < 0)
		known = mem_track_probe(known_why, sizeof(known_why));
	if (len) { /* (a copy cut to len: snprintf's truncation warning knows the callers' sizes) */
		size_t n = strnlen(known_why, len - 1);
		memcpy(why, known_why, n);
		why[n] = '\0';
	}
	return known;
}

int mem_track_infect(struct mem_track *t, struct infect *in, pid_t pid, uint64_t start_time, struct cr_err *e)
{
	struct mem_track_task *k = mem_track_find(t, pid, start_time);
	long rfd;
	if (k)
		return 0;
	if (t->n == MEM_TRACK_MAX)
		return cr_fail_errno(e, E2BIG, "--track-mem: more than %d address spaces in the tree",
				     MEM_TRACK_MAX);
	if (infect_sys(in, &rfd, e, __NR_userfaultfd, O_CLOEXEC | O_NONBLOCK, 0, 0, 0, 0, 0))
		return -1;
	if (rfd == -EPERM && infect_sys(in, &rfd, e, __NR_userfaultfd,
					O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY, 0, 0, 0, 0, 0))
		return -1;
	if (rfd < 0)
		return cr_fail_errno(e, (int)-rfd, "--track-mem: userfaultfd() in task %d", pid);
	__cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int uffd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)rfd, 0);
	int saved = errno;
	long cret;
	struct cr_err e2 = {0};
	/* the task's fd table as before, whatever happened */
	if (infect_sys(in, &cret, uffd < 0 ? &e2 : e, __NR_close, (unsigned long)rfd, 0, 0, 0, 0, 0) ||
	    cret < 0) {
		if (uffd >= 0)
			close(uffd);
		return uffd < 0 ? cr_fail_errno(e, saved, "--track-mem: take the userfaultfd of task %d", pid)
				: cr_fail_errno(e, cret < 0 ? (int)-cret : EIO,
						"--track-mem: close the userfaultfd in task %d", pid);
	}
	if (uffd < 0)
		return cr_fail_errno(e, saved, "--track-mem: take the userfaultfd of task %d", pid);
	if (uffd_api(uffd)) {
		cr_fail_sys(e, "--track-mem: UFFDIO_API (WP_ASYNC) for task %d", pid);
		close(uffd);
		return -1;
	}
	t->task[t->n++] = (struct mem_track_task){pid, start_time, uffd, false};
	pr_info("task %d: userfaultfd for dirty-page tracking\n", pid);
	return 0;
}

/* ---------------- the keeper ---------------- */

static int sock_addr(int dirfd, struct sockaddr_un *sa, socklen_t *len)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", dirfd, MEM_TRACK_SOCK);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	return 0;
}

static int keeper_send(int sk, const struct mem_track *t, uint32_t cmd)
{
	struct keeper_msg msg;
	int fds[MEM_TRACK_MAX];
	size_t n = t ? t->n : 0;
	memset(&msg, 0, sizeof(msg));
	msg.h = (struct keeper_hdr){KEEPER_MAGIC, KEEPER_VERSION, (uint32_t)n, cmd};
	for (size_t i = 0; i < n; i++) {
		msg.ent[i] = (struct keeper_ent){t->task[i].pid, 0, t->task[i].start_time};
		fds[i] = t->task[i].uffd;
	}
	struct iovec iov = {&msg, sizeof(msg.h) + n * sizeof(msg.ent[0])};
	return scm_send(sk, &iov, 1, fds, n) < 0 ? -1 : 0;
}

/* The keeper: holds the userfaultfds (and so the write-protection of the tree) until a later dump takes
 * them and says QUIT, every tracked process is gone, or its socket file was removed with the images. */
static void keeper_main(int lsk, int dirfd, struct mem_track *t, int *pidfds)
{
	struct pollfd p[MEM_TRACK_MAX + 1];
	struct stat st0, st;
	bool alive[MEM_TRACK_MAX];
	size_t left = t->n;
	if (fstatat(dirfd, MEM_TRACK_SOCK, &st0, AT_SYMLINK_NOFOLLOW))
		_exit(1);
	for (size_t i = 0; i < t->n; i++)
		alive[i] = pidfds[i] >= 0;
	for (;;) {
		p[0] = (struct pollfd){lsk, POLLIN, 0};
		for (size_t i = 0; i < t->n; i++)
			p[i + 1] = (struct pollfd){alive[i] ? pidfds[i] : -1, POLLIN, 0};
		int r = poll(p, t->n + 1, 10000);
		if (fstatat(dirfd, MEM_TRACK_SOCK, &st, AT_SYMLINK_NOFOLLOW) || st.st_ino != st0.st_ino)
			_exit(0); /* the images are gone (or another keeper took the name) */
		if (r < 0)
			continue;
		for (size_t i = 0; i < t->n; i++)
			if (alive[i] && p[i + 1].revents) {
				alive[i] = false;
				left--;
			}
		if (!left)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		int c = accept4(lsk, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		struct keeper_hdr h;
		struct timeval tv = {5, 0};
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		ssize_t got = recv(c, &h, sizeof(h), 0);
		if (got == (ssize_t)sizeof(h) && h.magic == KEEPER_MAGIC && h.version == KEEPER_VERSION) {
			if (h.cmd == KCMD_GET)
				keeper_send(c, t, KCMD_GET);
			else if (h.cmd == KCMD_QUIT) {
				unlinkat(dirfd, MEM_TRACK_SOCK, 0);
				keeper_send(c, NULL, KCMD_QUIT);
				close(c);
				_exit(0);
			}
		}
		close(c);
	}
	if (!fstatat(dirfd, MEM_TRACK_SOCK, &st, AT_SYMLINK_NOFOLLOW) && st.st_ino == st0.st_ino)
		unlinkat(dirfd, MEM_TRACK_SOCK, 0);
	_exit(0);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every fd but keep[0..n). */
static void close_all_but(int *keep, size_t n)
{
	qsort(keep, n, sizeof(*keep), cmp_int);
	unsigned lo = 0;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0);
		lo = (unsigned)keep[i] + 1;
	}
	syscall(SYS_close_range, lo, ~0u, 0);
}

static int keeper_spawn(struct mem_track *t, int dirfd, struct cr_err *e)
{
	struct sockaddr_un sa;
	socklen_t salen;
	int pidfds[MEM_TRACK_MAX];
	int keep[2 * MEM_TRACK_MAX + 2];
	size_t nk = 0;
	__cleanup_close int lsk = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lsk < 0)
		return cr_fail_sys(e, "keeper socket");
	sock_addr(dirfd, &sa, &salen);
	unlinkat(dirfd, MEM_TRACK_SOCK, 0);
	if (bind(lsk, (struct sockaddr *)&sa, salen) || listen(lsk, 8))
		return cr_fail_sys(e, "bind the keeper socket %s", MEM_TRACK_SOCK);
	for (size_t i = 0; i < t->n; i++) {
		pidfds[i] = (int)syscall(SYS_pidfd_open, t->task[i].pid, 0);
		if (pidfds[i] >= 0)
			keep[nk++] = pidfds[i];
		keep[nk++] = t->task[i].uffd;
	}
	keep[nk++] = lsk;
	keep[nk++] = dirfd;
	pid_t pid = fork();
	if (pid < 0) {
		cr_fail_sys(e, "fork the keeper");
	} else if (!pid) {
		setsid();
		if (fork())
			_exit(0);
		prctl(PR_SET_NAME, "crshim-keeper");
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		if (chdir("/")) {
			/* nothing to do: the keeper uses fds only */
		}
		close_all_but(keep, nk);
		keeper_main(lsk, dirfd, t, pidfds);
	}
	for (size_t i = 0; i < t->n; i++)
		if (pidfds[i] >= 0)
			close(pidfds[i]);
	if (pid < 0) {
		unlinkat(dirfd, MEM_TRACK_SOCK, 0);
		return -1;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	pr_info("keeper started for %zu address spaces (%s)\n", t->n, MEM_TRACK_SOCK);
	return 0;
}

/* Ask the keeper of dirfd: GET (its userfaultfds into t) or QUIT. 1: no keeper there (QUIT: or gone
 * meanwhile). */
static int keeper_ask(int dirfd, uint32_t cmd, struct mem_track *t, struct cr_err *e)
{
	struct sockaddr_un sa;
	socklen_t salen;
	__cleanup_close int sk = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return cr_fail_sys(e, "keeper socket");
	sock_addr(dirfd, &sa, &salen);
	if (connect(sk, (struct sockaddr *)&sa, salen))
		return errno == ENOENT || errno == ECONNREFUSED ? 1 : cr_fail_sys(e, "connect to the keeper");
	struct keeper_hdr h = {KEEPER_MAGIC, KEEPER_VERSION, 0, cmd};
	struct timeval tv = {10, 0};
	setsockopt(sk, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* A keeper whose every process ended (the dump killed the tree) exits on its own: a QUIT that meets
	 * it on its way out (the connection reset or closed unanswered) found what it asked for. */
	bool gone_ok = cmd == KCMD_QUIT;
	if (send(sk, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		return gone_ok && (errno == ECONNRESET || errno == EPIPE) ? 1
									  : cr_fail_sys(e, "ask the keeper");
	struct keeper_msg msg;
	int fds[MEM_TRACK_MAX], fl = 0;
	struct iovec iov = {&msg, sizeof(msg)};
	size_t nfd = 0;
	ssize_t n = scm_recv(sk, &iov, 1, fds, MEM_TRACK_MAX, &nfd, &fl);
	if (gone_ok && (n == 0 || (n < 0 && errno == ECONNRESET)))
		return 1;
	if (n < (ssize_t)sizeof(msg.h)) {
		for (size_t i = 0; n >= 0 && i < nfd; i++)
			close(fds[i]);
		return cr_fail_errno(e, n < 0 ? errno : EPROTO, "the keeper did not answer");
	}
	bool bad = (fl & MSG_CTRUNC) || msg.h.magic != KEEPER_MAGIC || msg.h.version != KEEPER_VERSION ||
		   msg.h.cmd != cmd || msg.h.n > MEM_TRACK_MAX || nfd != msg.h.n ||
		   (size_t)n != sizeof(msg.h) + msg.h.n * sizeof(msg.ent[0]);
	if (bad || cmd != KCMD_GET || !t) {
		for (size_t i = 0; i < nfd; i++)
			close(fds[i]);
		return bad ? cr_fail_errno(e, EPROTO, "the keeper's answer is malformed") : 0;
	}
	for (size_t i = 0; i < nfd; i++)
		t->task[t->n++] =
		    (struct mem_track_task){msg.ent[i].pid, msg.ent[i].start_time, fds[i], true};
	return 0;
}

/* ---------------- a run ---------------- */

static int open_parent(struct cr_opts *o, int dirfd, struct mem_track *t, struct cr_err *e)
{
	const char *prev = o->prev_images_dir;
	t->parent_dirfd = openat(dirfd, prev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->parent_dirfd < 0)
		return cr_fail_sys(e, "--prev-images-dir %s", prev);
	struct stat a, b;
	if (fstat(dirfd, &a) || fstat(t->parent_dirfd, &b))
		return cr_fail_sys(e, "--prev-images-dir %s", prev);
	if (a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return cr_fail_errno(e, EINVAL, "--prev-images-dir %s is the images dir itself", prev);
	if (faccessat(t->parent_dirfd, "inventory.img", F_OK, 0))
		return cr_fail_errno(e, ENOENT, "--prev-images-dir %s: no inventory.img (not a crshim dump)",
				     prev);
	/* the link restore follows, as CRIU makes it: the path as given, relative to the images dir */
	if (unlinkat(dirfd, "parent", 0) && errno != ENOENT)
		return cr_fail_sys(e, "remove the old parent link");
	if (symlinkat(prev, dirfd, "parent"))
		return cr_fail_sys(e, "create the parent link to %s", prev);
	return 0;
}

int mem_track_open(struct cr_opts *o, int dirfd, struct mem_track **tp, struct cr_err *e)
{
	struct mem_track *t = calloc(1, sizeof(*t));
	char why[160];
	if (!t)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	t->parent_dirfd = -1;
	t->on = o->track_mem;
	*tp = t;
	if (o->track_mem && !eng_mem_track_supported(why, sizeof(why)))
		return cr_fail_errno(e, EOPNOTSUPP, "--track-mem: this kernel cannot track dirty pages (%s)",
				     why);
	if (o->prev_images_dir && open_parent(o, dirfd, t, e))
		return -1;
	if (!o->track_mem || t->parent_dirfd < 0)
		return 0;
	int r = keeper_ask(t->parent_dirfd, KCMD_GET, t, e);
	if (r < 0)
		return cr_wrap(e, "--track-mem: the keeper of %s", o->prev_images_dir);
	if (r > 0)
		pr_warn("--prev-images-dir %s holds no tracking (a pre-dump without --track-mem, or the tree "
			"ended): every page is saved\n",
			o->prev_images_dir);
	else
		pr_info("%zu tracked address spaces from the keeper of %s\n", t->n, o->prev_images_dir);
	return 0;
}

void mem_track_done(struct mem_track *t, bool ok, bool pre_dump, int dirfd)
{
	struct cr_err e = {0};
	if (!t || !t->on)
		return;
	if (!ok && !t->touched)
		return; /* the parent's tracking is as it was: a dump may be tried again */
	if (!ok)
		pr_warn(
		    "the failed dump write-protected pages again: the parent's tracking ends, the next dump "
		    "with it saves every page\n");
	if (ok && pre_dump && t->n && keeper_spawn(t, dirfd, &e))
		pr_warn("tracking not kept for the next dump: %s\n", e.msg);
	if (t->parent_dirfd >= 0 && keeper_ask(t->parent_dirfd, KCMD_QUIT, NULL, &e) < 0)
		pr_warn("the parent's keeper: %s\n", e.msg);
}

void mem_track_free(struct mem_track *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		if (t->task[i].uffd >= 0)
			close(t->task[i].uffd);
	if (t->parent_dirfd >= 0)
		close(t->parent_dirfd);
	free(t);
}

void mem_track_touched(struct mem_track *t)
{
	if (t)
		t->touched = true;
}
