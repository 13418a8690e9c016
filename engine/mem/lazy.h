/* restore --lazy-pages and crshim lazy-pages (engine/mem/lazy.md): the restore hands each task's
 * userfaultfd to the lazy-pages daemon over DIR/lazy-pages.sock (SOCK_SEQPACKET, SCM_RIGHTS). */
#ifndef CRSHIM_MEM_LAZY_H
#define CRSHIM_MEM_LAZY_H

#include <stdint.h>

#include "base/err.h"

#define LZ_SOCK "lazy-pages.sock"
#define LZ_MAGIC 0x5a4c5243u /* "CRLZ" */
#define LZ_VERSION 1
#define LZ_MAX_RANGES 4096 /* lazy VMAs of one task in one message */
#define LZ_ACK_TIMEOUT 30  /* seconds the restore waits for the daemon's answer */

enum lz_cmd { LZ_TASK = 1, LZ_END = 2, LZ_ACK = 3, LZ_FETCH = 4 };

/* LZ_TASK: then nr struct lz_range (the lazy VMAs, sorted); SCM_RIGHTS: the userfaultfd, a pidfd.
 * LZ_FETCH: then nr struct lz_range, byte ranges of pages-IMG_PID.img the restore reads itself (with
 * lazy-pages --page-server the daemon fetches them from the source first; else nothing to do).
 * LZ_END: the restore succeeded, nothing follows. LZ_ACK (daemon -> restore): status 0 or an errno,
 * then msg (a NUL-terminated line). */
struct lz_hdr {
	uint32_t magic;
	uint16_t version, cmd;
	int32_t pid;	 /* the task in the restorer's PID namespace */
	int32_t img_pid; /* its pid in the images (pagemap-IMG_PID.img) */
	uint32_t nr;
	int32_t status;
};
struct lz_range {
	uint64_t start, end;
};
struct lz_ack {
	struct lz_hdr h;
	char msg[256];
};

/* Remote lazy pages (mem/lazy-remote.c): the client side of lazy-pages --page-server. */
#define LZ_REMOTE_MAX (64ull << 20) /* bytes of one request */
int lzr_connect(const char *addr, int port, int *sk, struct cr_err *e);
int lzr_get(int sk, int id, uint64_t off, void *buf, uint64_t len, struct cr_err *e);
int lzr_bye(int sk, struct cr_err *e);

#endif
