/* Restore: copy-on-write sharing of private anonymous memory and private file mappings between a process
 * and the children it clones.
 *
 * A process of the tree (child side, before it clones its children) maps its private anonymous VMAs (and
 * private mappings of files opened by path: the same file at the same offset) that a child of its own has
 * too (same start and end) at their final place and fills them from its pages; the
 * children inherit them with clone3 like any memory of a fork. A child whose spawner did so keeps such a
 * VMA when its image has one at the same place: it writes only the pages whose contents differ from the
 * spawner's and drops (MADV_DONTNEED) those its image does not hold, so the pages nobody changed stay one
 * copy, as before the dump. The blob keeps these VMAs like crshim's prefilled ones (rst_vma.prefilled,
 * their page runs emptied). Where the place is taken (MAP_FIXED_NOREPLACE) the VMA is left to the blob, as
 * without sharing. Not with --lazy-pages (lazy-pages copies each page in), nor with shared address spaces. */
#define LOG_PREFIX "restore-cow: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "base/proc.h"
#include "mem/mpol.h"
#include "restore.h"

#define COW_BUF (1ul << 20)
/* What decides whether an inherited VMA is kept (mostly the same contents as the spawner's): its first 64
 * KiB. A whole MiB was read and compared first: in a tree whose processes each hold memory of their own at
 * their parent's place, a MiB read twice (here and by the blob) per process, and the buffer's MiB populated.
 */
#define COW_SAMPLE (64ul << 10)

static bool cow_able(const struct rst_task *t)
{
	return t->mm && t->args && t->vma_prefilled && !t->zombie && !t->helper && !t->lazy && !t->svm_any &&
	       !rst_svm_sharer(t);
}

/* The first of the blob's entries of t (sorted by start) that starts at s or above. */
static size_t rv_from(const struct rst_task *t, uint64_t s)
{
	const struct rst_vma *rv = (const struct rst_vma *)(uintptr_t)t->args->vmas;
	size_t lo = 0, hi = t->args->nr_vmas;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rv[mid].start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The image's VMA of t that starts at s (sorted), NULL if none. */
static const VmaEntry *vma_at(const struct rst_task *t, uint64_t s)
{
	size_t lo = 0, hi = t->mm->n_vmas;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->mm->vmas[mid]->start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->mm->n_vmas && t->mm->vmas[lo]->start == s ? t->mm->vmas[lo] : NULL;
}

/* A private mapping of a file opened by its path (not a ghost, a memfd or shared memory, which are fds of
 * crshim's): its VMA in the image, else NULL. */
static const VmaEntry *cow_file(const struct rst_task *t, const struct rst_vma *r)
{
	const VmaEntry *v = vma_at(t, r->start);
	if (!v || v->kind != VMA_KIND__VMA_FILE_PRIVATE || v->has_shmid || v->deleted || !v->path ||
	    !v->has_ino || r->mfile < 0 || (size_t)r->mfile >= t->nr_mfiles)
		return NULL;
	const struct rst_mfile *f = &t->mfiles[r->mfile];
	return f->fd < 0 && !f->task_fd1 && !strncmp(f->path, "/", 1) && strncmp(f->path, "/proc/", 6) ? v
												       : NULL;
}

/* Private anonymous memory, or a private file mapping, that may be shared (not hugetlb: its pages are
 * huge). */
static bool cow_ok(const struct rst_task *t, const struct rst_vma *r)
{
	return (r->kind == RST_VMA_ANON || (r->kind == RST_VMA_FILE && cow_file(t, r))) && !r->prefilled &&
	       !r->lazy && !(r->flags & (MAP_GROWSDOWN | MAP_DROPPABLE_ | MAP_HUGETLB));
}

/* The blob's entry of the VMA [s, e) of t if it may be shared, else NULL. */
static struct rst_vma *cow_vma(const struct rst_task *t, uint64_t s, uint64_t e)
{
	struct rst_vma *r = (struct rst_vma *)(uintptr_t)t->args->vmas + rv_from(t, s);
	if (r == (struct rst_vma *)(uintptr_t)t->args->vmas + t->args->nr_vmas || r->start != s ||
	    r->end != e || !cow_ok(t, r))
		return NULL;
	return r;
}

/* The VMA of the image of p that holds [s, e) whole, if p filled it (rst_cow_fill); else -1. */
static long filled_holding(const struct rst_task *p, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = p->mm->n_vmas;
	while (lo < hi) { /* the last one that starts at s or below */
		size_t mid = lo + (hi - lo) / 2;
		if (p->mm->vmas[mid]->start <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !p->vma_prefilled[lo - 1] || p->mm->vmas[lo - 1]->end < e)
		return -1;
	return (long)lo - 1;
}

/* The children t clones that may share memory with it (their areas are mapped here): indexes in kids. */
static size_t cow_kids(const struct rst_task *t, size_t *kids)
{
	long ti = t - t->tree;
	size_t n = 0;
	for (size_t j = 0; j < t->ntree; j++)
		if (t->tree[j].spawn_idx == ti && cow_able(&t->tree[j]))
			kids[n++] = j;
	return n;
}

/* Some of those children has a VMA that may be shared inside [s, e). */
static bool child_has(const struct rst_task *t, const size_t *kids, size_t nk, uint64_t s, uint64_t e)
{
	for (size_t k = 0; k < nk; k++) {
		const struct rst_task *c = &t->tree[kids[k]];
		const struct rst_vma *rv = (const struct rst_vma *)(uintptr_t)c->args->vmas;
		for (size_t i = rv_from(c, s); i < c->args->nr_vmas && rv[i].start < e; i++)
			if (rv[i].end <= e && cow_ok(c, &rv[i]))
				return true;
	}
	return false;
}

/* The file a page run is in: the task's pages, or a parent images dir's (a chained restore; those fds are
 * kept in mfiles, which a parent restoring our fd table keeps up to date). */
static int run_fd(const struct rst_task *t, const struct rst_pblock *b)
{
	return b->src ? t->mfiles[t->args->src_mfile + b->src - 1u].fd : t->pm.pages_fd;
}

/* A run into memory of our own: read in place. */
static int fill_run(const struct rst_task *t, const struct rst_pblock *b)
{
	void *dst = (void *)(uintptr_t)b->vaddr;
	if (madvise(dst, b->len, MADV_POPULATE_WRITE) && errno != EINVAL)
		return -1;
	return rst_pread_all(run_fd(t, b), dst, b->len, b->off);
}

/* [dst, dst + len) gets src: the inherited pages are dropped and the range populated again in one go (a
 * copy-on-write fault per page costs a TLB flush each, an IPI to every CPU the process ran on: a tree of
 * 500 processes with 1 MiB each restored in 24 s instead of 11). */
static int replace(uint8_t *dst, const uint8_t *src, uint64_t len)
{
	if (madvise(dst, len, MADV_DONTNEED) || (madvise(dst, len, MADV_POPULATE_WRITE) && errno != EINVAL))
		return -1;
	memcpy(dst, src, len);
	return 0;
}

#define COW_PAGES_MAX (COW_BUF / 4096)

/* Which of the np pages at a and b differ (d), and how many. */
static uint64_t pages_differ(const uint8_t *a, const uint8_t *b, uint64_t np, uint64_t psz, bool *d)
{
	uint64_t nd = 0;
	for (uint64_t k = 0; k < np; k++)
		nd += d[k] = memcmp(a + k * psz, b + k * psz, psz) != 0;
	return nd;
}

/* n bytes of fd at off into buf (its pages populated in one go as far as they are used). */
static int read_buf(int fd, uint8_t *buf, uint64_t n, uint64_t off)
{
	if (madvise(buf, n, MADV_POPULATE_WRITE) && errno != EINVAL)
		return -1;
	return rst_pread_all(fd, buf, n, off);
}

/* A run into memory inherited from the spawner: only the pages that differ are written. *decide: this is
 * the first chunk of the VMA and it decides (mostly other contents: *other, nothing written; see
 * worth_keeping); that chunk is COW_SAMPLE bytes. Each page is read and compared once. */
static int diff_run(const struct rst_task *t, const struct rst_pblock *b, uint8_t *buf, uint64_t *written,
		    bool *decide, bool *other)
{
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE);
	bool d[COW_PAGES_MAX];
	for (uint64_t done = 0; done < b->len;) {
		uint64_t most = *decide ? COW_SAMPLE : COW_BUF;
		uint64_t n = b->len - done < most ? b->len - done : most, np = n / psz, from = np;
		uint8_t *dst = (uint8_t *)(uintptr_t)(b->vaddr + done);
		if (read_buf(run_fd(t, b), buf, n, b->off + done))
			return -1;
		uint64_t nd = pages_differ(dst, buf, np, psz, d);
		if (*decide) {
			*decide = false;
			if (nd * 2 > np) {
				*other = true;
				return 0;
			}
		}
		for (uint64_t k = 0; k <= np; k++) { /* from: where the pages that differ began */
			bool differs = k < np && d[k];
			if (differs && from == np)
				from = k;
			if (differs || from == np)
				continue;
			if (replace(dst + from * psz, buf + from * psz, (k - from) * psz))
				return -1;
			*written += (k - from) * psz;
			from = np;
		}
		done += n;
	}
	return 0;
}

/* The inherited pages the image does not hold go: [from, to) between the runs. */
static int drop_gap(uint64_t from, uint64_t to)
{
	if (from >= to)
		return 0;
	return madvise((void *)(uintptr_t)from, to - from, MADV_DONTNEED);
}

/* VMA r (mm->vmas[i]) of t: fill it (own) or bring the spawner's copy to t's contents (inherited; decide:
 * its first chunk decides whether to keep it). 1: an inherited one of mostly other contents, left as it was
 * (not kept). */
static int cow_take(struct rst_task *t, struct rst_vma *r, bool inherited, bool decide, uint8_t *buf,
		    uint64_t *written, char *msg, size_t len)
{
	struct rst_pblock *rb = (struct rst_pblock *)(uintptr_t)t->args->blocks;
	uint64_t at = r->start;
	bool other = false;
	for (uint32_t k = r->first_block; k < r->first_block + r->nr_blocks; k++) {
		struct rst_pblock *b = &rb[k];
		if ((inherited &&
		     (drop_gap(at, b->vaddr) || diff_run(t, b, buf, written, &decide, &other))) ||
		    (!inherited && fill_run(t, b))) {
			snprintf(msg, len, "task %d: fill the private memory at 0x%llx: %s", t->pid,
				 (unsigned long long)b->vaddr, strerror(errno));
			return -1;
		}
		if (other)
			return 1; /* (nothing of it written yet, no run taken from the blob) */
		at = b->vaddr + b->len;
	}
	if (inherited && drop_gap(at, r->end)) {
		snprintf(msg, len, "task %d: drop pages at 0x%llx: %s", t->pid, (unsigned long long)at,
			 strerror(errno));
		return -1;
	}
	for (uint32_t k = r->first_block; k < r->first_block + r->nr_blocks; k++)
		rb[k].len = 0; /* in place: the blob reads nothing there */
	r->prefilled = 1;
	r->thp = 0;
	return 0;
}

static void unmap_range(uint64_t from, uint64_t to)
{
	if (from < to)
		munmap((void *)(uintptr_t)from, to - from);
}

/* t's VMA v and p's VMA pv, which holds it, have the same backing: both anonymous, or the same file at the
 * same offset. */
static bool same_backing(const VmaEntry *v, const VmaEntry *pv)
{
	if (v->kind != VMA_KIND__VMA_FILE_PRIVATE || pv->kind != VMA_KIND__VMA_FILE_PRIVATE)
		return v->kind != VMA_KIND__VMA_FILE_PRIVATE && pv->kind != VMA_KIND__VMA_FILE_PRIVATE;
	return pv->path && v->path && !strcmp(pv->path, v->path) && pv->dev == v->dev && pv->ino == v->ino &&
	       pv->pgoff + (v->start - pv->start) == v->pgoff;
}

/* t's VMAs that lie in one its spawner p filled: marked in inh. The rest of p's filled VMAs goes (it would
 * be in the way of t's own). */
static void cow_inherit(struct rst_task *t, const struct rst_task *p, bool *inh)
{
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		long j = filled_holding(p, v->start, v->end);
		inh[i] = !t->vma_prefilled[i] && cow_vma(t, v->start, v->end) && j >= 0 &&
			 same_backing(v, p->mm->vmas[j]);
	}
	size_t i = 0;
	for (size_t j = 0; j < p->mm->n_vmas; j++) {
		uint64_t ps = p->mm->vmas[j]->start, pe = p->mm->vmas[j]->end, at = ps;
		if (!p->vma_prefilled[j])
			continue;
		while (i < t->mm->n_vmas && t->mm->vmas[i]->end <= ps)
			i++;
		for (size_t k = i; k < t->mm->n_vmas && t->mm->vmas[k]->start < pe; k++)
			if (inh[k]) {
				unmap_range(at, t->mm->vmas[k]->start);
				at = t->mm->vmas[k]->end;
			}
		unmap_range(at, pe);
	}
}

static void unmap_buf(uint8_t *buf)
{
	if (buf)
		munmap(buf, COW_BUF);
}

/* A buffer for the pages read, populated as it is used (read_buf: a fault per page costs; malloc's memory is
 * crshim's, copy on write). */
static int map_buf(const struct rst_task *t, uint8_t **buf, char *msg, size_t len)
{
	if (*buf)
		return 0;
	void *m = mmap(NULL, COW_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return snprintf(msg, len, "task %d: a buffer: %s", t->pid, strerror(errno)), -1;
	*buf = m;
	return 0;
}

/* Most of the first COW_SAMPLE bytes of t's pages in r are the same as the inherited ones. Else the spawner's
 * copy is not kept: writing most of it costs a TLB flush per run of pages that differ (an IPI to each CPU the
 * process ran on), more than the blob's fresh mapping (a tree of 500 processes with 1 MiB each of their
 * own at the same place: a restore of 18 s instead of 11). */
static int worth_keeping(const struct rst_task *t, const struct rst_vma *r, uint8_t *buf, bool *yes)
{
	const struct rst_pblock *rb = (const struct rst_pblock *)(uintptr_t)t->args->blocks;
	uint64_t psz = (uint64_t)sysconf(_SC_PAGESIZE), seen = 0, differ = 0;
	for (uint32_t k = r->first_block; k < r->first_block + r->nr_blocks && seen < COW_SAMPLE; k++) {
		uint64_t n = rb[k].len < COW_SAMPLE - seen ? rb[k].len : COW_SAMPLE - seen;
		if (read_buf(run_fd(t, &rb[k]), buf, n, rb[k].off))
			return -1;
		for (uint64_t o = 0; o < n; o += psz)
			differ += memcmp((const uint8_t *)(uintptr_t)(rb[k].vaddr + o), buf + o, psz) != 0;
		seen += n;
	}
	*yes = differ * 2 <= seen / psz;
	return 0;
}

struct cow_sum {
	uint64_t kept, written, own, left; /* bytes inherited, of them written, filled for the children,
					      inherited but not kept */
};

/* An inherited VMA: keep it (*in) or drop it (mostly other contents). A first run of COW_SAMPLE bytes or
 * more decides in cow_take (*decide: read and compared once); a shorter one is not enough to tell, the
 * first COW_SAMPLE bytes of its runs are looked at here. */
static int keep_or_drop(const struct rst_task *t, const struct rst_vma *r, uint8_t **buf, bool *in,
			bool *decide, char *msg, size_t len)
{
	const struct rst_pblock *rb = (const struct rst_pblock *)(uintptr_t)t->args->blocks;
	if (map_buf(t, buf, msg, len))
		return -1;
	*decide = r->nr_blocks && rb[r->first_block].len >= COW_SAMPLE;
	if (*decide)
		return 0;
	if (worth_keeping(t, r, *buf, in))
		return snprintf(msg, len, "task %d: read its pages of 0x%llx: %s", t->pid,
				(unsigned long long)r->start, strerror(errno)),
		       -1;
	return 0;
}

/* Map VMA r (v in the image) of t at its place for its children: anonymous, or its file (opened by its
 * path: the tree's mount tree stands, its files are not open yet) at its offset. */
static void *own_map(const struct rst_task *t, const struct rst_vma *r, const VmaEntry *v)
{
	int flags = MAP_PRIVATE | MAP_FIXED_NOREPLACE | (int)(r->flags & MAP_NORESERVE);
	if (r->kind != RST_VMA_FILE)
		return mmap((void *)(uintptr_t)v->start, v->end - v->start, PROT_READ | PROT_WRITE,
			    flags | MAP_ANONYMOUS, -1, 0);
	int fd = open(t->mfiles[r->mfile].path, O_RDONLY | O_CLOEXEC); /* (as restore-files.c opens it) */
	if (fd < 0)
		return MAP_FAILED; /* the blob fails with one line */
	void *m = mmap((void *)(uintptr_t)v->start, v->end - v->start, PROT_READ | PROT_WRITE, flags, fd,
		       (off_t)v->pgoff);
	close(fd);
	return m;
}

/* own_map, then its NUMA memory policy before its pages are written, so that they follow it. */
static void *own_map_mpol(const struct rst_task *t, const struct rst_vma *r, const VmaEntry *v)
{
	void *m = own_map(t, r, v);
	if (m != MAP_FAILED && rst_mpol_apply(v, m, v->end - v->start)) {
		munmap(m, v->end - v->start);
		return MAP_FAILED;
	}
	return m;
}

/* Each of t's VMAs: inherited (inh), or filled here for a child in kids, or left to the blob. */
static int cow_vmas(struct rst_task *t, const bool *inh, const size_t *kids, size_t nk, struct cow_sum *sum,
		    char *msg, size_t len)
{
	uint8_t *buf = NULL;
	int ret = 0;
	for (size_t i = 0; !ret && i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		struct rst_vma *r = t->vma_prefilled[i] ? NULL : cow_vma(t, v->start, v->end);
		bool in = inh[i], decide = false;
		if (r && in && (ret = keep_or_drop(t, r, &buf, &in, &decide, msg, len)))
			break;
		if (r && in && (ret = cow_take(t, r, true, decide, buf, &sum->written, msg, len)) == 1)
			in = false, ret = 0; /* mostly other contents */
		if (ret < 0)
			break;
		if (r && in) {
			t->vma_prefilled[i] = true;
			sum->kept += v->end - v->start;
			continue;
		}
		if (r && inh[i]) { /* not kept */
			munmap((void *)(uintptr_t)v->start, v->end - v->start);
			sum->left += v->end - v->start;
		}
		if (!r || !r->nr_blocks || !child_has(t, kids, nk, v->start, v->end))
			continue;
		void *m = own_map_mpol(t, r, v);
		if (m == MAP_FAILED)
			continue; /* the place is taken here: the blob maps it, no sharing */
		if ((uint64_t)(uintptr_t)m != v->start) {
			munmap(m, v->end - v->start);
			continue;
		}
		if ((ret = cow_take(t, r, false, false, buf, &sum->written, msg, len)))
			break;
		t->vma_prefilled[i] = true;
		sum->own += v->end - v->start;
	}
	unmap_buf(buf);
	return ret;
}

int rst_cow_fill(struct rst_task *t, bool may_log, char *msg, size_t len)
{
	if (!cow_able(t))
		return 0;
	const struct rst_task *p = t->spawn_idx >= 0 ? &t->tree[t->spawn_idx] : NULL;
	bool *inh = calloc(t->mm->n_vmas + 1, sizeof(bool));
	size_t *kids = calloc(t->ntree + 1, sizeof(size_t));
	struct cow_sum sum = {0, 0, 0, 0};
	int ret = -1;
	if (!inh || !kids) {
		snprintf(msg, len, "out of memory");
	} else {
		size_t nk = cow_kids(t, kids);
		if (p && cow_able(p))
			cow_inherit(t, p, inh);
		ret = cow_vmas(t, inh, kids, nk, &sum, msg, len);
	}
	free(inh);
	free(kids);
	if (!ret && may_log && (sum.kept || sum.own || sum.left))
		pr_debug("task %d: %llu KiB of private memory inherited (%llu KiB of it written; %llu KiB "
			 "not kept: "
			 "mostly other contents), %llu KiB filled for its children\n",
			 t->pid, (unsigned long long)sum.kept >> 10, (unsigned long long)sum.written >> 10,
			 (unsigned long long)sum.left >> 10, (unsigned long long)sum.own >> 10);
	return ret;
}
