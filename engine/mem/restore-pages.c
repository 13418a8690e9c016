/* Restore: load the root task's pagemap and verify every page block checksum with all CPUs (the image
 * layer's pm_load does the same on one CPU; pm_open reads and checks the pagemap for both; for a large image
 * the checksums are a third of the restore).
 *
 * Large private anonymous VMAs are "prefilled": mapped at their address in crshim itself, filled from the
 * page file and checksummed from there (one pass over the data instead of two, on all CPUs, while
 * nothing is created yet). The child of clone3 inherits them like any memory of a fork; the blob keeps
 * them instead of mapping and reading them again, and the parent drops its references right after
 * clone3. A VMA whose range crshim itself uses is not prefilled. Where the kernel gives crshim a
 * userfaultfd, the prefilled VMAs are registered with it while they are filled, and each block goes into
 * them with UFFDIO_COPY from a buffer it was read into: the kernel then copies into new pages instead of
 * clearing them first (MADV_POPULATE_WRITE) for the read to overwrite. A block of the dump may hold the
 * pages of neighbouring VMAs: it is checksummed whole and its parts go to the prefilled ones
 * (CRSHIM_PREFILL=read: the old way, populate then read; CRSHIM_PREFILL=0: no prefill). */
#define LOG_PREFIX "restore-pages: "
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "image/csum.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/proc.h"
#include "mem/mpol.h"
#include "restore.h"
#include "base/vma-flags.h"

#define VERIFY_MAX_THREADS 8
#define VERIFY_PER_THREAD_MIN (32ull << 20)

/* Bytes of data in a VMA worth prefilling: at 16 MiB, a process whose 512 MiB were in VMAs of 4 MiB took
 * 0.59 s of CPU to restore instead of 0.45 s (the blob's path reads each page twice, once for the
 * checksum here and once into place, and clears the pages it then reads into). */
#define PREFILL_MIN (1ull << 20)
#define FILL_BUF (1ull << 20) /* a block through the userfaultfd: as large as the dump's (dump-mm.c) */

enum {
	BLK_VERIFY,
	BLK_FILL,      /* wholly in a prefilled VMA */
	BLK_FILL_EDGE, /* across the start or end of a prefilled VMA (at most FILL_BUF bytes): fill_edge */
	BLK_LAZY       /* restore --lazy-pages: lazy-pages checks it as it serves it */
};

/* The prefilled VMAs, sorted. */
struct fill_range {
	uint64_t start, end;
};
struct fill_ranges {
	size_t n;
	struct fill_range *r;
};

struct verify_part {
	const struct page_map *pm;
	const uint8_t *const *data; /* the page files, mapped: [0] the dir's, [k] the page_map's src[k - 1] */
	const uint8_t *kind;	    /* per block: BLK_* */
	size_t from, to;	    /* block indexes */
	size_t bad;		    /* first bad block, or SIZE_MAX */
	struct cr_stats *stats;	    /* progress: bytes_done */
	uint8_t *buf;		    /* FILL_BUF bytes for fill_block through the userfaultfd */
	int err;		    /* errno of a failed fill */
	int uffd;		    /* the prefilled VMAs registered (prefill_uffd), else -1 */
	const struct fill_ranges *fr;
};

int rst_pread_all(int fd, void *buf, uint64_t len, uint64_t off)
{
	for (uint64_t got = 0; got < len;) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -1 : (errno = EIO, -1);
		got += (uint64_t)n;
	}
	return 0;
}

/* Copy len bytes from src into new pages at dst, a range registered with uffd (missing pages). */
static int uffd_copy(int uffd, uint64_t dst, const uint8_t *src, uint64_t len)
{
	for (uint64_t done = 0; done < len;) {
		struct uffdio_copy c = {
		    .dst = dst + done, .src = (uint64_t)(uintptr_t)(src + done), .len = len - done};
		if (!ioctl(uffd, UFFDIO_COPY, &c)) {
			done += (uint64_t)c.copy;
			continue;
		}
		if (c.copy > 0) /* a part was copied (EAGAIN: the layout changed meanwhile; go on) */
			done += (uint64_t)c.copy;
		else if (errno != EAGAIN && errno != EINTR)
			return -1;
	}
	return 0;
}

static int map_fill_buf(struct verify_part *p)
{
	if (p->buf)
		return 0;
	void *m =
	    mmap(NULL, FILL_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	p->buf = m;
	return 0;
}

/* Fill block b in its place (a prefilled VMA) and checksum it while it is in the cache. With the VMAs
 * registered with a userfaultfd: read it into p->buf (a piece at a time if larger), which the kernel
 * copies into new pages that it does not clear first (UFFDIO_COPY); the checksum is of the buffer
 * (of the block in place if larger). Else each page is faulted in (cleared) and then read over. */
static int fill_block(struct verify_part *p, const struct page_block *b, bool *ok)
{
	uint8_t *dst = (uint8_t *)(uintptr_t)b->vaddr;
	int fd = pm_block_fd(p->pm, b);
	if (p->uffd < 0) {
		if ((madvise(dst, b->len, MADV_POPULATE_WRITE) && errno != EINVAL) ||
		    rst_pread_all(fd, dst, b->len, b->offset))
			return -1;
		*ok = pm_csum(p->pm, dst, b->len) == b->csum;
		return 0;
	}
	if (map_fill_buf(p))
		return -1;
	for (uint64_t done = 0, n; done < b->len; done += n) {
		n = b->len - done < FILL_BUF ? b->len - done : FILL_BUF;
		if (rst_pread_all(fd, p->buf, n, b->offset + done) ||
		    uffd_copy(p->uffd, b->vaddr + done, p->buf, n))
			return -1;
	}
	*ok = pm_csum(p->pm, b->len <= FILL_BUF ? p->buf : dst, b->len) == b->csum;
	return 0;
}

/* A block across the edge of a prefilled VMA (the dump packs the pages of neighbouring VMAs into one
 * block): read whole and checksummed first, then the parts of it in prefilled VMAs put in place; the blob
 * reads the rest (restore-mm.c clips the blocks to each VMA). */
static int fill_edge(struct verify_part *p, const struct page_block *b, bool *ok)
{
	const struct fill_ranges *fr = p->fr;
	uint64_t end = b->vaddr + b->len;
	size_t lo = 0, hi = fr->n;
	if (map_fill_buf(p) || rst_pread_all(pm_block_fd(p->pm, b), p->buf, b->len, b->offset))
		return -1;
	*ok = pm_csum(p->pm, p->buf, b->len) == b->csum;
	while (lo < hi) { /* the first range that ends after the block's start */
		size_t mid = lo + (hi - lo) / 2;
		if (fr->r[mid].end <= b->vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; *ok && k < fr->n && fr->r[k].start < end; k++) {
		uint64_t s = fr->r[k].start > b->vaddr ? fr->r[k].start : b->vaddr;
		uint64_t e = fr->r[k].end < end ? fr->r[k].end : end;
		const uint8_t *src = p->buf + (s - b->vaddr);
		if (p->uffd >= 0
			? uffd_copy(p->uffd, s, src, e - s)
			: (madvise((void *)(uintptr_t)s, e - s, MADV_POPULATE_WRITE) && errno != EINVAL))
			return -1;
		if (p->uffd < 0)
			memcpy((void *)(uintptr_t)s, src, e - s);
	}
	return 0;
}

static void *verify_main(void *arg)
{
	struct verify_part *p = arg;
	p->bad = SIZE_MAX;
	for (size_t i = p->from; i < p->to; i++) {
		const struct page_block *b = &p->pm->blocks[i];
		bool ok = false;
		if (p->kind[i] == BLK_LAZY)
			continue;
		if (p->kind[i] == BLK_FILL || p->kind[i] == BLK_FILL_EDGE) {
			if ((p->kind[i] == BLK_FILL ? fill_block : fill_edge)(p, b, &ok)) {
				p->err = errno;
				p->bad = i;
				break;
			}
		} else {
			ok = pm_block_ok(p->pm, p->data, b);
		}
		if (!ok) {
			p->bad = i;
			break;
		}
		if (p->kind[i] != BLK_LAZY)
			CR_STAT_ADD(p->stats, bytes_done, b->len);
	}
	if (p->buf)
		munmap(p->buf, FILL_BUF);
	return NULL;
}

/* Split the blocks into n parts of about equal bytes and check them in parallel. */
static int verify_blocks(const struct page_map *pm, int uffd, const struct fill_ranges *fr,
			 const uint8_t *const *data, const uint8_t *kind, const char *name,
			 struct cr_stats *st, struct cr_err *e)
{
	struct verify_part part[VERIFY_MAX_THREADS];
	pthread_t th[VERIFY_MAX_THREADS];
	bool started[VERIFY_MAX_THREADS] = {false};

	uint64_t total = 0;
	bool some = false; /* a block to check or fill: else (the dump's dry run) no thread for none */
	for (size_t i = 0; i < pm->nr; i++) {
		total += pm->blocks[i].len; /* a chain's blocks are in several files */
		some |= kind[i] != BLK_LAZY;
	}
	uint64_t by_size = some ? total / VERIFY_PER_THREAD_MIN + 1 : 1; /* >= 1 */
	/* (the CPUs, /sys/devices/system/cpu/online, read only for more than one part: not for each small
	 * process of a tree) */
	long cpus = by_size > 1 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	size_t n = (size_t)(cpus > 0 ? cpus : 1);
	if (n > VERIFY_MAX_THREADS)
		n = VERIFY_MAX_THREADS;
	if (n > by_size)
		n = (size_t)by_size;
	if (!n) /* cannot be (cpus >= 1, by_size >= 1): said for the analyzers, which lose track */
		n = 1;
	CR_STAT_ADD(st, bytes_total, total);
	uint64_t per = total / n + 1, acc = 0;
	size_t bi = 0;
	for (size_t k = 0; k < n; k++) {
		part[k] = (struct verify_part){pm, data, kind, bi, bi, SIZE_MAX, st, NULL, 0, uffd, fr};
		while (bi < pm->nr && (k == n - 1 || acc < per * (k + 1)))
			acc += pm->blocks[bi++].len;
		part[k].to = bi;
		if (k && !pthread_create(&th[k], NULL, verify_main, &part[k]))
			started[k] = true;
		else if (k)
			verify_main(&part[k]);
	}
	verify_main(&part[0]);
	size_t bad = SIZE_MAX, err = 0;
	for (size_t k = 0; k < n; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		if (part[k].bad < bad) {
			bad = part[k].bad;
			err = (size_t)part[k].err;
		}
	}
	if (bad != SIZE_MAX && err)
		return cr_fail_errno(e, (int)err, "image %s: read the block for 0x%llx", name,
				     (unsigned long long)pm->blocks[bad].vaddr);
	if (bad != SIZE_MAX)
		return cr_fail_errno(e, EBADMSG,
				     "image %s: checksum mismatch in the block for 0x%llx (corrupt image)",
				     name, (unsigned long long)pm->blocks[bad].vaddr);
	return 0;
}

void rst_prefill_drop(struct rst_task *t)
{
	if (!t->prefill_mapped || !t->vma_prefilled)
		return;
	for (size_t i = 0; i < t->mm->n_vmas; i++)
		if (t->vma_prefilled[i])
			munmap((void *)(uintptr_t)t->mm->vmas[i]->start,
			       t->mm->vmas[i]->end - t->mm->vmas[i]->start);
	t->prefill_mapped = false;
}

/* Block j of pm may be filled across the edge of a prefilled VMA (fill_edge): read whole into the buffer,
 * and not left to lazy-pages. */
static bool edge_ok(const struct page_map *pm, const uint8_t *kind, size_t j)
{
	return pm->blocks[j].len <= FILL_BUF && (kind[j] == BLK_VERIFY || kind[j] == BLK_FILL_EDGE);
}

/* Blocks [*first, *last) of pm overlap VMA v (bi: the search starts there); the bytes of theirs in it. */
static uint64_t vma_data(const struct page_map *pm, const VmaEntry *v, size_t bi, size_t *first, size_t *last)
{
	uint64_t data = 0;
	while (bi < pm->nr && pm->blocks[bi].vaddr + pm->blocks[bi].len <= v->start)
		bi++;
	*first = bi;
	for (; bi < pm->nr && pm->blocks[bi].vaddr < v->end; bi++) {
		const struct page_block *b = &pm->blocks[bi];
		uint64_t s = b->vaddr > v->start ? b->vaddr : v->start;
		uint64_t e = b->vaddr + b->len < v->end ? b->vaddr + b->len : v->end;
		data += e - s;
	}
	*last = bi;
	return data;
}

/* Map the VMAs worth prefilling at their addresses; mark the blocks in them (BLK_FILL), and those across
 * the edge of one (BLK_FILL_EDGE: a VMA whose edge block cannot be is left to the blob). The bytes of data
 * they get. */
static uint64_t prefill_plan(struct rst_task *t, uint8_t *kind)
{
	const struct page_map *pm = &t->pm;
	size_t bi = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		size_t first, last;
		uint64_t data = vma_data(pm, v, bi, &first, &last);
		bi = first; /* (the block across its end is the next one's first) */
		if ((v->kind != VMA_KIND__VMA_ANON_PRIVATE && v->kind != VMA_KIND__VMA_HEAP) ||
		    (v->flags & (MAP_GROWSDOWN | MAP_DROPPABLE_ | MAP_HUGETLB)) || data < PREFILL_MIN)
			continue;
		bool edge_s =
		    pm->blocks[first]
			.vaddr<v->start, edge_e = pm->blocks[last - 1].vaddr + pm->blocks[last - 1].len>
			    v->end;
		if ((edge_s && !edge_ok(pm, kind, first)) || (edge_e && !edge_ok(pm, kind, last - 1)))
			continue;
		void *p = mmap((void *)(uintptr_t)v->start, v->end - v->start, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			continue;
		/* its NUMA memory policy before its pages are written, so that they follow it */
		if ((uint64_t)(uintptr_t)p != v->start || rst_mpol_apply(v, p, v->end - v->start)) {
			munmap(p, v->end - v->start);
			continue;
		}
		t->vma_prefilled[i] = true;
		t->prefill_mapped = true;
		bytes += data;
		for (size_t j = first; j < last; j++)
			kind[j] =
			    (j == first && edge_s) || (j == last - 1 && edge_e) ? BLK_FILL_EDGE : BLK_FILL;
		pr_debug("prefill vma 0x%llx-0x%llx: %llu bytes\n", (unsigned long long)v->start,
			 (unsigned long long)v->end, (unsigned long long)data);
	}
	return bytes;
}

/* The prefilled VMAs of t, sorted (fill_edge puts the parts of an edge block there). */
static int fill_ranges_make(const struct rst_task *t, struct fill_ranges *fr)
{
	fr->n = 0;
	fr->r = calloc(t->mm->n_vmas + 1, sizeof(*fr->r));
	if (!fr->r)
		return -1;
	for (size_t i = 0; i < t->mm->n_vmas; i++)
		if (t->vma_prefilled[i]) {
			fr->r[fr->n].start = t->mm->vmas[i]->start;
			fr->r[fr->n++].end = t->mm->vmas[i]->end;
		}
	return 0;
}

/* Unregister the prefilled VMAs (what clone3 gives the child must fault in zero pages where the image has
 * none) and close the userfaultfd. */
static void prefill_uffd_close(const struct rst_task *t, int fd)
{
	if (fd < 0)
		return;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		struct uffdio_range r = {v->start, v->end - v->start};
		if (t->vma_prefilled[i] && ioctl(fd, UFFDIO_UNREGISTER, &r) && errno != EINVAL)
			pr_warn("prefill: unregister 0x%llx-0x%llx: %s\n", (unsigned long long)v->start,
				(unsigned long long)v->end, strerror(errno));
	}
	close(fd); /* (unregisters what is left) */
}

/* The prefilled VMAs registered with a new userfaultfd (missing pages), for fill_block's UFFDIO_COPY;
 * -1 if none is prefilled or the kernel refuses (then they are populated and read). User faults only
 * (UFFD_USER_MODE_ONLY, where the kernel knows it): nothing but fill_block touches those VMAs before
 * prefill_uffd_close, and a kernel access there fails rather than waits. */
static int prefill_uffd(const struct rst_task *t, const uint8_t *kind)
{
	const char *how = getenv("CRSHIM_PREFILL");
	if (!t->prefill_mapped || (how && !strcmp(how, "read")))
		return -1;
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < t->pm.nr; i++) /* (UFFDIO_COPY copies whole pages) */
		if ((kind[i] == BLK_FILL || kind[i] == BLK_FILL_EDGE) &&
		    ((t->pm.blocks[i].vaddr | t->pm.blocks[i].len) & (uint64_t)(pg - 1)))
			return -1;
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd < 0 && errno == EINVAL)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	struct uffdio_api api = {.api = UFFD_API};
	if (fd < 0 || ioctl(fd, UFFDIO_API, &api)) {
		pr_debug("prefill: no userfaultfd (%s): pages cleared, then read\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		struct uffdio_register r = {.range = {v->start, v->end - v->start},
					    .mode = UFFDIO_REGISTER_MODE_MISSING};
		if (t->vma_prefilled[i] && ioctl(fd, UFFDIO_REGISTER, &r)) {
			pr_debug("prefill: register 0x%llx-0x%llx: %s: pages cleared, then read\n",
				 (unsigned long long)v->start, (unsigned long long)v->end, strerror(errno));
			prefill_uffd_close(t, fd);
			return -1;
		}
	}
	pr_debug("prefill through a userfaultfd (UFFDIO_COPY)\n");
	return fd;
}

int rst_pages_load(struct rst_task *t, struct cr_err *e)
{
	struct page_map *pm = &t->pm;
	char pname[64];
	uint8_t *kind = NULL;

	memset(pm, 0, sizeof(*pm));
	pm->pages_fd = -1;
	if (rst_mpol_check(t, e)) /* before anything is made */
		return -1;
	img_name(IMG_PAGES, t->pid, pname, sizeof(pname));
	t->vma_prefilled = calloc(t->mm->n_vmas + 1, sizeof(bool));
	if (!t->vma_prefilled) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto fail;
	}
	if (pm_open(t->dirfd, t->pid, pm, e))
		goto fail;
	if (!pm->nr)
		return 0;
	kind = calloc(pm->nr + 1, 1);
	if (!kind) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto fail;
	}
	t->blk_lazy = rst_lazy_plan(t);
	if (!t->blk_lazy) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		goto fail;
	}
	/* a dry run (restore-check.c) checks no block the dump has just written, nor with --lazy-pages any
	 * (the eager ones may still be at the source, which rst_lazy_fetch would ask lazy-pages for) */
	bool unchecked = t->dry_dump || (t->dry && t->lazy);
	for (size_t i = 0; i < pm->nr; i++)
		kind[i] = t->blk_lazy[i] || unchecked ? BLK_LAZY : BLK_VERIFY;
	if (t->lazy && !t->dry && rst_lazy_fetch(t, e))
		goto fail;
	const char *prefill = getenv("CRSHIM_PREFILL");
	uint64_t pbytes = 0;
	if (!t->no_prefill && (!prefill || strcmp(prefill, "0")) && !fault_hit(t->fault, FI_NO_PREFILL))
		pbytes = prefill_plan(t, kind);
	/* The prefilled pages are charged for good to the memory cgroup crshim writes them in: the tree's
	 * (ns/cgroup-restore.c: where it has room, else crshim's own, which the log says) */
	if (pbytes)
		ns_rst_memcg_enter_for(t->ns, pbytes);
	const uint8_t **data = NULL;
	struct fill_ranges fr;
	int uffd = prefill_uffd(t, kind);
	int ret = fill_ranges_make(t, &fr) ? cr_fail_errno(e, ENOMEM, "out of memory")
					   : pm_map_data(pm, pname, &data, e);
	if (!ret)
		ret = verify_blocks(pm, uffd, &fr, data, kind, pname, t->stats, e);
	if (pbytes)
		ns_rst_memcg_leave(t->ns);
	prefill_uffd_close(t, uffd);
	pm_unmap_data(pm, data);
	free(fr.r);
	free(kind);
	if (!ret)
		return 0;
	kind = NULL;
fail:
	free(kind);
	rst_prefill_drop(t);
	pm_free(pm);
	return -1;
}
