/* Dirty-page tracking across crshim runs (pre-dump --track-mem, then dump --prev-images-dir): one userfaultfd
 * per address space of the tree, made in the task itself, write-protecting its private memory in async mode;
 * PAGEMAP_SCAN tells which pages were written since. A keeper process holds the userfaultfds between runs and
 * is found again through a socket in the images dir (engine/mem/README.md). */
#ifndef CRSHIM_MEM_TRACK_H
#define CRSHIM_MEM_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/err.h"
#include "task/infect.h"

struct cr_opts;
struct mem_track;

#define MEM_TRACK_SOCK "mem-track.sock" /* the keeper's socket, in the images dir of a tracked pre-dump */
#define MEM_TRACK_MAX 250		/* address spaces one keeper holds (one SCM_RIGHTS message) */

/* What dump-mm.c needs of one process. */
struct mem_track_task {
	pid_t pid;
	uint64_t start_time; /* /proc/PID/stat field 22: a reused PID is another process */
	int uffd;	     /* -1: none */
	bool inherited;	     /* taken from the parent's keeper: its registered VMAs are write-protected */
};

/* The tree's tracking: parent_dirfd >= 0 when prev_images_dir is given (the parent images, checked); with
 * o->track_mem the parent's keeper is asked for its userfaultfds (none: everything is saved whole). */
int mem_track_open(struct cr_opts *o, int dirfd, struct mem_track **t, struct cr_err *e);
int mem_track_parent_dirfd(const struct mem_track *t);
bool mem_track_on(const struct mem_track *t);
/* This process's tracking, or NULL (not tracked before). */
struct mem_track_task *mem_track_find(struct mem_track *t, pid_t pid, uint64_t start_time);
/* In a pre-dump: a new userfaultfd for the task (remote syscall, taken with pidfd_getfd, closed in the task:
 * its fd table is as before); a no-op when it already has one. */
int mem_track_infect(struct mem_track *t, struct infect *in, pid_t pid, uint64_t start_time,
		     struct cr_err *e);
/* Register [start, end) for async write-protect (0, or -1 with errno: the VMA stays untracked). */
int mem_track_register(int uffd, uint64_t start, uint64_t end);
/* Write-protect every written page of [start, end) again (PAGEMAP_SCAN with PM_SCAN_WP_MATCHING). */
int mem_track_protect(int pagemap_fd, uint64_t start, uint64_t end, struct cr_err *e);
/* dump-mm.c says it write-protected pages of an inherited userfaultfd again (a failure then ends the
 * parent's tracking: the pages written before are no longer told apart). */
void mem_track_touched(struct mem_track *t);
/* At the end of a dump (ok: it succeeded): a pre-dump hands the userfaultfds to a new keeper in dirfd; a
 * dump ends the parent's keeper. Failures here are logged, not fatal (the images are complete). */
void mem_track_done(struct mem_track *t, bool ok, bool pre_dump, int dirfd);
void mem_track_free(struct mem_track *t);

#endif
