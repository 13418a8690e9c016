/* Dump of the address space: mm-PID.img (layout, mm fields), pagemap-PID.img + pages-PID.img (contents). */
#define LOG_PREFIX "dump-mm: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/openat2.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "image/csum.h"
#include "dump.h"
#include "files/ghost.h"
#include "base/fault.h"
#include "mem/ipc-shm.h"
#include "mem/mpol.h"
#include "base/log.h"
#include "base/vma-flags.h"
#include "mem/pagemap-scan.h"
#include "mem/shmem.h"
#include "mem/track.h"
#include "net/sk-inet.h"

#include "mem/dump-mm-int.h"

/* A run of [vaddr, vaddr+len) that the parent images hold: referenced, not copied. */
static int add_parent(struct mm_state *m, uint64_t vaddr, uint64_t len, struct cr_err *e)
{
	if (m->npar && m->par[m->npar - 1].vaddr + m->par[m->npar - 1].len == vaddr) {
		m->par[m->npar - 1].len += len;
		return 0;
	}
	if (m->npar == m->par_cap) {
		size_t ncap = m->par_cap ? m->par_cap * 2 : 256;
		struct prange *n = realloc(m->par, ncap * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		m->par = n;
		m->par_cap = ncap;
	}
	m->par[m->npar++] = (struct prange){vaddr, len, -1, 0, false, false};
	m->in_parent += len;
	return 0;
}

static int prlist_add(struct prlist *l, struct prange r, struct cr_err *e)
{
	if (arr_room(&l->r, &l->cap, l->nr, sizeof(*l->r), 1024))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	l->r[l->nr++] = r;
	return 0;
}

static int add_range(struct mm_state *m, uint64_t vaddr, uint64_t len, int fd, uint64_t foff,
		     struct cr_err *e)
{
	struct prlist *l = m->out;
	if (l->nr) {
		struct prange *p = &l->r[l->nr - 1];
		if (vaddr < p->vaddr + p->len) { /* never report a page twice */
			uint64_t skip = p->vaddr + p->len - vaddr;
			if (skip >= len)
				return 0;
			vaddr += skip, foff += skip, len -= skip;
		}
		if (!p->scan && p->fd == fd && p->vaddr + p->len == vaddr &&
		    (fd < 0 || p->foff + p->len == foff)) {
			p->len += len;
			return 0;
		}
	}
	return prlist_add(l, (struct prange){vaddr, len, fd, foff, false, false}, e);
}

/* An unwritten run of a tracked VMA inside [lo, hi) (the parent's VMA there): what the parent's pagemap
 * holds is referenced, the rest (pages the parent did not have) is copied. */
static int add_unwritten(struct mm_state *m, uint64_t a, uint64_t end, uint64_t lo, uint64_t hi, int fd,
			 struct cr_err *e)
{
	const struct page_map *p = &m->ppm;
	size_t l = 0, h = p->nr;
	while (l < h) { /* the first block ending after a */
		size_t mid = (l + h) / 2;
		if (p->blocks[mid].vaddr + p->blocks[mid].len <= a)
			l = mid + 1;
		else
			h = mid;
	}
	while (a < end) {
		while (l < p->nr && p->blocks[l].vaddr + p->blocks[l].len <= a)
			l++;
		bool covered = l < p->nr && p->blocks[l].vaddr <= a, inside = a >= lo && a < hi;
		uint64_t next = covered	    ? p->blocks[l].vaddr + p->blocks[l].len
				: l < p->nr ? p->blocks[l].vaddr
					    : end;
		if (inside && next > hi)
			next = hi;
		if (a < lo && next > lo)
			next = lo;
		if (next > end)
			next = end;
		if (covered && inside) {
			if (add_parent(m, a, next - a, e))
				return -1;
		} else {
			if (add_range(m, a, next - a, fd, fd < 0 ? 0 : a, e))
				return -1;
			m->written += next - a;
		}
		a = next;
	}
	return 0;
}

/* ---------------- finding pages ---------------- */

/* /proc/PID/pagemap: a guard region page (MADV_GUARD_INSTALL, Linux 6.14+), which no read gets through. */

static int add_guard(VmaEntry *ve, uint64_t start, uint64_t end, struct cr_err *e)
{
	if (ve->n_guards && ve->guards[ve->n_guards - 1] == start) {
		ve->guards[ve->n_guards - 1] = end;
		return 0;
	}
	uint64_t *g = realloc(ve->guards, (ve->n_guards + 2) * sizeof(*g));
	if (!g)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ve->guards = g;
	g[ve->n_guards++] = start;
	g[ve->n_guards++] = end;
	return 0;
}

/* Without PAGEMAP_SCAN: pagemap's bit of a guard page. */
static int guards_fallback(struct mm_state *m, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	enum { CHUNK = 4096 };
	uint64_t ents[CHUNK];
	for (uint64_t a = v->start; a < v->end;) {
		size_t n = (size_t)((v->end - a) / m->psz);
		n = n > CHUNK ? CHUNK : n;
		ssize_t r = pread(m->pagemap_fd, ents, n * 8, (off_t)(a / m->psz * 8));
		if (r < 0 || (size_t)r != n * 8)
			return cr_fail_sys(e, "read /proc/%d/pagemap at 0x%llx", m->c->pid,
					   (unsigned long long)a);
		for (size_t i = 0; i < n; i++, a += m->psz)
			if ((ents[i] >> PM_GUARD_BIT & 1) && add_guard(ve, a, a + m->psz, e))
				return -1;
	}
	return 0;
}

/* The guard regions of the VMA (MADV_GUARD_INSTALL, Linux 6.13+) -> ve->guards, installed again by the
 * blob; their pages are no contents (the scans skip them). PAGEMAP_SCAN (PAGE_IS_GUARD) and pagemap tell
 * them since Linux 6.14; with an older kernel none are saved, and a read that meets one fails the dump
 * (read_failed). */
static int vma_guards(struct mm_state *m, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	switch (ve->kind) { /* (not vDSO, vvar, vsyscall and the like) */
	case VMA_KIND__VMA_ANON_PRIVATE:
	case VMA_KIND__VMA_HEAP:
	case VMA_KIND__VMA_STACK:
	case VMA_KIND__VMA_FILE_PRIVATE:
	case VMA_KIND__VMA_FILE_SHARED:
	case VMA_KIND__VMA_ANON_SHARED:
		break;
	default:
		return 0;
	}
	struct pm_scan_arg a = {.size = sizeof(a),
				.start = v->start,
				.end = v->end,
				.vec = (uint64_t)(uintptr_t)m->vec,
				.vec_len = m->vec_len,
				.category_anyof_mask = PAGE_IS_GUARD,
				.return_mask = PAGE_IS_GUARD};
	if (!m->scan_ok) /* (no PAGEMAP_SCAN: pagemap is read for the pages too) */
		return guards_fallback(m, v, ve, e);
	if (m->guards_read) { /* (all_guards: the regions of the whole address space, this VMA's part) */
		for (size_t i = 0; i + 1 < m->nguards; i += 2) {
			uint64_t lo = m->guards[i] > v->start ? m->guards[i] : v->start,
				 hi = m->guards[i + 1] < v->end ? m->guards[i + 1] : v->end;
			if (lo < hi && add_guard(ve, lo, hi, e))
				return -1;
		}
		if (ve->n_guards)
			pr_info("vma 0x%llx: %zu guard regions\n", (unsigned long long)v->start,
				ve->n_guards / 2);
		return 0;
	}
	while (m->guard_ok && a.start < v->end) {
		long n = ioctl(m->pagemap_fd, PAGEMAP_SCAN, &a);
		if (n < 0 && errno == ENOTTY) {
			m->scan_ok = false;
			return guards_fallback(m, v, ve, e);
		}
		if (n < 0 && errno == EINVAL) { /* before Linux 6.14: neither it nor pagemap tells them */
			pr_info("PAGEMAP_SCAN tells no guard pages: none saved\n");
			m->guard_ok = false;
			return 0;
		}
		if (n < 0)
			return cr_fail_sys(e, "PAGEMAP_SCAN (guard pages) 0x%llx-0x%llx",
					   (unsigned long long)a.start, (unsigned long long)v->end);
		uint64_t next = a.walk_end;
		for (long i = 0; i < n; i++) {
			const struct page_region *p = &m->vec[i];
			next = p->end > next ? p->end : next;
			if (add_guard(ve, p->start, p->end, e))
				return -1;
		}
		if (next <= a.start)
			break;
		a.start = next;
	}
	if (ve->n_guards)
		pr_info("vma 0x%llx: %zu guard regions\n", (unsigned long long)v->start, ve->n_guards / 2);
	return 0;
}

/* The guard regions of [start, end), the span of every VMA, in one PAGEMAP_SCAN (a few more when they fill
 * its vector) instead of one per VMA -> m->guards. Left to vma_guards, VMA by VMA as before, without
 * PAGEMAP_SCAN or PAGE_IS_GUARD (ENOTTY, EINVAL: it says so there), or when a scan fails. */
static void all_guards(struct mm_state *m, uint64_t start, uint64_t end)
{
	struct pm_scan_arg a = {.size = sizeof(a),
				.start = start,
				.end = end,
				.vec = (uint64_t)(uintptr_t)m->vec,
				.vec_len = m->vec_len,
				.category_anyof_mask = PAGE_IS_GUARD,
				.return_mask = PAGE_IS_GUARD};
	m->nguards = 0;
	while (m->scan_ok && m->guard_ok && a.start < end) {
		long n = ioctl(m->pagemap_fd, PAGEMAP_SCAN, &a);
		if (n < 0)
			return;
		uint64_t next = a.walk_end;
		for (long i = 0; i < n; i++) {
			const struct page_region *p = &m->vec[i];
			next = p->end > next ? p->end : next;
			if (m->nguards && m->guards[m->nguards - 1] == p->start) {
				m->guards[m->nguards - 1] = p->end;
				continue;
			}
			if (arr_room(&m->guards, &m->guards_cap, m->nguards + 1, sizeof(*m->guards), 16))
				return;
			m->guards[m->nguards++] = p->start;
			m->guards[m->nguards++] = p->end;
		}
		if (next <= a.start)
			break;
		a.start = next;
	}
	m->guards_read = m->scan_ok && m->guard_ok;
}

static int scan_fallback(struct mm_state *m, uint64_t start, uint64_t end, bool skip_file, int fd,
			 struct cr_err *e)
{
	enum { CHUNK = 4096 };
	uint64_t ents[CHUNK];
	for (uint64_t a = start; a < end;) {
		size_t n = (size_t)((end - a) / m->psz);
		if (n > CHUNK)
			n = CHUNK;
		ssize_t r = pread(m->pagemap_fd, ents, n * 8, (off_t)(a / m->psz * 8));
		if (r < 0 || (size_t)r != n * 8)
			return cr_fail_sys(e, "read /proc/%d/pagemap at 0x%llx", m->c->pid,
					   (unsigned long long)a);
		for (size_t i = 0; i < n; i++, a += m->psz) {
			uint64_t pe = ents[i];
			bool present = pe >> 63 & 1, swapped = pe >> 62 & 1, file = pe >> 61 & 1;
			if (!(present || swapped) || (skip_file && file && !swapped) ||
			    (pe >> PM_GUARD_BIT & 1)) /* a guard page: vma_guards */
				continue;
			if (add_range(m, a, m->psz, fd, fd < 0 ? 0 : a, e))
				return -1;
		}
	}
	return 0;
}

/* [plo, phi): the part of the range the parent's VMA covered when the VMA is tracked (else empty): pages
 * not written since the parent's dump are the parent's. */
int dmm_scan_range(struct mm_state *m, uint64_t start, uint64_t end, bool skip_file, int fd, uint64_t plo,
		   uint64_t phi, struct cr_err *e)
{
	if (!m->scan_ok)
		return scan_fallback(m, start, end, skip_file, fd, e);
	struct pm_scan_arg a = {
	    .size = sizeof(a),
	    .start = start,
	    .end = end,
	    .vec = (uint64_t)(uintptr_t)m->vec,
	    .vec_len = m->vec_len,
	    .category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
	    .return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_FILE | PAGE_IS_PFNZERO |
			   (phi > plo ? PAGE_IS_WRITTEN : 0) | (m->guard_ok ? PAGE_IS_GUARD : 0),
	};
	while (a.start < end) {
		long n = ioctl(m->pagemap_fd, PAGEMAP_SCAN, &a);
		if (n < 0) {
			if (errno == ENOTTY || errno == EINVAL) {
				pr_info("PAGEMAP_SCAN: %s, reading /proc/pid/pagemap instead\n",
					strerror(errno));
				m->scan_ok = false;
				return scan_fallback(m, a.start, end, skip_file, fd, e);
			}
			return cr_fail_sys(e, "PAGEMAP_SCAN 0x%llx-0x%llx", (unsigned long long)a.start,
					   (unsigned long long)end);
		}
		uint64_t next = a.walk_end;
		for (long i = 0; i < n; i++) {
			const struct page_region *p = &m->vec[i];
			uint64_t cat = p->categories;
			if (p->end > next)
				next = p->end; /* walk_end may lag behind a full vector's last region */
			if (cat & (PAGE_IS_PFNZERO | PAGE_IS_GUARD)) /* (a guard page: vma_guards) */
				continue;
			if (skip_file && (cat & PAGE_IS_FILE) && !(cat & PAGE_IS_SWAPPED))
				continue;
			if (!(cat & (PAGE_IS_PRESENT | PAGE_IS_SWAPPED)))
				continue;
			if (phi > plo && !(cat & PAGE_IS_WRITTEN)) {
				if (add_unwritten(m, p->start, p->end, plo, phi, fd, e))
					return -1;
				continue;
			}
			if (phi > plo)
				m->written += p->end - p->start;
			if (add_range(m, p->start, p->end - p->start, fd, fd < 0 ? 0 : p->start, e))
				return -1;
		}
		if (next <= a.start)
			break;
		a.start = next;
	}
	return 0;
}

/* A VMA of this size or more whose pages are all its own (no parent) is scanned only as the copy comes to it
 * (cur_run), a step at a time: its scan (15 ms for 1 GiB) then runs in the copy's reading thread while the
 * writer thread writes, not before either of them starts. */
#define SCAN_LATER_MIN (8ull << 20)

static int scan_vma(struct mm_state *m, uint64_t start, uint64_t end, bool skip_file, int fd, uint64_t plo,
		    uint64_t phi, struct cr_err *e)
{
	if (phi > plo || m->trk || !m->scan_ok || end - start < SCAN_LATER_MIN)
		return dmm_scan_range(m, start, end, skip_file, fd, plo, phi, e);
	return prlist_add(&m->runs,
			  (struct prange){start, end - start, fd, fd < 0 ? 0 : start, true, skip_file}, e);
}

/* ---------------- the object a VMA maps ---------------- */

static bool is_vma_object(const struct stat *st, const struct proc_vma *v)
{
	return (uint64_t)st->st_ino == v->ino && major(st->st_dev) == v->dev_major &&
	       minor(st->st_dev) == v->dev_minor;
}

/* fd (O_PATH) if it is the object v maps, else closed: -1. */
static int map_src_check(int fd, const struct proc_vma *v)
{
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !is_vma_object(&st, v))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The file named nm (an absolute path, as /proc/PID/maps names it) in the root of process pid, resolved
 * within that root (its absolute symlinks and ".." stay in it, no magic links): O_PATH, or -1. */
static int map_src_root(pid_t pid, const char *nm)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	__cleanup_close int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	return rfd < 0 ? -1 : (int)syscall(SYS_openat2, rfd, nm, &how, sizeof(how));
}

/* An fd of process pid on the object v maps, opened here (O_PATH), or -1. */
static int map_src_fd(pid_t pid, const struct proc_vma *v)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	__cleanup_closedir DIR *d = opendir(dir);
	struct dirent *de;
	struct stat st;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, 0) || !is_vma_object(&st, v))
			continue;
		/* (the task may have put another file at that fd since: checked again on what was opened) */
		int fd = map_src_check(openat(dirfd(d), de->d_name, O_PATH | O_CLOEXEC), v);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

int dump_map_src(pid_t pid, const struct proc_vma *v, char *src, size_t srcsz, int *fd, struct cr_err *e)
{
	struct stat st;
	*fd = -1;
	snprintf(src, srcsz, "/proc/%d/map_files/%llx-%llx", pid, (unsigned long long)v->start,
		 (unsigned long long)v->end);
	if (!stat(src, &st) || (errno != EPERM && errno != EACCES))
		return 0; /* (any other failure: the caller's open or stat says it) */
	/* the file by its name in the process's root, if that is the one mapped (not deleted, not renamed
	 * over), else an fd of the process on it: opened once, checked and used through that fd */
	const char *nm = v->name ? v->name : "";
	if (nm[0] == '/' && !strstr(nm, " (deleted)"))
		*fd = map_src_check(map_src_root(pid, nm), v);
	if (*fd < 0)
		*fd = map_src_fd(pid, v);
	if (*fd >= 0) {
		snprintf(src, srcsz, "/proc/self/fd/%d", *fd);
		return 0;
	}
	return cr_fail_errno(
	    e, EPERM,
	    "task %d: mapping 0x%llx-0x%llx of %s: /proc/%d/map_files is closed to crshim (it "
	    "needs CAP_CHECKPOINT_RESTORE in the host's user namespace) and the file is neither "
	    "at that path in the task's root nor an open fd of the task",
	    pid, (unsigned long long)v->start, (unsigned long long)v->end, nm[0] ? nm : "?", pid);
}

/* A shared memory object (shared anonymous memory, a memfd): dumped once for the tree (dump-shmem.c). */
static int vma_shmem(struct mm_state *m, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	char path[PATH_MAX];
	__cleanup_close int sfd = -1; /* (path may be /proc/self/fd/ of it) */
	if (dump_map_src(m->c->pid, v, path, sizeof(path), &sfd, e))
		return -1;
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", path);
	if (dump_shmem_add(m->c, fd, &ve->shmid, e))
		return -1;
	ve->has_shmid = 1;
	return 0;
}

/* ---------------- what the tree's tasks share ---------------- */

/* A file mapped by the tree, known by what /proc/PID/maps says of it (device, inode and name: the same for
 * every VMA of it, in every task of a mount namespace): its map_files link read and stat'ed once, not once
 * per VMA (a process's libc alone is five VMAs, and a tree of 2000 has 2000 of each). */
struct vmfile {
	struct vmfile *next;
	uint64_t mnt_dev, mnt_ino; /* the mount namespace (a name is a path in it) */
	unsigned dev_major, dev_minor;
	uint64_t ino;
	char *name; /* the maps name */
	char *path; /* the link's target */
	char *src;  /* where map_files is closed to crshim: the path it was opened through (dump_map_src) */
	int src_fd; /* and the fd that path names (-1: none), open as long as the table */
	struct stat st;
};

#define VMFILE_HASH 256

struct dump_mmtree {
	uint8_t *mem; /* PBUF_NR buffers of PBUF_SIZE, mapped at the first task with pages */
	struct vmfile *files[VMFILE_HASH];
};

int dump_mmtree_new(struct dump_mmtree **t, struct cr_err *e)
{
	*t = calloc(1, sizeof(**t));
	return *t ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
}

void dump_mmtree_free(struct dump_mmtree *t)
{
	if (!t)
		return;
	if (t->mem)
		munmap(t->mem, (size_t)PBUF_SIZE * PBUF_NR);
	for (size_t i = 0; i < VMFILE_HASH; i++)
		for (struct vmfile *f = t->files[i], *n; f; f = n) {
			n = f->next;
			free(f->name);
			free(f->path);
			free(f->src);
			if (f->src_fd >= 0)
				close(f->src_fd);
			free(f);
		}
	free(t);
}

static size_t vmfile_hash(const struct dump_ctx *c, const struct proc_vma *v)
{
	uint64_t h =
	    (v->ino + c->mnt_ino) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)v->dev_major << 20 | v->dev_minor);
	for (const char *p = v->name; *p; p++)
		h = h * 31 + (unsigned char)*p;
	return (size_t)(h % VMFILE_HASH);
}

/* The file of a VMA of c (name: its map_files link): from the tree's table, else read now and kept. */
static int vmfile_get(struct dump_ctx *c, const struct proc_vma *v, const char *name,
		      const struct vmfile **out, struct cr_err *e)
{
	struct dump_mmtree *t = c->mmt;
	if (!c->mnt_ino) { /* (read by dump_pidns, but for a pre-dump; unknown: 0) */
		char ns[64];
		struct stat st;
		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", c->pid);
		if (!stat(ns, &st))
			c->mnt_dev = st.st_dev, c->mnt_ino = st.st_ino;
	}
	size_t h = vmfile_hash(c, v);
	for (const struct vmfile *f = t->files[h]; f; f = f->next)
		if (f->ino == v->ino && f->dev_major == v->dev_major && f->dev_minor == v->dev_minor &&
		    f->mnt_ino == c->mnt_ino && f->mnt_dev == c->mnt_dev && !strcmp(f->name, v->name)) {
			*out = f;
			return 0;
		}
	char path[PATH_MAX + 1];
	ssize_t n = readlink(name, path, sizeof(path) - 1);
	if (n < 0)
		return cr_fail_sys(e, "readlink %s", name);
	path[n] = '\0';
	struct vmfile *f = calloc(1, sizeof(*f));
	if (!f)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	char src[PATH_MAX];
	__cleanup_close int sfd = -1;
	if (dump_map_src(c->pid, v, src, sizeof(src), &sfd, e)) {
		free(f);
		return -1;
	}
	if (sfd >= 0 ? fstat(sfd, &f->st) : stat(src, &f->st)) {
		free(f);
		return cr_fail_sys(e, "stat %s (%s)", src, path);
	}
	f->dev_major = v->dev_major, f->dev_minor = v->dev_minor, f->ino = v->ino;
	f->mnt_dev = c->mnt_dev, f->mnt_ino = c->mnt_ino;
	f->name = strdup(v->name);
	f->path = strdup(path);
	f->src = strcmp(src, name) ? strdup(src) : NULL;
	if (!f->name || !f->path || (!f->src && strcmp(src, name))) {
		free(f->name);
		free(f->path);
		free(f->src);
		free(f);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	f->src_fd = steal_fd(sfd);
	f->next = t->files[h];
	t->files[h] = f;
	*out = f;
	return 0;
}

/* ---------------- VMAs ---------------- */

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool ends(const char *s, const char *p)
{
	size_t l = strlen(s), pl = strlen(p);
	return l >= pl && !strcmp(s + l - pl, p);
}

static int vma_file(struct dump_ctx *c, const struct proc_vma *v, VmaEntry *ve, bool shared, struct cr_err *e)
{
	char name[96], path[PATH_MAX + 1];
	const struct vmfile *f;
	ve->kind = shared ? VMA_KIND__VMA_FILE_SHARED : VMA_KIND__VMA_FILE_PRIVATE;
	bool rw = shared && ((ve->prot & PROT_WRITE) || (v->vmflags & PROC_VMA_MW));
	if (starts(v->name, "/memfd:")) { /* the object is dumped once (vma_pages), the path names it */
		ve->deleted = 1, ve->has_deleted = 1;
		ve->file_flags = rw ? O_RDWR : O_RDONLY, ve->has_file_flags = 1;
		ve->path = strdup(v->name);
		return ve->path ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
	}
	snprintf(name, sizeof(name), "/proc/%d/map_files/%llx-%llx", c->pid, (unsigned long long)v->start,
		 (unsigned long long)v->end);
	if (vmfile_get(c, v, name, &f, e))
		return -1;
	const struct stat *st = &f->st;
	if (S_ISSOCK(st->st_mode)) /* a packet socket's rings (PACKET_RX_RING/TX_RING), shared or private */
		return dump_pkt_ring_vma(c->pid, v->start, v->end, v->pgoff, (uint64_t)st->st_ino, ve, e);
	ve->file_flags = rw ? O_RDWR : O_RDONLY, ve->has_file_flags = 1;
	snprintf(path, sizeof(path), "%s", f->path);
	if (ends(v->name, " (deleted)")) { /* its contents go to ghost-PID.img, found again by dev/ino */
		char what[64];
		uint32_t gid;
		ve->deleted = 1, ve->has_deleted = 1;
		snprintf(what, sizeof(what), "mapping 0x%llx-0x%llx", (unsigned long long)v->start,
			 (unsigned long long)v->end);
		if (dump_ghost_add(c, f->src ? f->src : name, st, path, what, &gid, e))
			return -1;
		if (ends(path, " (deleted)"))
			path[strlen(path) - strlen(" (deleted)")] = '\0';
		if (dump_ghost_own_dir(c, what, path, gid, st->st_dev, &ve->ghost_mnt, &ve->ghost_name, e))
			return -1;
	}
	ve->path = strdup(path);
	if (!ve->path)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ve->dev = (uint64_t)st->st_dev, ve->has_dev = 1;
	ve->ino = (uint64_t)st->st_ino, ve->has_ino = 1;
	ve->file_size = (uint64_t)st->st_size, ve->has_file_size = 1;
	return 0;
}

/* The ring of an AIO context (io_setup): its header as the kernel lays it out (struct aio_ring). */
#define AIO_RING_MAGIC 0xa10a10a1u
struct aio_ring_hdr {
	uint32_t id, nr, head, tail, magic, compat, incompat, header_length;
};

/* An AIO ring: restored by a new io_setup whose ring the blob moves here (the address is the context's id),
 * brought to the same head and tail, with the saved events (its pages are saved whole, vma_pages).
 * Requests still in flight at the dump are not seen (as with CRIU): their completions are lost. */
static int vma_aio(struct dump_ctx *c, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	struct aio_ring_hdr h;
	struct iovec l = {&h, sizeof(h)}, r = {(void *)(uintptr_t)v->start, sizeof(h)};
	if (process_vm_readv(c->pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(h))
		return cr_fail_sys(e, "read the AIO ring at 0x%llx", (unsigned long long)v->start);
	if (h.magic != AIO_RING_MAGIC || h.header_length != sizeof(h) || !h.nr || h.head >= h.nr ||
	    h.tail >= h.nr || sizeof(h) + (uint64_t)h.nr * 32 > v->end - v->start)
		return cr_fail(e, "AIO ring at 0x%llx: unknown layout (magic %#x, nr %u, head %u, tail %u)",
			       (unsigned long long)v->start, h.magic, h.nr, h.head, h.tail);
	ve->kind = VMA_KIND__VMA_AIO_RING;
	ve->aio_nr = h.nr, ve->has_aio_nr = 1;
	return 0;
}

/* Anonymous hugetlb memory (MAP_HUGETLB, "/anon_hugepage (deleted)"): shared, one object of the tree as
 * other shared anonymous memory (dump-shmem.c knows its page size); private, mapped again with MAP_HUGETLB
 * and the page size, its pages dumped as those of other private memory. */
static int vma_hugetlb_anon(struct dump_ctx *c, const struct proc_vma *v, VmaEntry *ve, bool shared,
			    struct cr_err *e)
{
	char name[PATH_MAX];
	struct statfs sf;
	ve->flags |= MAP_ANONYMOUS;
	if (shared) {
		ve->kind = VMA_KIND__VMA_ANON_SHARED; /* vma_pages: vma_shmem names the object */
		return 0;
	}
	__cleanup_close int sfd = -1;
	if (dump_map_src(c->pid, v, name, sizeof(name), &sfd, e))
		return -1;
	if (statfs(name, &sf))
		return cr_fail_sys(e, "statfs %s (hugetlb memory)", name);
	ve->kind = VMA_KIND__VMA_ANON_PRIVATE;
	ve->flags |= MAP_HUGETLB | shmem_huge_flag((uint64_t)sf.f_bsize);
	return 0;
}

static int vma_classify(struct dump_ctx *c, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	static const struct {
		const char *name;
		VmaKind kind;
	} special[] = {{"[heap]", VMA_KIND__VMA_HEAP},
		       {"[stack]", VMA_KIND__VMA_STACK},
		       {"[vdso]", VMA_KIND__VMA_VDSO},
		       {"[vvar]", VMA_KIND__VMA_VVAR},
		       {"[vvar_vclock]", VMA_KIND__VMA_VVAR_VCLOCK},
		       {"[vsyscall]", VMA_KIND__VMA_VSYSCALL}};
	bool shared = v->perms[3] == 's';
	ve->start = v->start, ve->has_start = 1;
	ve->end = v->end, ve->has_end = 1;
	ve->pgoff = v->pgoff, ve->has_pgoff = 1;
	ve->prot = (v->perms[0] == 'r' ? PROT_READ : 0) | (v->perms[1] == 'w' ? PROT_WRITE : 0) |
		   (v->perms[2] == 'x' ? PROT_EXEC : 0);
	ve->has_prot = 1;
	ve->flags = (shared			  ? MAP_SHARED
		     : (v->vmflags & PROC_VMA_DP) ? MAP_DROPPABLE_ /* its pages may go under pressure */
						  : MAP_PRIVATE) |
		    ((v->vmflags & PROC_VMA_GD) ? MAP_GROWSDOWN : 0) |
		    ((v->vmflags & PROC_VMA_NR) ? MAP_NORESERVE : 0);
	ve->has_flags = 1;
	ve->madv = v->madv, ve->has_madv = 1;
	ve->has_kind = 1;
	for (size_t i = 0; i < ARRAY_SIZE(special); i++)
		if (!strcmp(v->name, special[i].name)) {
			ve->kind = special[i].kind;
			ve->flags |= MAP_ANONYMOUS;
			return 0;
		}
	if ((starts(v->name, "[anon:") || starts(v->name, "[anon_shmem:")) && ends(v->name, "]")) {
		const char *n = strchr(v->name, ':') + 1;
		ve->anon_name = strndup(n, strlen(n) - 1);
		if (!ve->anon_name)
			return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	if (shared && (starts(v->name, "/dev/zero (deleted)") || starts(v->name, "[anon_shmem:"))) {
		ve->kind = VMA_KIND__VMA_ANON_SHARED;
		ve->flags |= MAP_ANONYMOUS;
		ve->shmid = v->ino, ve->has_shmid = 1;
		return 0;
	}
	if (starts(v->name, "/dev/zero (deleted)") || starts(v->name, "[anon_shmem:")) {
		/* A private mapping of shared anonymous memory (opened through map_files): mapped from the
		 * object again (vma_pages), so that pages not copied yet keep following it. */
		ve->kind = VMA_KIND__VMA_FILE_PRIVATE;
		ve->deleted = 1, ve->has_deleted = 1;
		ve->file_flags = O_RDONLY, ve->has_file_flags = 1;
		ve->path = strdup(v->name);
		return ve->path ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
	}
	if (starts(v->name, "/SYSV"))
		return dump_ipc_shm_vma(c, v, ve, e);
	if ((v->vmflags & PROC_VMA_HT) && starts(v->name, "/anon_hugepage"))
		return vma_hugetlb_anon(c, v, ve, shared, e);
	if (shared && starts(v->name, "/[aio]"))
		return vma_aio(c, v, ve, e);
	if (!v->ino && !v->dev_major && !v->dev_minor && v->name[0] != '/') {
		if (shared)
			return cr_fail(e, "shared mapping of %s is not supported yet",
				       v->name[0] ? v->name : "?");
		ve->kind = VMA_KIND__VMA_ANON_PRIVATE;
		ve->flags |= MAP_ANONYMOUS;
		return 0;
	}
	return vma_file(c, v, ve, shared, e);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The part [*lo, *hi) of a tracked VMA that the parent's same VMA covered (same kind and file, same start
 * or same end: grown or shrunk in place), where pages not written since are the parent's; empty when the
 * VMA is new, moved or was not registered (it is then saved whole). */
static void vma_tracked(const struct mm_state *m, const struct proc_vma *v, const VmaEntry *ve, uint64_t *lo,
			uint64_t *hi)
{
	*lo = *hi = 0;
	if (!m->trk || !m->trk->inherited || !m->have_parent || !(v->vmflags & PROC_VMA_UW))
		return;
	for (size_t i = 0; i < m->pmm->n_vmas; i++) {
		const VmaEntry *p = m->pmm->vmas[i];
		if ((p->start != v->start && p->end != v->end) || p->end <= v->start || p->start >= v->end ||
		    p->kind != ve->kind || !same_str(p->path, ve->path))
			continue;
		*lo = p->start > v->start ? p->start : v->start;
		*hi = p->end < v->end ? p->end : v->end;
		return;
	}
}

/* Which pages of the VMA have contents to dump. */
static int vma_pages(struct mm_state *m, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e)
{
	uint64_t lo, hi;
	vma_tracked(m, v, ve, &lo, &hi);
	int fd = (ve->prot & PROT_READ) ? -1 : m->mem_fd; /* process_vm_readv cannot read PROT_NONE */
	/* (process_vm_readv pins what it reads, and the kernel first gives a pinned anonymous page shared
	 * copy-on-write with another process a copy of its own: see dump_mm_write. A page of the VMA that
	 * another process maps too, smaps' Shared_*, is read through /proc/PID/mem, which does not pin: a
	 * dump that then fails leaves the tree's sharing as it was. A private file VMA's clean shared pages
	 * are the file's, not copies: only its dirty ones count.) */
	bool shared = v->shared_dirty_kb || (ve->kind != VMA_KIND__VMA_FILE_PRIVATE && v->shared_clean_kb);
	if (m->no_readv || shared)
		fd = m->mem_fd;
	if (ve->flags & MAP_DROPPABLE_)
		return 0; /* its pages may be dropped at any time: restored empty, as CRIU does */
	switch (ve->kind) {
	case VMA_KIND__VMA_ANON_PRIVATE:
	case VMA_KIND__VMA_HEAP:
	case VMA_KIND__VMA_STACK:
		return scan_vma(m, v->start, v->end, false, fd, lo, hi, e);
	case VMA_KIND__VMA_FILE_PRIVATE:
		if (ve->deleted && !ve->has_ino && vma_shmem(m, v, ve, e)) /* a memfd (a ghost has dev/ino) */
			return -1;
		return scan_vma(m, v->start, v->end, true, fd, lo, hi, e);
	case VMA_KIND__VMA_FILE_SHARED:
		return ve->deleted && !ve->has_ino ? vma_shmem(m, v, ve, e) : 0;
	case VMA_KIND__VMA_ANON_SHARED:
		return vma_shmem(m, v, ve, e);
	case VMA_KIND__VMA_AIO_RING: /* the ring's header and events, whole */
		return add_range(m, v->start, v->end - v->start, fd, fd < 0 ? 0 : v->start, e);
	default:
		return 0;
	}
}

/* The buffers stay mapped for the whole dump: a fresh mapping per task cost a page fault per page of it on
 * the first process_vm_readv (most of the time of a tree of small processes). */
uint8_t *dmm_pagebuf(struct dump_mmtree *pb, struct cr_err *e)
{
	if (pb->mem)
		return pb->mem;
	void *a = mmap(NULL, (size_t)PBUF_SIZE * PBUF_NR, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (a == MAP_FAILED) {
		cr_fail_sys(e, "page buffers");
		return NULL;
	}
	pb->mem = a;
	return pb->mem;
}

/* ---------------- mm image ---------------- */

/* mlockall(MCL_FUTURE) is in no file: the kernel locks a VMA mapped under it (its size added to VmLck),
 * the scratch one too, and marks it "lf" as well under MCL_ONFAULT. */
int dump_mm_mlockall(struct dump_ctx *c, struct cr_err *e)
{
	struct proc_status st = {0};
	struct proc_vma *pv = NULL;
	size_t npv = 0;
	c->mlockall = 0;
	if (proc_parse_status(c->pid, &st, e))
		return -1;
	uint64_t now = st.vmlck_kb;
	proc_status_free(&st);
	if (now < c->st.vmlck_kb + c->in.scratch_len / 1024)
		return 0;
	if (proc_parse_smaps(c->pid, &pv, &npv, e))
		return -1;
	for (size_t i = 0; i < npv; i++)
		if (pv[i].start == c->in.scratch && (pv[i].madv & VMA_F_LOCKED))
			c->mlockall = MCL_FUTURE | ((pv[i].madv & VMA_F_LOCKONFAULT) ? MCL_ONFAULT : 0);
	proc_vmas_free(pv, npv);
	if (c->mlockall)
		pr_info("task %d: mlockall(MCL_FUTURE%s) in force\n", c->pid,
			(c->mlockall & MCL_ONFAULT) ? " | MCL_ONFAULT" : "");
	return 0;
}

static int fill_mm(struct dump_ctx *c, MmEntry *me, uint64_t **auxv, char **exe, struct cr_err *e)
{
	const int64_t *f = c->stat.f;
	me->start_code = (uint64_t)f[26], me->has_start_code = 1;
	me->end_code = (uint64_t)f[27], me->has_end_code = 1;
	me->start_stack = (uint64_t)f[28], me->has_start_stack = 1;
	me->start_data = (uint64_t)f[45], me->has_start_data = 1;
	me->end_data = (uint64_t)f[46], me->has_end_data = 1;
	me->start_brk = (uint64_t)f[47], me->has_start_brk = 1;
	me->arg_start = (uint64_t)f[48], me->has_arg_start = 1;
	me->arg_end = (uint64_t)f[49], me->has_arg_end = 1;
	me->env_start = (uint64_t)f[50], me->has_env_start = 1;
	me->env_end = (uint64_t)f[51], me->has_env_end = 1;
	me->brk = c->rem.brk, me->has_brk = 1;
	me->mlockall = c->mlockall, me->has_mlockall = c->mlockall != 0;
	char ksm[512], path[64];
	snprintf(path, sizeof(path), "/proc/%d/ksm_stat", c->pid); /* (none: a kernel without KSM) */
	if (proc_read_small(path, ksm, sizeof(ksm)) > 0 && strstr(ksm, "ksm_merge_any: yes"))
		me->ksm_merge_any = 1, me->has_ksm_merge_any = 1;
	char *raw;
	size_t len;
	if (proc_read(c->pid, "auxv", &raw, &len, e))
		return -1;
	*auxv = (uint64_t *)raw;
	size_t n = len / 8;
	for (size_t i = 0; i + 1 < n; i += 2)
		if ((*auxv)[i] == 0) { /* AT_NULL: keep the pair, drop anything after */
			n = i + 2;
			break;
		}
	me->n_auxv = n;
	me->auxv = *auxv;
	if (proc_readlink(c->pid, "exe", exe, e))
		return -1;
	me->exe_path = *exe;
	return 0;
}

static void free_vmas(VmaEntry **vp, size_t n)
{
	if (!vp)
		return;
	for (size_t i = 0; i < n; i++)
		if (vp[i]) {
			free(vp[i]->path);
			free(vp[i]->ghost_mnt);
			free(vp[i]->ghost_name);
			free(vp[i]->anon_name);
			free(vp[i]->guards);
		}
	free(vp[0]);
	free(vp);
}

static int collect_vmas(struct mm_state *m, struct proc_vma *pv, size_t n, VmaEntry ***out, struct cr_err *e)
{
	VmaEntry *ve = calloc(n ? n : 1, sizeof(*ve));
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	VmaEntry **vp = calloc(n ? n : 1, sizeof(*vp));
	if (!ve || !vp) {
		free(ve);
		free(vp);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	vp[0] = ve; /* free_vmas frees the array through vp[0] */
	for (size_t i = 0; i < n; i++) {
		vma_entry__init(&ve[i]);
		vp[i] = &ve[i];
	}
	*out = vp;
	size_t last = n; /* (the span of the VMAs of the user address space: not [vsyscall], beyond it) */
	while (last && !strcmp(pv[last - 1].name, "[vsyscall]"))
		last--;
	if (last)
		all_guards(m, pv[0].start, pv[last - 1].end);
	for (size_t i = 0; i < n; i++) {
		if (vma_classify(m->c, &pv[i], &ve[i], e) || vma_guards(m, &pv[i], &ve[i], e) ||
		    vma_pages(m, &pv[i], &ve[i], e))
			return cr_wrap(e, "vma 0x%llx-0x%llx", (unsigned long long)pv[i].start,
				       (unsigned long long)pv[i].end);
		dump_mm_mpol_fill(m->c, &ve[i]);
		pr_debug("vma %llx-%llx %s kind %d %s\n", (unsigned long long)pv[i].start,
			 (unsigned long long)pv[i].end, pv[i].perms, ve[i].kind, pv[i].name);
	}
	return 0;
}

static bool vma_private(const VmaEntry *ve)
{
	return ve->kind == VMA_KIND__VMA_ANON_PRIVATE || ve->kind == VMA_KIND__VMA_HEAP ||
	       ve->kind == VMA_KIND__VMA_STACK || ve->kind == VMA_KIND__VMA_FILE_PRIVATE;
}

/* Pre-dump --track-mem, the task still frozen and its pages found: private VMAs not registered yet are
 * registered for async write-protect, and every registered one is write-protected (again), so that the
 * next dump finds the pages written from now on. A VMA that cannot be registered is saved whole. */
static int track_protect(struct mm_state *m, const struct proc_vma *pv, VmaEntry **vp, size_t n,
			 struct cr_err *e)
{
	size_t nreg = 0, nprot = 0;
	for (size_t i = 0; i < n; i++) {
		if (!vma_private(vp[i]))
			continue;
		bool reg = pv[i].vmflags & PROC_VMA_UW;
		if (reg && !m->trk->inherited)
			continue; /* another userfaultfd's (the task's own): not ours to touch */
		if (!reg) {
			if (mem_track_register(m->trk->uffd, pv[i].start, pv[i].end)) {
				pr_debug("vma %llx-%llx: not tracked (%s)\n", (unsigned long long)pv[i].start,
					 (unsigned long long)pv[i].end, strerror(errno));
				continue;
			}
			nreg++;
		} else {
			mem_track_touched(m->c->trk);
		}
		if (mem_track_protect(m->pagemap_fd, pv[i].start, pv[i].end, e))
			return cr_wrap(e, "vma 0x%llx", (unsigned long long)pv[i].start);
		if (++nprot == 2 && fault_check(m->c->o, FI_PREDUMP_TRACK_MID, e))
			return -1;
	}
	pr_info("tracking: %zu vmas write-protected (%zu newly registered)\n", nprot, nreg);
	return 0;
}

static int write_pages(struct mm_state *m, struct cr_err *e)
{
	struct page_writer *pw;
	uint64_t total;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pw_open_px(m->c->dirfd, m->c->px, IMG_PAGEMAP, IMG_PAGES, m->c->pid, &pw, e))
		return -1;
	bool enospc = fault_injected(m->c->o, FI_DUMP_ENOSPC);
	if (enospc)
		pw_inject_error(pw, ENOSPC);
	if (dmm_copy_pages(m, pw, &total, e)) {
		pw_abort(pw);
		return enospc ? cr_wrap(e, "fault injected at %s", fault_name(FI_DUMP_ENOSPC)) : -1;
	}
	if (m->npar)
		pw_set_parent(pw, m->ppm.map_csum);
	for (size_t i = 0; i < m->npar; i++)
		if (pw_add_parent(pw, m->par[i].vaddr, m->par[i].len, e)) {
			pw_abort(pw);
			return -1;
		}
	if (pw_commit(pw, e))
		return -1;
	if (dump_created(m->c, IMG_PAGES, m->c->pid, e) || dump_created(m->c, IMG_PAGEMAP, m->c->pid, e))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	struct cr_stats *st = m->c->o->stats;
	uint64_t psz = m->psz;
	CR_STAT_ADD(st, memwrite_us, cr_us_since(&t0));
	CR_STAT_ADD(st, pages_written, total / psz);
	CR_STAT_ADD(st, pages_skipped_parent, m->in_parent / psz);
	CR_STAT_ADD(st, pages_scanned, (total + m->in_parent) / psz);
	pr_info("pages: %llu bytes in %zu runs, %.3f s (%.2f GB/s)\n", (unsigned long long)total, m->runs.nr,
		s, s > 0 ? (double)total / s / 1e9 : 0.0);
	if (m->have_parent)
		pr_info("incremental: %llu bytes written since the parent, %llu bytes left in the parent\n",
			(unsigned long long)m->written, (unsigned long long)m->in_parent);
	return 0;
}

/* The task's tracking, and the parent's pagemap and VMAs when its userfaultfd came from the parent. */
static int track_setup(struct mm_state *m, struct cr_err *e)
{
	struct dump_ctx *c = m->c;
	int pfd = mem_track_parent_dirfd(c->trk);
	ProtobufCMessage *msg = NULL;
	struct cr_err e2 = {0};
	if (!c->trk)
		return 0;
	m->pre_dump = c->o->pre_dump;
	m->trk = mem_track_find(c->trk, c->pid, (uint64_t)c->stat.f[22]);
	if (!m->trk || !m->trk->inherited || pfd < 0)
		return 0;
	if (pm_open_map(pfd, IMG_PAGEMAP, IMG_PAGES, c->pid, &m->ppm, &e2) ||
	    img_read_one(pfd, IMG_MM, c->pid, &msg, &e2)) {
		pr_warn("task %d: the parent images do not serve (%s): every page is saved\n", c->pid,
			e2.msg);
		if (m->ppm.blocks || m->ppm.pages_fd >= 0)
			pm_free(&m->ppm);
		return 0;
	}
	m->pmm = (MmEntry *)msg;
	m->have_parent = true;
	(void)e;
	return 0;
}

int dump_mm_write(struct dump_ctx *c, struct cr_err *e)
{
	struct mm_state m = {.c = c,
			     .psz = (uint64_t)sysconf(_SC_PAGESIZE),
			     .pagemap_fd = -1,
			     .mem_fd = -1,
			     .scan_ok = true,
			     .guard_ok = true,
			     .vec_len = 4096};
	m.out = &m.runs;
	struct proc_vma *pv = NULL;
	size_t npv = 0;
	VmaEntry **vp = NULL;
	MmEntry me = MM_ENTRY__INIT;
	__cleanup_free uint64_t *auxv = NULL;
	__cleanup_free char *exe = NULL;
	char path[64];
	int ret = -1;

	m.scan_ok = !fault_injected(c->o, FI_NO_PAGEMAP_SCAN);
	/* A tree left running is read through /proc/PID/mem: process_vm_readv pins the pages it reads, and
	 * the kernel gives a pinned anonymous page shared copy-on-write with another process (a parent's, a
	 * child's) a copy of its own first, so the dump unshared all the copy-on-write memory of a forked
	 * tree (a 32 MiB region shared by three processes became three). A tree the dump kills is read so
	 * too where a VMA has pages another process maps (vma_pages): a dump that fails leaves it running. */
	m.no_readv = fault_injected(c->o, FI_NO_VM_READV) || c->o->leave_running || c->o->pre_dump;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", c->pid);
	m.pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
	m.mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	m.vec = calloc(m.vec_len, sizeof(*m.vec));
	if (m.pagemap_fd < 0 || m.mem_fd < 0) {
		cr_fail_sys(e, "open /proc/%d/pagemap or mem", c->pid);
		goto out;
	}
	if (!m.vec) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto out;
	}
	if (track_setup(&m, e))
		goto out;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (proc_parse_smaps(c->pid, &pv, &npv, e) || collect_vmas(&m, pv, npv, &vp, e))
		goto out;
	CR_STAT_ADD(c->o->stats, memdump_us, cr_us_since(&t0));
	if (m.trk && m.pre_dump && track_protect(&m, pv, vp, npv, e))
		goto out;
	if (fill_mm(c, &me, &auxv, &exe, e))
		goto out;
	me.n_vmas = npv;
	me.vmas = vp;
	if (dump_write_one(c, IMG_MM, &me.base, e) || write_pages(&m, e))
		goto out;
	pr_info("mm: %zu vmas\n", npv);
	ret = 0;
out:
	if (ret)
		cr_wrap(e, "mm");
	free_vmas(vp, npv);
	proc_vmas_free(pv, npv);
	free(m.runs.r);
	free(m.part.r);
	free(m.guards);
	free(m.par);
	free(m.vec);
	if (m.have_parent)
		pm_free(&m.ppm);
	if (m.pmm)
		mm_entry__free_unpacked(m.pmm, NULL);
	if (m.pagemap_fd >= 0)
		close(m.pagemap_fd);
	if (m.mem_fd >= 0)
		close(m.mem_fd);
	return ret;
}
