/* Restore: load the root task's pagemap and verify every page block checksum with all CPUs (the image
 * layer's pm_load does the same on one CPU; pm_open reads and checks the pagemap for both; for a large image
 * the checksums are a third of the restore).
 *
 * Large private anonymous VMAs are "prefilled": mapped at their address in crshim itself, filled from the
 * page file and checksummed from there (one pass over the data instead of two, on all CPUs, while
 * nothing is created yet). The child of clone3 inherits them like any memory of a fork; the blob keeps
 * them instead of mapping and reading them again, and the parent drops its references right after
 * clone3. A VMA whose range crshim itself uses is not prefilled. */
#define LOG_PREFIX "restore-pages: "
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

#define PREFILL_MIN (16ull << 20) /* bytes of data in a VMA worth prefilling */

enum { BLK_VERIFY, BLK_FILL, BLK_LAZY /* restore --lazy-pages: lazy-pages checks it as it serves it */ };

struct verify_part {
	const struct page_map *pm;
	const uint8_t *const *data; /* the page files, mapped: [0] the dir's, [k] the page_map's src[k - 1] */
	const uint8_t *kind;	    /* per block: BLK_* */
	size_t from, to;	    /* block indexes */
	size_t bad;		    /* first bad block, or SIZE_MAX */
	struct cr_stats *stats;	    /* progress: bytes_done */
	int err;		    /* errno of a failed fill */
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

/* Read block b into its place (a prefilled VMA) and checksum it there, while it is in the cache. */
static int fill_block(const struct page_map *pm, const struct page_block *b, bool *ok)
{
	uint8_t *dst = (uint8_t *)(uintptr_t)b->vaddr;
	if (madvise(dst, b->len, MADV_POPULATE_WRITE) && errno != EINVAL)
		return -1;
	if (rst_pread_all(pm_block_fd(pm, b), dst, b->len, b->offset))
		return -1;
	*ok = csum64(dst, b->len, 0) == b->csum;
	return 0;
}

static void *verify_main(void *arg)
{
	struct verify_part *p = arg;
	p->bad = SIZE_MAX;
	for (size_t i = p->from; i < p->to; i++) {
		const struct page_block *b = &p->pm->blocks[i];
		bool ok;
		if (p->kind[i] == BLK_LAZY)
			continue;
		if (p->kind[i] == BLK_FILL) {
			if (fill_block(p->pm, b, &ok)) {
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
	return NULL;
}

/* Split the blocks into n parts of about equal bytes and check them in parallel. */
static int verify_blocks(const struct page_map *pm, const uint8_t *const *data, const uint8_t *kind,
			 const char *name, struct cr_stats *st, struct cr_err *e)
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
		part[k] = (struct verify_part){pm, data, kind, bi, bi, SIZE_MAX, st, 0};
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

/* Map the VMAs worth prefilling at their addresses; mark the blocks that lie wholly inside one. */
static void prefill_plan(struct rst_task *t, uint8_t *kind)
{
	const struct page_map *pm = &t->pm;
	size_t bi = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		uint64_t data = 0;
		size_t first;
		while (bi < pm->nr && pm->blocks[bi].vaddr + pm->blocks[bi].len <= v->start)
			bi++;
		for (first = bi; bi < pm->nr && pm->blocks[bi].vaddr >= v->start &&
				 pm->blocks[bi].vaddr + pm->blocks[bi].len <= v->end;
		     bi++)
			data += pm->blocks[bi].len;
		if ((v->kind != VMA_KIND__VMA_ANON_PRIVATE && v->kind != VMA_KIND__VMA_HEAP) ||
		    (v->flags & (MAP_GROWSDOWN | MAP_DROPPABLE_ | MAP_HUGETLB)) || data < PREFILL_MIN)
			continue;
		if (bi < pm->nr && pm->blocks[bi].vaddr < v->end)
			continue; /* a block crosses the end: leave this VMA to the blob */
		if (first && pm->blocks[first - 1].vaddr + pm->blocks[first - 1].len > v->start)
			continue; /* a block crosses the start */
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
		for (size_t j = first; j < bi; j++)
			kind[j] = BLK_FILL;
		pr_debug("prefill vma 0x%llx-0x%llx: %llu bytes\n", (unsigned long long)v->start,
			 (unsigned long long)v->end, (unsigned long long)data);
	}
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
	if (!t->no_prefill && (!prefill || strcmp(prefill, "0")) && !fault_hit(t->fault, FI_NO_PREFILL))
		prefill_plan(t, kind);
	const uint8_t **data;
	int ret = pm_map_data(pm, pname, &data, e);
	if (!ret)
		ret = verify_blocks(pm, data, kind, pname, t->stats, e);
	pm_unmap_data(pm, data);
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
