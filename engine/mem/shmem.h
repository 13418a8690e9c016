/* Shared memory objects of a tree (engine-internal): dump-shmem.c (dump side), restore-shmem.c (restore).
 *
 * Dump: every MAP_SHARED anonymous mapping ("/dev/zero (deleted)", "[anon_shmem:NAME]") and every mapping of
 * a memfd ("/memfd:NAME (deleted)") is one tmpfs inode, which several processes may map (after fork, or at
 * other addresses and offsets after mremap/munmap of a part). Each such inode is dumped once per tree: a
 * shmem_entry in shmem.img and its contents (the pages that hold data, found with SEEK_DATA/SEEK_HOLE)
 * in pagemap-shmem-ID.img + pages-shmem-ID.img. The VMAs only name it (vma_entry.shmid = inode).
 *
 * Restore: crshim creates each object once before the tree (anonymous: a MAP_SHARED|MAP_ANONYMOUS mapping
 * filled and reopened through /proc/self/map_files, so that it is still "/dev/zero (deleted)"; memfd:
 * memfd_create with the same name, filled, sealed as it was) and keeps one fd of it, which every process
 * inherits through clone3. The blob maps it like a file (MAP_SHARED at the VMA's offset), so that after the
 * restore a write in one process is seen by all. */
#ifndef CRSHIM_SHMEM_H
#define CRSHIM_SHMEM_H

#include <stdint.h>
#include <sys/types.h>

#include "crshim.h"
#include "image/image.h"

/* hugetlb: the MAP_HUGE_* / MFD_HUGE_* / SHM_HUGE_* bits of page size psz (the three encode log2 of it at
 * bit 26). */
static inline uint32_t shmem_huge_flag(uint64_t psz)
{
	return psz ? (uint32_t)__builtin_ctzll(psz) << 26 : 0;
}

/* ---- dump-shmem.c ---- */
struct dump_ctx;
struct dump_shmem; /* tree-wide: the objects dumped so far */
int dump_shmem_new(struct dump_shmem **out, struct cr_err *e);
void dump_shmem_free(struct dump_shmem *s);
/* Register the object behind fd (an open of it in crshim, e.g. /proc/PID/map_files/RANGE or a pidfd_getfd
 * copy of a memfd fd) and dump its contents unless that was done already; *ino is the identity to store
 * (vma_entry.shmid; for memfd fds: the same value). c: the task it was found in (its created list). */
int dump_shmem_add(struct dump_ctx *c, int fd, uint64_t *ino, struct cr_err *e);
/* The data pages of [0, size) of a tmpfs file (holes skipped) into pw (also System V segments). */
struct page_writer;
int dump_shmem_contents(struct page_writer *pw, int fd, uint64_t size, struct cr_err *e);
/* The same into their own page files (pagemap kmap + pages kpages, id), recorded as created, counted in the
 * run's stats (shpages_written). */
int dump_shmem_file(struct dump_ctx *c, enum img_kind kmap, enum img_kind kpages, int id, int fd,
		    uint64_t size, struct cr_err *e);
/* shmem.img (the root task writes it once every task is dumped; nothing if there are no objects). */
int dump_shmem_write(struct dump_ctx *root, struct cr_err *e);

/* ---- restore-shmem.c ---- */
struct rst_task;
/* Parent, once every process of the tree is loaded and before the restore areas are built: create every
 * object of shmem.img and point each VMA that maps one at crshim's fd of it (an mfile the child inherits).
 * A dry run (ts[0].dry, restore-check.c) makes nothing: each object's size and pagemap, and the VMAs that
 * name one or a packet socket's rings, are only checked. */
int rst_shmem_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
/* crshim's fd of the object that had inode ino at dump (valid until rst_shmem_done), -1 if none. For an
 * fd of a memfd: reopen it through /proc/self/fd/N to get an own open file description. */
int rst_shmem_fd(uint64_t ino);
/* The pages of object id (pagemap kind kpm, pages kind kpages) into map (len bytes). */
int rst_shmem_fill(int dirfd, enum img_kind kpm, enum img_kind kpages, int id, uint8_t *map, uint64_t len,
		   struct cr_err *e);
/* The bytes of pages the pagemap of object id holds (what its fill allocates: not its size, a sparse object
 * takes only them); size when that pagemap cannot be read (its fill then says why). */
uint64_t rst_shmem_bytes(int dirfd, enum img_kind kpm, enum img_kind kpages, int id, uint64_t size);
/* Close crshim's fds (after the tree is created). */
void rst_shmem_done(void);

#endif
