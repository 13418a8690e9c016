/* Processes that share their parent's fd table (CLONE_FILES, pstree_entry.clone_share; dump-share.c).
 *
 * The parent restores the table (rst_child_files) and only then creates such a child, with CLONE_FILES
 * (restore-child.c). The child restores no fd itself. What it needs until its blob is done (go and error
 * pipes, page file, mapped files, exe) the parent keeps through its own fd restore (restore-files.c) and
 * then places, with the child's mapped files and exe, in a range of fds above everything the parent uses:
 * each blob closes only its own range (helper_fd_lo..helper_fd_hi), so neither closes the other's. */
#define LOG_PREFIX "restore-fdtable: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "files/ghost.h"
#include "restore.h"

bool rst_files_shared(const struct rst_task *t)
{
	return !t->zombie && !t->helper && !t->clone_parent && t->pst &&
	       (t->pst->clone_share & CLONE_FILES) &&
	       t->spawn_ppid == t->pst->ppid; /* cloned by the parent it shares the table with */
}

bool rst_files_sharer_of(const struct rst_task *t, const struct rst_task *c)
{
	return c != t && c->spawn_ppid == t->pid && rst_files_shared(c);
}

static int fail_msg(char *msg, size_t len, const char *what, int pid)
{
	snprintf(msg, len, "task %d (shares the fd table): %s: %s", pid, what, strerror(errno));
	return -1;
}

/* Without malloc (getdents64 into the stack): the child's memory layout is taken before some callers. */
int rst_fd_top(void)
{
	int top = -1, own = rst_self_proc_open("fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char buf[4096];
	long n;
	if (own < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, own, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			int fd = atoi(de->d_name);
			if (de->d_name[0] != '.' && fd > top && fd != own)
				top = fd;
			off += de->d_reclen;
		}
	close(own);
	return n < 0 ? -1 : top;
}

/* fd moved to >= *next (closing fd); *next moves on. */
static int place(int fd, int *next, bool close_old)
{
	int nfd = fd_copy_above(fd, *next, close_old);
	if (nfd >= 0)
		*next = nfd + 1;
	return nfd;
}

static int place_ghost(int *own, void *next)
{
	return (*own = place(*own, next, true)) < 0 ? -1 : 0;
}

static int place_child(struct rst_task *c, int *next, char *msg, size_t len)
{
	struct rst_args *a = c->args;
	int32_t *mfd = (int32_t *)(uintptr_t)a->mfd;
	a->helper_fd_lo = *next;
	if ((c->go_pipe[0] = place(c->go_pipe[0], next, true)) < 0 ||
	    (c->err_pipe[1] = place(c->err_pipe[1], next, true)) < 0 ||
	    (c->pm.pages_fd = a->pages_fd = place(c->pm.pages_fd, next, true)) < 0 ||
	    (c->userns_fd >= 0 && (c->userns_fd = place(c->userns_fd, next, false)) < 0))
		return fail_msg(msg, len, "move its fds", c->pid);
	for (size_t i = 0; i < c->nr_mfiles; i++) {
		bool own = c->mfiles[i].fd < 0; /* a path, else a kept fd of a shared memory object */
		int fd = c->mfiles[i].task_fd1
			     ? fcntl(c->mfiles[i].task_fd1 - 1, F_DUPFD_CLOEXEC, 0) /* rings */
			 : own ? rst_ghost_open_path_as(rst_pidns_self(c), c->mfiles[i].path,
							c->mfiles[i].oflags | O_CLOEXEC)
			       : c->mfiles[i].fd;
		if (fd < 0 || (mfd[i] = place(fd, next, true)) < 0)
			return fail_msg(msg, len, c->mfiles[i].path, c->pid);
	}
	if (rst_ghost_sharer_copies(rst_pidns_self(c), place_ghost, next)) /* its removed cwd */
		return fail_msg(msg, len, "move its copies of deleted files", c->pid);
	int fd = open(c->mm->exe_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (fd = place(fd, next, true)) < 0)
		return fail_msg(msg, len, c->mm->exe_path, c->pid);
	a->mm.exe_fd = (uint32_t)fd;
	a->helper_fd_hi = *next - 1;
	return 0;
}

int rst_fdtable_place(struct rst_task *t, char *msg, size_t len)
{
	int next = -1;
	for (size_t j = 0; j < t->ntree; j++) {
		struct rst_task *c = &t->tree[j];
		if (!rst_files_sharer_of(t, c))
			continue;
		if (next < 0) {
			next = rst_fd_top() + 1;
			if (next <= 0)
				return fail_msg(msg, len, "/proc/self/fd", c->pid);
			t->args->helper_fd_hi = next - 1; /* ours end below the children's */
		}
		if (place_child(c, &next, msg, len))
			return -1;
	}
	return 0;
}
