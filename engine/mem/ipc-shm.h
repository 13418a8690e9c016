/* System V shared memory of a tree (engine-internal): dump-ipc-shm.c (dump side), restore-ipc-shm.c
 * (restore).
 *
 * Dump: a SysV attach shows in /proc/PID/maps as "/SYSV<key> (deleted)" with the segment's id as inode. Each
 * segment is dumped once per tree: an ipc_shm_entry in ipc-shm.img (id, key, size, mode, owner, whether it
 * was IPC_RMID'ed) and its contents (read through the task's mapping) in pagemap-ipcshm-ID.img +
 * pages-ipcshm-ID.img; the VMAs (kind VMA_SYSV_SHM) name it by id. crshim reads them in the IPC namespace
 * of the tree's root (ns_dump_enter: its fd, worked in through ns_call). In an IPC namespace of the tree's
 * own, the segments no process attaches are the tree's too: each is read through an attach of crshim's own
 * (dump_ipc_shm_own_ns). An attach must cover the whole segment and nobody outside the tree may have it
 * attached. Once the tree is killed the segments go (IPC_RMID): the images hold them, and the restore needs
 * their ids free.
 *
 * Restore: crshim makes each segment before the tree with the same id (kernel.shm_next_id) and key, fills it,
 * sets its owner and mode; the blob attaches it in every process at the same address (shmat SHM_REMAP,
 * SHM_RDONLY for a read-only attach). A segment that was IPC_RMID'ed is removed again once every process has
 * attached it; a failed restore removes every segment it made. The functions take the images dir and work in
 * the caller's IPC namespace, so that an IPC namespace restore can call them from inside a new one. */
#ifndef CRSHIM_IPC_SHM_H
#define CRSHIM_IPC_SHM_H

#include <stdbool.h>
#include <stdint.h>

#include "crshim.h"
#include "image/image.h"

/* ---- dump-ipc-shm.c ---- */
struct dump_ctx;
struct proc_vma;
struct dump_ipc_shm; /* tree-wide: the segments dumped so far */
/* ns_fd: the root's IPC namespace when it is its own (ns_dump_enter), -1: crshim's. */
int dump_ipc_shm_new(struct dump_ipc_shm **out, int ns_fd, struct cr_err *e);
/* The tree has its own IPC namespace: ipc-shm.img also holds the segments none of its
 * processes attaches. */
void dump_ipc_shm_own_ns(struct dump_ipc_shm *s);
void dump_ipc_shm_free(struct dump_ipc_shm *s);
/* A "/SYSV..." VMA of task c: fills ve (kind, shmid, file_flags), dumps the segment the first time. */
int dump_ipc_shm_vma(struct dump_ctx *c, const struct proc_vma *v, VmaEntry *ve, struct cr_err *e);
/* ipc-shm.img (the root, once every task is dumped; nothing without segments); refuses partial attaches and
 * segments attached outside the tree. */
int dump_ipc_shm_write(struct dump_ctx *root, struct cr_err *e);
/* The tree was killed after a dump: remove its segments (those not removed already). */
void dump_ipc_shm_killed(const struct dump_ipc_shm *s);

/* ---- restore-ipc-shm.c ---- */
struct rst_task;
/* Parent, before the tree: make every segment of ipc-shm.img (ids must be free) and check the VMAs. */
int rst_ipc_shm_prepare(struct rst_task *ts, size_t n, struct cr_err *e);
/* Every process has attached its segments: remove those that were IPC_RMID'ed at dump. */
int rst_ipc_shm_attached(struct cr_err *e);
/* End of the restore: after a failure remove every segment made (freed once the killed tree detaches). */
void rst_ipc_shm_done(bool failed);

#endif
