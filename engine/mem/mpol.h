/* NUMA memory policies of VMAs (mbind): mpol.c. Dump: get_mempolicy(MPOL_F_ADDR) in the task for each VMA
 * (dump_mm_mpol in dump.h), kept in vma_entry.mempolicy / mempolicy_nodes. Restore: each is tried on a page
 * of crshim's own when the images are loaded (one line if this host cannot have it), then set by the blob
 * with mbind once the VMAs stand and before their pages are read (restorer.c vma_mpols). */
#ifndef CRSHIM_MEM_MPOL_H
#define CRSHIM_MEM_MPOL_H

#include <stddef.h>

#include "crshim.h"
#include "image/image.h"
#include "restorer/restorer-args.h"

struct dump_ctx;
struct rst_task;

/* Dump: the policy of the VMA ve (its start and end set) from what dump_mm_mpol read. */
void dump_mm_mpol_fill(const struct dump_ctx *c, VmaEntry *ve);
/* Restore: each policy of t's VMAs is valid and can be set on this host (mbind of a page of crshim's). */
int rst_mpol_check(const struct rst_task *t, struct cr_err *e);
/* The VMAs of t with a policy (rst_args.vma_mpols), and filling that array (returns how many). */
size_t rst_mpol_count(const struct rst_task *t);
size_t rst_mpol_fill(const struct rst_task *t, struct rst_vma_mpol *p);
/* mbind of [addr, addr + len) with the policy of v (0: none; -1, errno). */
int rst_mpol_apply(const VmaEntry *v, void *addr, size_t len);

#endif
