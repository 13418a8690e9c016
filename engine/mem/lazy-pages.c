/* crshim lazy-pages: fills the memory of a tree restored with --lazy-pages on demand (engine/mem/lazy.md).
 * One process, one thread: it reads each task's userfaultfd (page faults and the fork, mremap, madvise
 * and munmap events), answers a fault with the page block that holds it (UFFDIO_COPY, checksum checked)
 * or a zero page, and copies the rest in the background while no event waits. A watchdog process holds
 * copies of the userfaultfds: when the daemon ends before all pages are in, it kills the restored tree
 * (the kernel would otherwise hand the tasks zero pages where their data was). */
#define LOG_PREFIX "lazy-pages: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/scm.h"
#include "crshim.h"
#include "image/csum.h"
#include "image/image.h"
#include "mem/lazy.h"

#define LZ_BLOCK_MAX (64ull << 20) /* a page block read whole to check its checksum */
#define LZ_MAX_MM 4096		   /* address spaces served at once (forks included) */
#define LZ_MAX_KILL 65536	   /* processes the kill of the tree finds */
#define LZ_RETRY_MAX 256	   /* faults waiting for a retry (EAGAIN: the mm is changing) */

struct lz_run { /* pages not yet in: [addr, addr + len) is block blk's data from boff on */
	uint64_t addr, len, boff;
	size_t blk;
};

struct lz_pm { /* one task's pagemap, shared with the processes it forks */
	struct page_map pm;
	int refs;
	pid_t img_pid;
};

struct lz_mm { /* one address space: a restored task or a process one of them forked */
	struct lz_pm *pm;
	struct lz_run *runs; /* sorted by addr, disjoint */
	size_t nr;
	uint64_t retry[LZ_RETRY_MAX];
	size_t nretry;
	int uffd, pidfd, id;
	pid_t pid; /* 0: forked after the restore (known by its userfaultfd only) */
	bool dead;
};

struct lz {
	struct lz_mm **mm;
	size_t nmm;
	uint8_t *buf;
	size_t buf_cap;
	size_t rr; /* background: next mm */
	uint64_t n_fault, n_bg, n_zero, bytes, fetched;
	struct timespec t0;
	int dirfd, csk, wd;
	int rsk; /* lazy-pages --page-server: the source (dump --lazy-pages), else -1 */
	int next_id;
	pid_t wd_pid;
	bool ended; /* the restore said LZ_END */
	bool no_bg; /* CRSHIM_LAZY_BG=0: faults only, no copy in the background (tests, bench) */
};

struct lz_wd_msg {    /* daemon -> watchdog */
	uint32_t cmd; /* LZW_* */
	int32_t id;   /* of the mm */
	int32_t pid;  /* LZW_ADD of a restored task; 0 forked */
	int32_t nfds; /* LZW_ADD: userfaultfd [, pidfd] */
};
enum { LZW_ADD = 1, LZW_DONE = 2, LZW_BYE = 3 };

static uint64_t psz(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* ---------------- the kill of the restored tree (daemon and watchdog) ---------------- */

static size_t add_children(pid_t p, pid_t *all, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", p);
	__cleanup_closedir DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char cp[96];
		snprintf(cp, sizeof(cp), "/proc/%d/task/%.16s/children", p, de->d_name);
		__cleanup_fclose FILE *f = fopen(cp, "re");
		long c;
		while (f && fscanf(f, "%ld", &c) == 1 && n < LZ_MAX_KILL) {
			bool seen = false;
			for (size_t i = 0; i < n && !seen; i++)
				seen = all[i] == (pid_t)c;
			if (!seen) {
				kill((pid_t)c, SIGSTOP); /* forks no more while the walk goes on */
				all[n++] = (pid_t)c;
			}
		}
	}
	return n;
}

/* Stop the tasks (by pidfd) and every descendant, then kill them all. */
static size_t kill_tree(const int *pidfds, size_t n)
{
	pid_t *all = calloc(LZ_MAX_KILL, sizeof(pid_t));
	size_t nall = 0, nroots, killed = 0;
	for (size_t i = 0; i < n; i++) {
		if (pidfds[i] < 0)
			continue;
		syscall(SYS_pidfd_send_signal, pidfds[i], SIGSTOP, NULL, 0);
		char fdi[64], line[128];
		snprintf(fdi, sizeof(fdi), "/proc/self/fdinfo/%d", pidfds[i]);
		__cleanup_fclose FILE *f = fopen(fdi, "re");
		while (all && f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "Pid:", 4) && atoi(line + 4) > 0 && nall < LZ_MAX_KILL)
				all[nall++] = (pid_t)atoi(line + 4);
	}
	nroots = nall;
	for (size_t i = 0; all && i < nall; i++) /* grows as it goes: children of children */
		nall = add_children(all[i], all, nall);
	for (size_t i = 0; i < n; i++) /* by pidfd: never another process that took a pid again */
		if (pidfds[i] >= 0 && !syscall(SYS_pidfd_send_signal, pidfds[i], SIGKILL, NULL, 0))
			killed++;
	for (size_t i = nroots; all && i < nall; i++)
		if (!kill(all[i], SIGKILL))
			killed++;
	free(all);
	return killed;
}

/* ---------------- the watchdog ---------------- */

struct wd_ent {
	int id, uffd, pidfd;
};

static __attribute__((noreturn)) void watchdog_main(int sk)
{
	struct wd_ent *ent = NULL;
	size_t n = 0;
	for (;;) {
		struct lz_wd_msg m;
		struct iovec iov = {&m, sizeof(m)};
		int fds[2] = {-1, -1};
		size_t nf;
		ssize_t r = scm_recv(sk, &iov, 1, fds, 2, &nf, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == (ssize_t)sizeof(m) && m.cmd == LZW_ADD) {
			struct wd_ent *ne = realloc(ent, (n + 1) * sizeof(*ne));
			if (!ne) { /* cannot keep it: the daemon's death would go unnoticed for it */
				close(fds[0]);
				close(fds[1]);
				continue;
			}
			ent = ne;
			ent[n++] = (struct wd_ent){m.id, fds[0], fds[1]};
			continue;
		}
		if (r == (ssize_t)sizeof(m) && m.cmd == LZW_DONE) {
			for (size_t i = 0; i < n; i++)
				if (ent[i].id == m.id) {
					close(ent[i].uffd);
					if (ent[i].pidfd >= 0)
						close(ent[i].pidfd);
					ent[i--] = ent[--n];
				}
			continue;
		}
		if (r == (ssize_t)sizeof(m) && m.cmd == LZW_BYE)
			_exit(0);
		if (r > 0)
			continue; /* not ours: ignored */
		break;		  /* the daemon is gone */
	}
	if (!n)
		_exit(0);
	int *pfd = calloc(n + 1, sizeof(int));
	for (size_t i = 0; pfd && i < n; i++)
		pfd[i] = ent[i].pidfd;
	size_t k = pfd ? kill_tree(pfd, n) : 0;
	pr_err("the lazy-pages daemon ended with pages still to serve: killed the restored tree (%zu "
	       "processes) rather than let it read zeros\n",
	       k);
	_exit(1); /* the userfaultfds close only now: nothing ran on with missing pages */
}

static int wd_start(struct lz *z, struct cr_err *e)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp))
		return cr_fail_sys(e, "socketpair");
	pid_t p = fork();
	if (p < 0) {
		close(sp[0]);
		close(sp[1]);
		return cr_fail_sys(e, "fork the watchdog");
	}
	if (!p) {
		close(sp[0]);
		setsid(); /* a kill of the daemon's group leaves it */
		signal(SIGPIPE, SIG_IGN);
		watchdog_main(sp[1]);
	}
	close(sp[1]);
	z->wd = sp[0];
	z->wd_pid = p;
	return 0;
}

static void wd_send(struct lz *z, uint32_t cmd, int id, pid_t pid, int uffd, int pidfd)
{
	struct lz_wd_msg m = {cmd, id, pid, cmd == LZW_ADD ? (pidfd >= 0 ? 2 : 1) : 0};
	struct iovec iov = {&m, sizeof(m)};
	const int fds[2] = {uffd, pidfd};
	if (z->wd >= 0 && scm_send(z->wd, &iov, 1, fds, (size_t)m.nfds) < 0)
		pr_warn("the watchdog is gone (%s): the tree is no longer killed if this daemon dies\n",
			strerror(errno));
}

/* ---------------- runs ---------------- */

/* Take [s, e) out of m's runs; the pieces taken go to *out (if out), shifted by shift. */
static int runs_cut(struct lz_mm *m, uint64_t s, uint64_t e, struct lz_run **out, size_t *nout, int64_t shift)
{
	struct lz_run *nr = calloc(m->nr + 2, sizeof(*nr));
	size_t k = 0, cap = 0;
	if (!nr)
		return -1;
	for (size_t i = 0; i < m->nr; i++) {
		struct lz_run r = m->runs[i];
		uint64_t re = r.addr + r.len;
		if (re <= s || r.addr >= e) {
			nr[k++] = r;
			continue;
		}
		if (r.addr < s)
			nr[k++] = (struct lz_run){r.addr, s - r.addr, r.boff, r.blk};
		uint64_t ms = r.addr > s ? r.addr : s, me = re < e ? re : e;
		if (out) {
			if (*nout == cap) {
				cap = cap ? cap * 2 : 16;
				struct lz_run *no = realloc(*out, cap * sizeof(*no));
				if (!no) {
					free(nr);
					return -1;
				}
				*out = no;
			}
			(*out)[(*nout)++] = (struct lz_run){(uint64_t)((int64_t)ms + shift), me - ms,
							    r.boff + (ms - r.addr), r.blk};
		}
		if (re > e) {
			if (k == m->nr + 2) { /* cannot be: one run split in three at most once */
				free(nr);
				return -1;
			}
			nr[k++] = (struct lz_run){e, re - e, r.boff + (e - r.addr), r.blk};
		}
	}
	free(m->runs);
	m->runs = nr;
	m->nr = k;
	return 0;
}

static int cmp_run(const void *a, const void *b)
{
	const struct lz_run *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* mremap: the runs of [from, from + len) now lie at to (what was at to is gone). */
static int runs_move(struct lz_mm *m, uint64_t from, uint64_t to, uint64_t len)
{
	struct lz_run *moved = NULL;
	size_t nm = 0;
	if (runs_cut(m, from, from + len, &moved, &nm, (int64_t)(to - from)) ||
	    runs_cut(m, to, to + len, NULL, NULL, 0)) {
		free(moved);
		return -1;
	}
	struct lz_run *nr = realloc(m->runs, (m->nr + nm + 1) * sizeof(*nr));
	if (!nr) {
		free(moved);
		return -1;
	}
	if (nm)
		memcpy(nr + m->nr, moved, nm * sizeof(*nr));
	m->runs = nr;
	m->nr += nm;
	free(moved);
	qsort(m->runs, m->nr, sizeof(*m->runs), cmp_run);
	return 0;
}

static ssize_t run_at(const struct lz_mm *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->runs[mid].addr + m->runs[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr && m->runs[lo].addr <= addr ? (ssize_t)lo : -1;
}

/* ---------------- serving ---------------- */

static int buf_grow(struct lz *z, uint64_t len, struct cr_err *e)
{
	if (len > z->buf_cap) {
		uint8_t *nb = realloc(z->buf, len);
		if (!nb)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		z->buf = nb;
		z->buf_cap = len;
	}
	return 0;
}

static int read_block(struct lz *z, struct lz_mm *m, const struct page_block *b, struct cr_err *e)
{
	if (b->len > LZ_BLOCK_MAX)
		return cr_fail_errno(e, E2BIG, "pagemap-%d.img: a block of %llu bytes", m->pm->img_pid,
				     (unsigned long long)b->len);
	if (buf_grow(z, b->len, e))
		return -1;
	if (z->rsk >= 0 && !b->src) { /* the dump's own pages: on the source (parents' ones are here) */
		if (lzr_get(z->rsk, m->pm->img_pid, b->offset, z->buf, b->len, e))
			return -1;
	} else {
		int fd = pm_block_fd(&m->pm->pm, b);
		for (uint64_t got = 0; got < b->len;) {
			ssize_t n = pread(fd, z->buf + got, b->len - got, (off_t)(b->offset + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return cr_fail_errno(e, n ? errno : EIO,
						     "pages-%d.img: read the block for 0x%llx",
						     m->pm->img_pid, (unsigned long long)b->vaddr);
			got += (uint64_t)n;
		}
	}
	if (pm_csum(&m->pm->pm, z->buf, b->len) != b->csum)
		return cr_fail_errno(e, EBADMSG,
				     "pages of task %d: checksum mismatch in the block for 0x%llx",
				     m->pm->img_pid, (unsigned long long)b->vaddr);
	return 0;
}

/* Copy run i in. 0: done (or gone), 1: the mm changes (EAGAIN: read its events, then again), -1 error. */
static int serve_run(struct lz *z, struct lz_mm *m, size_t i, bool fault, struct cr_err *e)
{
	struct lz_run r = m->runs[i];
	const struct page_block *b = &m->pm->pm.blocks[r.blk];
	uint64_t ps = psz(), done = 0, step = r.len;
	if (read_block(z, m, b, e))
		return -1;
	while (done < r.len) {
		uint64_t n = step < r.len - done ? step : r.len - done;
		struct uffdio_copy c = {r.addr + done, (uint64_t)(uintptr_t)(z->buf + r.boff + done), n, 0,
					0};
		if (!ioctl(m->uffd, UFFDIO_COPY, &c)) {
			done += n;
			continue;
		}
		int err = errno;
		if (c.copy > 0)
			done += (uint64_t)c.copy;
		if (err == EEXIST || (err == ENOENT && n == ps)) { /* there already / not registered there */
			done += ps;
		} else if (err == ENOENT) { /* the range crosses VMAs (split since): page by page */
			step = ps;
		} else if (err == EAGAIN) {
			m->runs[i] = (struct lz_run){r.addr + done, r.len - done, r.boff + done, r.blk};
			return 1;
		} else if (err == ESRCH) { /* its address space is gone */
			m->dead = true;
			return 0;
		} else {
			return cr_fail_errno(e, err, "UFFDIO_COPY 0x%llx (%llu bytes)",
					     (unsigned long long)(r.addr + done), (unsigned long long)n);
		}
	}
	memmove(&m->runs[i], &m->runs[i + 1], (m->nr - i - 1) * sizeof(*m->runs));
	m->nr--;
	z->bytes += r.len;
	if (fault)
		z->n_fault++;
	else
		z->n_bg++;
	return 0;
}

static int add_retry(struct lz_mm *m, uint64_t addr, struct cr_err *e)
{
	if (m->nretry == LZ_RETRY_MAX)
		return cr_fail_errno(e, EAGAIN, "more than %d faults wait for a changing address space",
				     LZ_RETRY_MAX);
	m->retry[m->nretry++] = addr;
	return 0;
}

static int fault(struct lz *z, struct lz_mm *m, uint64_t addr, struct cr_err *e)
{
	uint64_t page = addr & ~(psz() - 1);
	ssize_t i = run_at(m, page);
	if (i >= 0) {
		int r = serve_run(z, m, (size_t)i, true, e);
		return r == 1 ? add_retry(m, page, e) : r;
	}
	struct uffdio_zeropage zp = {{page, psz()}, 0, 0};
	if (!ioctl(m->uffd, UFFDIO_ZEROPAGE, &zp)) {
		z->n_zero++;
		return 0;
	}
	if (errno == EAGAIN)
		return add_retry(m, page, e);
	if (errno == ESRCH) {
		m->dead = true;
		return 0;
	}
	/* EEXIST: in already (a copy woke it, or the task's own fault of another thread); ENOENT: gone */
	struct uffdio_range wr = {page, psz()};
	ioctl(m->uffd, UFFDIO_WAKE, &wr);
	return 0;
}

static int add_mm(struct lz *z, struct lz_pm *pm, int uffd, int pidfd, pid_t pid, const struct lz_run *runs,
		  size_t nr, struct cr_err *e)
{
	if (z->nmm == LZ_MAX_MM)
		return cr_fail_errno(e, E2BIG, "more than %d address spaces to serve", LZ_MAX_MM);
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	struct lz_mm **nm = realloc(z->mm, (z->nmm + 1) * sizeof(*nm));
	if (!nm)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	z->mm = nm;
	struct lz_mm *m = calloc(1, sizeof(*m));
	if (!m || !(m->runs = calloc(nr + 1, sizeof(*m->runs)))) {
		free(m);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	if (nr)
		memcpy(m->runs, runs, nr * sizeof(*runs));
	m->nr = nr;
	m->pm = pm;
	pm->refs++;
	m->uffd = uffd;
	m->pidfd = pidfd;
	m->pid = pid;
	m->id = ++z->next_id;
	z->mm[z->nmm++] = m;
	wd_send(z, LZW_ADD, m->id, pid, uffd, pidfd);
	return 0;
}

static void drop_mm(struct lz *z, size_t k)
{
	struct lz_mm *m = z->mm[k];
	if (m->dead)
		pr_info("%s %d: gone with %zu runs of pages not in\n",
			m->pid ? "task" : "forked process of task", m->pid ? m->pid : m->pm->img_pid, m->nr);
	else
		pr_info("%s %d: all its pages are in\n", m->pid ? "task" : "a process forked by task",
			m->pid ? m->pid : m->pm->img_pid);
	wd_send(z, LZW_DONE, m->id, 0, -1, -1);
	close(m->uffd);
	if (m->pidfd >= 0)
		close(m->pidfd);
	if (--m->pm->refs == 0) {
		pm_free(&m->pm->pm);
		free(m->pm);
	}
	free(m->runs);
	free(m);
	z->mm[k] = z->mm[--z->nmm];
}

static int events(struct lz *z, struct lz_mm *m, struct cr_err *e)
{
	struct uffd_msg msg[16];
	for (;;) {
		ssize_t n = read(m->uffd, msg, sizeof(msg));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0 || n % (ssize_t)sizeof(msg[0]))
			return cr_fail_errno(e, n < 0 ? errno : EIO, "read the userfaultfd of task %d",
					     m->pm->img_pid);
		/* The events of the batch first, then its faults: the kernel returns the faults pending
		 * before the events, and the fork, mremap or madvise of an event is complete once it was
		 * read: a fault served first would go into the parent only after the fork (the child, given
		 * the runs left, would get a zero page there) or to the old place after the mremap (the run
		 * lost). */
		size_t nm = (size_t)n / sizeof(msg[0]);
		for (size_t j = 0; j < 2 * nm; j++) {
			const struct uffd_msg *u = &msg[j < nm ? j : j - nm];
			int r = 0;
			if ((j < nm) == (u->event == UFFD_EVENT_PAGEFAULT))
				continue;
			switch (u->event) {
			case UFFD_EVENT_PAGEFAULT:
				r = fault(z, m, u->arg.pagefault.address, e);
				break;
			case UFFD_EVENT_FORK: /* the child has the parent's missing pages, and its own uffd */
				r = add_mm(z, m->pm, (int)u->arg.fork.ufd, -1, 0, m->runs, m->nr, e);
				if (r)
					close((int)u->arg.fork.ufd);
				break;
			case UFFD_EVENT_REMAP:
				r = runs_move(m, u->arg.remap.from, u->arg.remap.to, u->arg.remap.len);
				if (r)
					cr_fail_errno(e, ENOMEM, "out of memory");
				break;
			case UFFD_EVENT_REMOVE: /* MADV_DONTNEED/REMOVE: zero from now on */
			case UFFD_EVENT_UNMAP:
				r = runs_cut(m, u->arg.remove.start, u->arg.remove.end, NULL, NULL, 0);
				if (r)
					cr_fail_errno(e, ENOMEM, "out of memory");
				break;
			default:
				break;
			}
			if (r)
				return -1;
		}
	}
}

/* ---------------- the restore's connection ---------------- */

static int ack(int sk, int status, const char *msg)
{
	struct lz_ack a = {{LZ_MAGIC, LZ_VERSION, LZ_ACK, 0, 0, 0, status}, {0}};
	snprintf(a.msg, sizeof(a.msg), "%s", msg);
	return send(sk, &a, sizeof(a), MSG_NOSIGNAL) == (ssize_t)sizeof(a) ? 0 : -1;
}

/* The pagemap's blocks inside the lazy VMAs the restore named. */
static int task_runs(const struct page_map *pm, const struct lz_range *r, size_t nr, struct lz_run **out,
		     size_t *nout, struct cr_err *e)
{
	size_t cap = pm->nr + nr + 1, n = 0, k = 0;
	struct lz_run *runs = calloc(cap, sizeof(*runs));
	if (!runs)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < pm->nr; i++) {
		const struct page_block *b = &pm->blocks[i];
		while (k < nr && r[k].end <= b->vaddr)
			k++;
		for (size_t j = k; j < nr && r[j].start < b->vaddr + b->len; j++) {
			uint64_t s = b->vaddr > r[j].start ? b->vaddr : r[j].start;
			uint64_t en = b->vaddr + b->len < r[j].end ? b->vaddr + b->len : r[j].end;
			if (s >= en)
				continue;
			if (n == cap) {
				cap *= 2;
				struct lz_run *nr2 = realloc(runs, cap * sizeof(*runs));
				if (!nr2) {
					free(runs);
					return cr_fail_errno(e, ENOMEM, "out of memory");
				}
				runs = nr2;
			}
			runs[n++] = (struct lz_run){s, en - s, s - b->vaddr, i};
		}
	}
	*out = runs;
	*nout = n;
	return 0;
}

static int add_task(struct lz *z, const struct lz_hdr *h, const struct lz_range *r, int uffd, int pidfd,
		    struct cr_err *e)
{
	struct lz_pm *pm = calloc(1, sizeof(*pm));
	struct lz_run *runs = NULL;
	size_t nr = 0;
	if (!pm)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	pm->pm.pages_fd = -1;
	pm->img_pid = h->img_pid;
	for (uint32_t i = 0; i < h->nr; i++)
		if (r[i].start >= r[i].end || (i && r[i].start < r[i - 1].end)) {
			free(pm);
			return cr_fail_errno(e, EPROTO, "task %d: lazy ranges unsorted or empty", h->pid);
		}
	int ret = pm_open(z->dirfd, h->img_pid, &pm->pm, e);
	if (ret || task_runs(&pm->pm, r, h->nr, &runs, &nr, e)) {
		pm_free(&pm->pm);
		free(pm);
		return -1;
	}
	ret = add_mm(z, pm, uffd, pidfd, h->pid, runs, nr, e);
	free(runs);
	if (ret) {
		pm_free(&pm->pm);
		free(pm);
		return -1;
	}
	pr_info("task %d (pagemap-%d.img): %zu runs of pages in %u lazy VMAs to fill\n", h->pid, h->img_pid,
		nr, h->nr);
	return 0;
}

static int pwrite_all(int fd, const uint8_t *buf, uint64_t len, uint64_t off)
{
	errno = 0;
	while (len) {
		ssize_t w = pwrite(fd, buf, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w, len -= (uint64_t)w, off += (uint64_t)w;
	}
	return 0;
}

/* LZ_FETCH (lazy-pages --page-server): the byte ranges of pages-IMG_PID.img the restore reads itself (the
 * blocks it fills eagerly), from the source into the local (sparse) pages file. Nothing to do when the
 * pages are here. */
static int fetch(struct lz *z, const struct lz_hdr *h, const struct lz_range *r, struct cr_err *e)
{
	char name[64];
	uint64_t bytes = 0;
	if (z->rsk < 0)
		return 0;
	img_name(IMG_PAGES, h->img_pid, name, sizeof(name));
	__cleanup_close int fd = openat(z->dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", name);
	for (uint32_t i = 0; i < h->nr; i++) {
		if (r[i].start >= r[i].end)
			return cr_fail_errno(e, EPROTO, "task %d: an empty range to fetch", h->pid);
		for (uint64_t off = r[i].start; off < r[i].end;) {
			uint64_t n = r[i].end - off < LZ_REMOTE_MAX ? r[i].end - off : LZ_REMOTE_MAX;
			if (buf_grow(z, n, e) || lzr_get(z->rsk, h->img_pid, off, z->buf, n, e))
				return -1;
			if (pwrite_all(fd, z->buf, n, off))
				return cr_fail_errno(e, errno ? errno : EIO, "write %s", name);
			off += n, bytes += n;
		}
	}
	z->fetched += bytes;
	pr_info("task %d: %llu bytes the restore fills itself fetched from the source\n", h->pid,
		(unsigned long long)bytes);
	return 0;
}

/* One message of the restore. 1: it ended (LZ_END, or gone: then with an error in e). */
static int restore_msg(struct lz *z, struct cr_err *e)
{
	size_t max = sizeof(struct lz_hdr) + LZ_MAX_RANGES * sizeof(struct lz_range);
	__cleanup_free uint8_t *buf = malloc(max);
	struct iovec iov = {buf, max};
	int fds[2] = {-1, -1}, fl = 0;
	size_t nf;
	if (!buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ssize_t n = scm_recv(z->csk, &iov, 1, fds, 2, &nf, &fl);
	if (n < 0 && errno == EINTR)
		// cppcheck-suppress memleak ; buf is freed by its __cleanup_free attribute
		return 0;
	if (n <= 0) {
		for (size_t i = 0; i < nf; i++)
			close(fds[i]);
		cr_fail_errno(e, n ? errno : EPIPE, "the restore ended before it finished (it failed)");
		// cppcheck-suppress memleak ; buf is freed by its __cleanup_free attribute
		return 1;
	}
	const struct lz_hdr *h = (const struct lz_hdr *)buf;
	if ((size_t)n < sizeof(*h) || h->magic != LZ_MAGIC || h->version != LZ_VERSION ||
	    (fl & (MSG_TRUNC | MSG_CTRUNC)) ||
	    (h->cmd != LZ_TASK && h->cmd != LZ_END && h->cmd != LZ_FETCH) ||
	    (h->cmd != LZ_END &&
	     (h->nr > LZ_MAX_RANGES || (size_t)n != sizeof(*h) + h->nr * sizeof(struct lz_range))) ||
	    (h->cmd == LZ_TASK && (fds[0] < 0 || fds[1] < 0)) || (h->cmd != LZ_TASK && fds[0] >= 0)) {
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		ack(z->csk, EPROTO, "bad message (version or length)");
		cr_fail_errno(e, EPROTO, "a bad message from the restore (%zd bytes, version %u)", n,
			      (size_t)n >= sizeof(*h) ? h->version : 0);
		return 1;
	}
	if (h->cmd == LZ_END) {
		z->ended = true;
		ack(z->csk, 0, "");
		return 1;
	}
	if (h->cmd == LZ_FETCH) { /* a failure ends the daemon: the restore fails on the answer */
		int r = fetch(z, h, (const struct lz_range *)(h + 1), e);
		ack(z->csk, r ? (e->errnum ? e->errnum : EIO) : 0, r ? e->msg : "");
		return r ? 1 : 0;
	}
	if (add_task(z, h, (const struct lz_range *)(h + 1), fds[0], fds[1], e)) {
		close(fds[0]);
		close(fds[1]);
		ack(z->csk, e->errnum ? e->errnum : EIO, e->msg);
		return 1;
	}
	if (ack(z->csk, 0, ""))
		return 0; /* the restore is gone: its end is read next */
	return 0;
}

/* ---------------- the daemon ---------------- */

static int sock_addr(int dirfd, struct sockaddr_un *sa, socklen_t *len, char *path, size_t plen)
{
	*sa = (struct sockaddr_un){.sun_family = AF_UNIX};
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", dirfd, LZ_SOCK);
	snprintf(path, plen, "%s", sa->sun_path);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	return 0;
}

/* lazy-pages --page-server: for each pagemap-ID.img of the dir, the local pages-ID.img it names is made
 * sparse, of the pagemap's size (the restore opens it; what the restore reads itself is fetched into it,
 * LZ_FETCH; the rest is fetched as the tree touches it and never written here). check: fail when one
 * exists (nothing made); make: make them all; drop (make false): remove them. */
enum { RF_CHECK, RF_MAKE, RF_DROP };
static int remote_files(int dirfd, int what, struct cr_err *e)
{
	int dfd = dup(dirfd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	int ret = 0;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return what == RF_DROP ? 0 : cr_fail_sys(e, "read the images dir");
	}
	rewinddir(d); /* the offset is dirfd's: another pass read it to the end */
	while (!ret && (de = readdir(d))) {
		int id;
		char name[64];
		struct page_map pm;
		if (img_kind_of(de->d_name, &id) != IMG_PAGEMAP)
			continue;
		img_name(IMG_PAGES, id, name, sizeof(name));
		if (what == RF_DROP) {
			unlinkat(dirfd, name, 0);
			continue;
		}
		if (what == RF_CHECK) {
			if (!faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW))
				ret = cr_fail_errno(
				    e, EEXIST,
				    "%s is in the images dir: lazy-pages --page-server takes the dump's "
				    "pages from the source (copy the images without pages-*.img)",
				    name);
			continue;
		}
		if (pm_open_map(dirfd, IMG_PAGEMAP, IMG_PAGES, id, &pm, e))
			ret = -1;
		uint64_t size = pm.total_size;
		if (!ret)
			pm_free(&pm);
		int fd = ret ? -1 : openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (!ret && (fd < 0 || ftruncate(fd, (off_t)size)))
			ret = cr_fail_sys(e, "make %s", name);
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return ret;
}

static int remote_setup(struct cr_opts *o, struct cr_err *e)
{
	if (remote_files(o->imgdir_fd, RF_CHECK, e) ||
	    lzr_connect(o->ps_address, o->ps_port, &o->lazy_src_sk, e))
		return -1;
	if (remote_files(o->imgdir_fd, RF_MAKE, e)) {
		remote_files(o->imgdir_fd, RF_DROP, e);
		close(o->lazy_src_sk);
		o->lazy_src_sk = -1;
		return -1;
	}
	return 0;
}

int eng_lazy_pages_listen(struct cr_opts *o, int *lfd, struct cr_err *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	char path[128];
	if (!o->images_dir)
		return cr_fail_errno(err, EINVAL, "lazy-pages needs -D/--images-dir DIR");
	if (o->imgdir_fd < 0) {
		o->imgdir_fd = open(o->images_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (o->imgdir_fd < 0)
			return cr_fail_sys(err, "open images dir %s", o->images_dir);
	}
	sock_addr(o->imgdir_fd, &sa, &len, path, sizeof(path));
	*lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (*lfd < 0)
		return cr_fail_sys(err, "socket");
	/* a stale socket of a lazy-pages that died: only if nobody answers there */
	int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, len)) {
		close(probe);
		close(*lfd);
		return cr_fail_errno(err, EADDRINUSE, "another lazy-pages serves %s", o->images_dir);
	}
	if (probe >= 0)
		close(probe);
	unlinkat(o->imgdir_fd, LZ_SOCK, 0);
	if (bind(*lfd, (struct sockaddr *)&sa, len) || listen(*lfd, 1)) {
		int er = errno;
		close(*lfd);
		return cr_fail_errno(err, er, "listen on %s/%s", o->images_dir, LZ_SOCK);
	}
	if (o->page_server && remote_setup(o, err)) {
		close(*lfd);
		unlinkat(o->imgdir_fd, LZ_SOCK, 0);
		return -1;
	}
	pr_info("waiting for restore --lazy-pages on %s/%s%s\n", o->images_dir, LZ_SOCK, "");
	return 0;
}

static void kill_all(struct lz *z, const struct cr_err *why)
{
	int *pfd = calloc(z->nmm + 1, sizeof(int));
	for (size_t i = 0; pfd && i < z->nmm; i++)
		pfd[i] = z->mm[i]->pidfd;
	size_t k = pfd ? kill_tree(pfd, z->nmm) : 0;
	free(pfd);
	pr_err("%s: killed the restored tree (%zu processes): its memory can no longer be filled\n", why->msg,
	       k);
}

static int loop(struct lz *z, struct cr_err *e)
{
	struct pollfd *pf = NULL;
	int ret = 0;
	while (!ret && (!z->ended || z->nmm)) {
		struct pollfd *np = realloc(pf, (2 * z->nmm + 2) * sizeof(*pf));
		if (!np) {
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
			break;
		}
		pf = np;
		bool work = false;
		for (size_t i = 0; i < z->nmm; i++) {
			pf[i] = (struct pollfd){z->mm[i]->uffd, POLLIN, 0};
			work |= (!z->no_bg && z->ended && z->mm[i]->nr) || z->mm[i]->nretry;
		}
		pf[z->nmm] = (struct pollfd){z->csk, POLLIN, 0};
		size_t nmm = z->nmm;
		for (size_t i = 0; i < nmm; i++) /* a restored task's end (a forked one's: ESRCH) */
			pf[nmm + 1 + i] = (struct pollfd){z->mm[i]->pidfd, POLLIN, 0};
		/* the source answers requests only: anything to read there is its end */
		pf[2 * nmm + 1] = (struct pollfd){z->rsk, POLLIN, 0};
		int n = poll(pf, 2 * nmm + 2, work ? 0 : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = cr_fail_sys(e, "poll");
			break;
		}
		if (z->rsk >= 0 && pf[2 * nmm + 1].revents)
			ret = cr_fail_errno(e, EPIPE, "the page server (dump --lazy-pages) went away");
		for (size_t i = 0; !ret && i < nmm; i++) {
			if (pf[i].revents)
				ret = events(z, z->mm[i], e);
			if (pf[nmm + 1 + i].revents) /* it ended: its faults were all answered above */
				z->mm[i]->dead = true;
		}
		for (size_t i = 0; !ret && i < nmm; i++) { /* faults that met a changing mm */
			struct lz_mm *m = z->mm[i];
			size_t nre = m->nretry;
			uint64_t re[LZ_RETRY_MAX];
			memcpy(re, m->retry, nre * sizeof(re[0]));
			m->nretry = 0;
			for (size_t k = 0; !ret && k < nre; k++)
				ret = fault(z, m, re[k], e);
		}
		if (!ret && z->csk >= 0 && pf[nmm].revents && restore_msg(z, e)) {
			close(z->csk);
			z->csk = -1;
			if (!z->ended)
				ret = -1;
		}
		/* nothing waits: one run in the background, once the tree runs (before, the restore needs
		 * the CPU and the disk; and the tasks' own faults come first) */
		if (!ret && !n && z->nmm && !z->no_bg && z->ended) {
			for (size_t k = 0; k < z->nmm; k++) {
				struct lz_mm *m = z->mm[(z->rr + k) % z->nmm];
				if (m->nr && !m->dead) {
					z->rr = (z->rr + k + 1) % z->nmm;
					if (serve_run(z, m, 0, false, e) < 0)
						ret = -1;
					break;
				}
			}
		}
		for (size_t i = z->nmm; !ret && i-- > 0;)
			if (z->mm[i]->dead || (!z->mm[i]->nr && !z->mm[i]->nretry && z->ended))
				drop_mm(z, i);
	}
	free(pf);
	return ret;
}

int eng_lazy_pages_serve(struct cr_opts *o, int lfd, struct cr_err *err)
{
	struct lz z = {.dirfd = o->imgdir_fd, .csk = -1, .wd = -1, .rsk = o->lazy_src_sk};
	const char *bg = getenv("CRSHIM_LAZY_BG");
	int ret = -1;
	z.no_bg = bg && !strcmp(bg, "0");
	clock_gettime(CLOCK_MONOTONIC, &z.t0);
	signal(SIGPIPE, SIG_IGN);
	if (wd_start(&z, err))
		goto out;
	do
		z.csk = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (z.csk < 0 && errno == EINTR);
	if (z.csk < 0) {
		cr_fail_sys(err, "accept the restore");
		goto out;
	}
	unlinkat(o->imgdir_fd, LZ_SOCK, 0); /* one restore per daemon */
	ret = loop(&z, err);
	if (ret && z.nmm)
		kill_all(&z, err);
	else if (!ret) {
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (double)(t1.tv_sec - z.t0.tv_sec) + (double)(t1.tv_nsec - z.t0.tv_nsec) / 1e9;
		pr_info("done: %llu bytes in %.3f s: %llu runs on demand, %llu in the background, %llu zero "
			"pages%s\n",
			(unsigned long long)z.bytes, s, (unsigned long long)z.n_fault,
			(unsigned long long)z.n_bg, (unsigned long long)z.n_zero,
			z.rsk >= 0 ? " (from the source)" : "");
		struct cr_err be = {0};
		if (z.rsk >= 0 && lzr_bye(z.rsk, &be)) /* every page is in: the tree does not need it */
			pr_warn("%s\n", be.msg);
	}
out:
	while (z.nmm)
		drop_mm(&z, z.nmm - 1);
	if (z.wd >= 0) {
		wd_send(&z, LZW_BYE, 0, 0, -1, -1);
		close(z.wd);
		waitpid(z.wd_pid, NULL, 0);
	}
	if (z.csk >= 0)
		close(z.csk);
	free(z.buf);
	unlinkat(o->imgdir_fd, LZ_SOCK, 0);
	if (z.rsk >= 0) { /* the partial pages files made by remote_setup */
		struct cr_err de = {0};
		close(z.rsk);
		o->lazy_src_sk = -1;
		remote_files(o->imgdir_fd, RF_DROP, &de);
	}
	return ret;
}
