/* What dump-mm.c (the VMAs, finding the pages) and dump-copy.c (copying them into the pages image) share. */
#ifndef CRSHIM_DUMP_MM_INT_H
#define CRSHIM_DUMP_MM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "dump.h"
#include "image/image.h"

/* One run of pages to dump: read with process_vm_readv (fd < 0) or pread(fd, foff). With scan set, a big VMA
 * whose pages are found only as the copy comes to it (cur_run). */
struct prange {
	uint64_t vaddr, len;
	int fd;
	uint64_t foff;
	bool scan, skip_file;
};

struct prlist {
	struct prange *r;
	size_t nr, cap;
};

struct mm_state {
	struct dump_ctx *c;
	uint64_t psz;
	int pagemap_fd, mem_fd;
	bool scan_ok;  /* PAGEMAP_SCAN works */
	bool guard_ok; /* PAGEMAP_SCAN tells guard regions (PAGE_IS_GUARD, Linux 6.14+) */
	bool no_readv; /* read every page through /proc/PID/mem (fault point no-vm-readv) */
	struct page_region *vec;
	size_t vec_len;
	struct prlist runs, part; /* the runs in address order; the part of a scan-later one being copied */
	struct prlist *out;	  /* where add_range puts the runs it is given: runs, or part in cur_run */
	/* incremental (mem/track.c): the task's userfaultfd, the parent's pagemap (raw) and VMAs */
	struct mem_track_task *trk;
	bool pre_dump;
	bool have_parent;
	struct page_map ppm;
	MmEntry *pmm;
	struct prange *par; /* runs left in the parent (PE_PARENT) */
	size_t npar, par_cap;
	uint64_t written, in_parent; /* bytes */
	/* the guard regions of the whole address space (all_guards: one PAGEMAP_SCAN for every VMA), start
	 * and end pairs in address order, handed to the VMAs by vma_guards */
	bool guards_read;
	uint64_t *guards;
	size_t nguards, guards_cap;
};

#ifndef PBUF_SIZE
#define PBUF_SIZE (1u << 20)
#endif
#ifndef PBUF_NR
#define PBUF_NR 4
#endif

/* /proc/PID/pagemap: a guard page (MADV_GUARD_INSTALL) */
#define PM_GUARD_BIT 58
/* A scan-later run is scanned this much at a time as the copy comes to it. */
#define SCAN_STEP (32ull << 20)

/* Pages of [start, end) that hold data of their own: present or swapped, not the zero page, and for
 * private file mappings not page-cache pages; into m->out. [plo, phi): the part of the range the parent's
 * VMA covered when the VMA is tracked (else empty): pages not written since the parent's dump are the
 * parent's. */
int dmm_scan_range(struct mm_state *m, uint64_t start, uint64_t end, bool skip_file, int fd, uint64_t plo,
		   uint64_t phi, struct cr_err *e);
/* PBUF_NR buffers of PBUF_SIZE, kept for the tree's whole dump. */
struct dump_mmtree;
uint8_t *dmm_pagebuf(struct dump_mmtree *pb, struct cr_err *e);
/* Copy m's runs into pw; *total: the bytes copied. */
int dmm_copy_pages(struct mm_state *m, struct page_writer *pw, uint64_t *total, struct cr_err *e);

#endif
