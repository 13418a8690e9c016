/* The dump's page code (arch/<ARCH>/dump-pages.c): run in the dumped task, it checksums page blocks where
 * they are and vmsplices them into a pipe that crshim splices into the pages image
 * (engine/mem/dump-splice.c). */
#ifndef CRSHIM_ARCH_PAGES_H
#define CRSHIM_ARCH_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* The table the code reads (arch_prep_batch's table register): a header, then nr records. */
struct arch_pages_head {
	int64_t pipe_fd; /* the task's fd of the pipe's write end */
	int64_t nr;	 /* records */
	int64_t ret;	 /* out: 0, or the -errno of the vmsplice that failed */
	int64_t left;	 /* out: records not done (0: all) */
};
struct arch_pages_rec {
	uint64_t addr, len; /* in: the block (an iovec); the code advances them as it splices */
	/* out: the CRC32C register updates (no inversion) of the block as three streams of n = len / 24 * 8
	 * bytes and a tail (len - 3n): crc[0] from ~0, the others from 0 (arch_pages_csum combines them) */
	uint32_t crc[4];
};

/* The block's CRC32C (pw_block_csum) from a record's crc[] (arch/pages-csum.c). */
uint32_t arch_pages_csum(const struct arch_pages_rec *r, uint64_t len);

/* Position-independent code that, for each record in turn, checksums the block (CRC32C) and vmsplices it
 * whole into pipe_fd, then traps (SIGTRAP, the ip at *trap_ip bytes from its start). Run it like the batch
 * code (arch_prep_batch with the table). NULL: none for this arch or CPU. */
const uint8_t *arch_pages_code(size_t *len, size_t *trap_ip);

#endif
