/* The dump's pages by one copy: code run in the dumped task checksums each block where it is and vmsplices
 * it into a pipe, which crshim splices into the pages image (CRSHIM_DUMP_COPY=read: crshim reads them). */
#ifndef CRSHIM_DUMP_SPLICE_H
#define CRSHIM_DUMP_SPLICE_H

#include <stddef.h>
#include <stdint.h>
#include "base/err.h"

struct dump_ctx;
struct page_writer;
struct page_block;
struct dump_splice;

/* CRSHIM_DUMP_COPY: unset or read, crshim reads every page into its buffers that a thread writes; behind,
 * as read, and straight into a mapping of a pages file on tmpfs while that thread is behind (dump-copy.c);
 * map, every buffer straight into such a mapping; auto, the task's code for a task with enough pages (the
 * caller decides); splice, the task's code whenever it can. */
enum dump_copy { DUMP_COPY_AUTO, DUMP_COPY_READ, DUMP_COPY_SPLICE, DUMP_COPY_MAP, DUMP_COPY_BEHIND };
enum dump_copy dump_splice_mode(void);
/* Set the task up (its scratch with the code, a pipe): 0, *sp set; 1 when the way is not open (not for this
 * arch or CPU, the task may not map code or make a pipe: logged), the task as it was; -1 on
 * a failure. */
int dump_splice_open(struct dump_ctx *c, struct dump_splice **sp, struct cr_err *e);
/* Blocks one batch may have. */
size_t dump_splice_room(const struct dump_splice *s);
/* Add the nb blocks (vaddr and len each, offsets from 0 in a row: len bytes) to pw, checksummed and spliced
 * by the task. 1: the task's code failed, nothing added, the caller copies them itself; -1: a failure (the
 * pages file, pw). */
int dump_splice_batch(struct dump_splice *s, struct page_writer *pw, struct page_block *b, size_t nb,
		      uint64_t len, struct cr_err *e);
/* The task's pipe and scratch gone again (also after a failure); NULL is no-op. */
int dump_splice_close(struct dump_splice *s, struct cr_err *e);

#endif
