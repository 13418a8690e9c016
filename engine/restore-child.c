/* Restore, child side (normal C, before the blob): the task created by clone3(set_tid) waits until the
 * parent has seized it, then restores what needs no special address space: session, fds, cwd, umask,
 * personality, comm, nice, bounding set, root; unregisters glibc's rseq and jumps into the blob.
 * Any failure: a message on the error pipe and _exit(1) (the parent reports it and reaps us). */
#define LOG_PREFIX "restore-child: "
#include <errno.h>
#include <linux/membarrier.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "base/caps.h"
#include "base/cleanup.h"
#include "base/fault-ids.h"
#include "base/late-fds.h"
#include "base/log.h"
#include "base/proc.h"
#include "pid.h"
#include "files/fdshare.h"
#include "files/ghost.h"
#include "files/procfd.h"
#include "restore.h"
#include "task/seccomp.h"
#include "files/tty.h"
#include "net/sk-unix.h"

#define RSEQ_UNREGISTER 1

static int fail_msg(char *msg, size_t len, const char *what)
{
	snprintf(msg, len, "%s: %s", what, strerror(errno));
	return -1;
}

static const struct rst_task *tree_task(const struct rst_task *t, pid_t pid)
{
	for (size_t i = 0; i < t->ntree; i++)
		if (t->tree[i].pid == pid)
			return &t->tree[i];
	return NULL;
}

/* An id of the images (crshim's view) as this process sees it: inside the tree's PID namespace. */
static pid_t vid(const struct rst_task *t, pid_t id)
{
	return tree_task(t, id) ? rst_pidns_vid(t, id) : id;
}

/* Join the image's process group: its leader (another process of the tree or a helper) may not have made
 * it yet. A group outside the tree is the root's (shell job): the root's group wherever it is now. */
static int join_group(const struct rst_task *t, char *msg, size_t len)
{
	const PstreeEntry *p = t->pst;
	pid_t want = p->pgid;
	if (!tree_task(t, p->pgid)) {
		if (p->pgid != t->tree[0].pst->pgid) {
			snprintf(msg, len, "task %d: process group %d has no leader in the tree", t->pid,
				 p->pgid);
			return -1;
		}
		want = getpgid(vid(t, t->tree[0].pid));
	} else {
		want = vid(t, want);
	}
	if (getpgid(0) == want)
		return 0;
	for (int n = 0; setpgid(0, want); n++) {
		if ((errno != EPERM && errno != ESRCH) || n > 5000)
			return fail_msg(msg, len, "setpgid");
		usleep(1000);
	}
	return 0;
}

/* The session (setsid when it leads one; else it was born in it) and the group. */
static int child_session(const struct rst_task *t, char *msg, size_t len)
{
	const PstreeEntry *p = t->pst;
	if (p->sid == t->pid) {
		if (setsid() < 0)
			return fail_msg(msg, len, "setsid");
		return 0;
	}
	if (p->pgid == t->pid) {
		if (setpgid(0, 0))
			return fail_msg(msg, len, "setpgid");
		return 0;
	}
	if (t->root)
		return 0; /* stay in the restorer's session and group (shell-job semantics) */
	if (tree_task(t, p->sid) && getsid(0) != vid(t, p->sid)) {
		snprintf(msg, len, "task %d: born in session %d, not %d", t->pid, getsid(0), vid(t, p->sid));
		return -1;
	}
	return join_group(t, msg, len);
}

/* struct clone_args (linux/sched.h), up to set_tid_size */
struct child_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size;
};

/* The processes this one clones (its children, or its siblings/helpers' with CLONE_PARENT), with their
 * PIDs: those born in its old session (before) or the rest (after its setsid). Children that share its fd
 * table are cloned with CLONE_FILES (their turn comes before the table is restored: restore-fdtable.c). Each
 * goes on in rst_child. */
static bool spawned_by(const struct rst_task *t, const struct rst_task *x);

/* Which restore areas (by task index) are MADV_DONTFORK in this process (not copied into the child being
 * cloned) and which are not mapped here at all: bits of our own, so that keeping them copies one page, not
 * the tree's array. NULL: not tracked (every area is here; each is removed with munmap). */
static uint8_t *area_nofork, *area_gone;
/* The same for the arenas of the tasks' images (restore-load.c): arena, and farena with it (unless the tree's
 * files_everywhere) */
static uint8_t *arena_nofork, *arena_gone;

static bool bit(const uint8_t *b, size_t i)
{
	return b && (b[i / 8] >> (i % 8)) & 1;
}

static void set_bit(uint8_t *b, size_t i, bool v)
{
	b[i / 8] = (uint8_t)(v ? b[i / 8] | (1u << (i % 8)) : b[i / 8] & ~(1u << (i % 8)));
}

/* Before cloning c: only the restore areas c needs (its own and those of the tasks it clones) are copied
 * into it; the others are MADV_DONTFORK (flipped back when a later child needs them). Each child removed
 * every other task's area before, one munmap and one TLB flush each: O(n^2) for a tree. Not with shared
 * address spaces (drop_other_areas keeps them all then). */
static void areas_for_child(const struct rst_task *t, const struct rst_task *c)
{
	if (t->svm_any)
		return;
	if (!area_nofork) {
		size_t len = t->ntree / 8 + 1;
		uint8_t *b = calloc(4, len);
		if (!b)
			return;
		area_nofork = b, area_gone = b + len, arena_nofork = b + 2 * len, arena_gone = b + 3 * len;
	}
	for (size_t i = 0; i < t->ntree; i++) {
		const struct rst_task *y = &t->tree[i];
		bool mine = y == c || spawned_by(c, y);
		/* its images: also in the tasks that clone it (restore-cow.c reads its spawner's VMAs), and
		 * the root's everywhere */
		bool img = mine || y->root || spawned_by(y, c);
		if (!bit(arena_gone, i) && y->arena && img == bit(arena_nofork, i)) {
			img_arena_fork(y->arena, img);
			if (!t->tree[0].files_everywhere) /* (else always copied: never gone) */
				img_arena_fork(y->farena, img);
			set_bit(arena_nofork, i, !img);
		}
		if (bit(area_gone, i) || !y->area) /* the bit first: no look at the task's entry */
			continue;
		if (mine != bit(area_nofork, i))
			continue;
		if (!madvise(y->area, y->area_len, mine ? MADV_DOFORK : MADV_DONTFORK))
			set_bit(area_nofork, i, !mine);
	}
}

/* A new process: the areas its parent did not copy into it are not here. */
static void areas_born(const struct rst_task *t)
{
	for (size_t i = 0; area_nofork && i < t->ntree; i++) {
		if (bit(area_nofork, i)) {
			set_bit(area_gone, i, true);
			set_bit(area_nofork, i, false);
		}
		if (bit(arena_nofork, i)) {
			set_bit(arena_gone, i, true);
			set_bit(arena_nofork, i, false);
		}
	}
}

/* The signal c sends its parent when it ends: a process made by clone() with another one than SIGCHLD (or
 * none) is one its parent waits for with __WCLONE. A zombie of such gets none (its parent may be restoring
 * still, with no handler for it yet): waited for the same way. */
static uint64_t child_exit_signal(const struct rst_task *c)
{
	if (!c->pst || !c->pst->has_exit_signal || c->pst->has_vm_owner || c->pst->exit_signal == SIGCHLD)
		return SIGCHLD;
	return c->zombie ? 0 : (uint64_t)c->pst->exit_signal;
}

static int spawn_children(struct rst_task *t, bool before, char *msg, size_t len)
{
	for (size_t j = 0; j < t->ntree; j++) {
		struct rst_task *c = &t->tree[j];
		if (c == t || c->spawn_ppid != t->pid || rst_svm_sharer(c) || c->before_setsid != before)
			continue;
		pid_t want[RST_PID_LEVELS]; /* inner first */
		uint32_t nwant = rst_pidns_set_tid(c, want);
		uint64_t share =
		    0; /* what it shares with its parent (dump-share.c), when the parent clones it */
		if (!c->clone_parent && c->spawn_ppid == c->pst->ppid)
			share = c->pst->clone_share & CLONE_FS;
		if (rst_files_sharer_of(t, c)) {
			if (rst_fdtable_clone_prep(c, msg, len))
				return -1;
			share |= CLONE_FILES | CLONE_PIDFD;
		}
		struct child_clone_args ca = {.flags = (c->clone_parent ? CLONE_PARENT : 0) | share |
						       (c->ns_init ? CLONE_NEWPID : 0) |
						       (c->mntns_proc && !c->pst->mntns ? CLONE_NEWNS : 0),
					      .pidfd = (uint64_t)(uintptr_t)&c->fdt_pidfd,
					      .exit_signal = c->clone_parent ? 0 : child_exit_signal(c),
					      .set_tid = (uint64_t)(uintptr_t)want,
					      .set_tid_size = nwant};
		areas_for_child(t, c);
		long r = syscall(SYS_clone3, &ca, sizeof(ca));
		if (r == 0) {
			areas_born(c);
			rst_child(c);
		}
		if (r < 0) {
			snprintf(msg, len, "clone3 child %d: %s", c->pid, strerror(errno));
			return -1;
		}
		if (r != rst_pidns_vid(t, c->pid)) { /* as we see it: a new namespace's init is not 1 to us */
			snprintf(msg, len, "clone3 child %d gave PID %ld", rst_pidns_vid(t, c->pid), r);
			return -1;
		}
		/* it is there: crshim seizes it now (not after its rst_cow_fill, nor on a timer) */
		if (!c->zombie && !c->helper && write(c->err_pipe[1], (char[]){RST_BORN_MARK}, 1) != 1)
			return fail_msg(msg, len, "write the mark of a child");
	}
	return 0;
}

/* An adopter (restore-tree.c plan_cross): a subreaper before it clones anything, so that the helper below it
 * that exits hands it its orphans. */
static int adopt_begin(const struct rst_task *t, char *msg, size_t len)
{
	if (t->adopter && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return fail_msg(msg, len, "prctl(PR_SET_CHILD_SUBREAPER) (an adopter)");
	return 0;
}

/* ... one that is no subreaper in the images: once every child of its in the images is its own (adopted as
 * well), no subreaper any more (a helper that ends later hands its orphans further up), which it tells
 * crshim, which lets that helper go only then. */
static int adopt_end(const struct rst_task *t, char *msg, size_t len)
{
	if (!t->adopter || t->core->child_subreaper)
		return 0;
	for (size_t j = 0, tries = 0; j < t->ntree; tries++) {
		const struct rst_task *c = &t->tree[j];
		siginfo_t si;
		if (c->helper || c->pst->ppid != rst_ipid(t) ||
		    !waitid(P_PID, (id_t)vid(t, rst_ipid(c)), &si, WEXITED | WNOHANG | WNOWAIT | __WALL)) {
			j++;
			continue;
		}
		if (errno != ECHILD && errno != EINTR)
			return fail_msg(msg, len, "waitid (an adopter's children)");
		if (tries > 120000) {
			snprintf(msg, len, "task %d: child %d not adopted", rst_ipid(t), rst_ipid(c));
			return -1;
		}
		usleep(500);
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0))
		return fail_msg(msg, len, "prctl(PR_SET_CHILD_SUBREAPER, 0) (an adopter)");
	if (write(t->err_pipe[1], (char[]){RST_ADOPTED_MARK}, 1) != 1)
		return fail_msg(msg, len, "write the adopter's mark");
	return 0;
}

/* Wait for the helpers this process is the parent of (they exit once crshim released them; handover: those
 * that exit at once, reaped before this process may become a subreaper, so that their children go to the
 * PID namespace's init). */
static int reap_helpers(const struct rst_task *t, bool handover, char *msg, size_t len)
{
	bool any = false;
	for (size_t j = 0; j < t->ntree; j++) {
		const struct rst_task *h = &t->tree[j];
		int st;
		if (!h->helper || h->pst->ppid != t->pid || h->handover != handover)
			continue;
		/* one cloned by another task with CLONE_PARENT may not be there yet: that task has its go
		 * only after this one (ECHILD until then; crshim kills the tree if the restore fails
		 * meanwhile) */
		for (int tries = 0; waitpid(vid(t, h->pid), &st, 0) < 0; tries++)
			if (errno == ECHILD && h->clone_parent && tries < 60000)
				usleep(1000);
			else if (errno != EINTR)
				return fail_msg(msg, len, "wait for a helper");
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			snprintf(msg, len, "helper %d failed (status %#x)", h->pid, st);
			return -1;
		}
		any = true;
	}
	if (any) { /* their SIGCHLD is not the task's */
		sigset_t chld;
		struct timespec zero = {0, 0};
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		while (sigtimedwait(&chld, NULL, &zero) == SIGCHLD)
			;
	}
	return 0;
}

/* A helper: lead the session/group of a gone leader, clone its members, wait for the release, exit. */
__attribute__((noreturn)) static void helper_main(struct rst_task *t)
{
	char msg[512] = "", c;
	ssize_t n;
	if (spawn_children(t, true, msg, sizeof(msg)) || child_session(t, msg, sizeof(msg)) ||
	    spawn_children(t, false, msg, sizeof(msg))) {
		if (write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	if (t->handover)
		_exit(0);
	do
		n = read(t->go_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	_exit(n == 1 ? 0 : 1);
}

/* A zombie of the image: exit at once with its status (nobody reaps it but its parent, later). A dead
 * session or group leader first makes its session/group and clones the members that must be born in it
 * (with CLONE_PARENT: they are its parent's children, like the orphans a subreaper adopted). */
__attribute__((noreturn)) static void zombie_exit(struct rst_task *t)
{
	char msg[256] = "";
	int st = t->core->exit_code;
	if (spawn_children(t, true, msg, sizeof(msg)) || child_session(t, msg, sizeof(msg)) ||
	    spawn_children(t, false, msg, sizeof(msg))) {
		if (t->err_pipe[1] < 0 || write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1); /* not its status: crshim sees the message and fails the restore */
	}
	if (t->go_pipe[0] >= 0) { /* children of its own: their reaper must be ready when it exits */
		char c;
		ssize_t n;
		do
			n = read(t->go_pipe[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(1); /* crshim gave up */
	}
	/* In the tree's user namespace: its processes read a zombie's exit code in /proc/PID/stat only if
	 * they may trace it, which they may not when its credentials are crshim's own, outside. */
	if (ns_rst_user_enter(t->userns_fd, msg, sizeof(msg))) {
		if (t->err_pipe[1] < 0 || write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	/* An unprivileged crshim's zombie keeps none of its file capabilities: the user's tasks read its exit
	 * code in /proc/PID/stat only from a task that holds no fewer capabilities than it. */
	if (geteuid() != 0 && cr_caps_drop_all())
		_exit(1);
	if (WIFSIGNALED(st)) {
		sigset_t one;
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* no core file */
		signal(WTERMSIG(st), SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, WTERMSIG(st));
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		kill(getpid(), WTERMSIG(st));
	}
	_exit(WEXITSTATUS(st));
}

static int chdir_cb(const char *path, void *arg)
{
	return chdir(path);
}

/* A removed cwd made again on its own filesystem from crshim's ghost: an O_PATH fd of it, -1 */
static int cwd_copy(const FsEntry *fs)
{
	__cleanup_close int g = rst_ghost_open_path(fs->cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			    m = g < 0 ? -1 : open(fs->cwd_ghost_mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return m < 0 ? -1
		     : rst_ghost_make_copy(g, m, fs->cwd_ghost_name, fs->cwd_ghost_id, O_PATH | O_DIRECTORY);
}

static int child_fs(const struct rst_task *t, char *msg, size_t len)
{
	const FsEntry *fs = t->fs;
	if (fs->cwd && fs->cwd_dead_pid) { /* in /proc/N of a process gone (files/procfd.h) */
		if (rst_procfd_dead(fs->cwd, chdir_cb, NULL)) {
			snprintf(msg, len, "chdir %s (of a process gone): %s", fs->cwd, strerror(errno));
			return -1;
		}
	} else if (fs->cwd && fs->cwd_ghost_mnt) { /* made again on its own filesystem from crshim's ghost */
		int c = rst_ghost_shared_cwd(t, O_PATH | O_DIRECTORY); /* (once for several processes) */
		__cleanup_close int d = c == -2 ? cwd_copy(fs) : c;
		if (d < 0 || fchdir(d)) {
			snprintf(msg, len, "chdir %s (removed; made again in %s): %s", fs->cwd,
				 fs->cwd_ghost_mnt, strerror(errno));
			return -1;
		}
	} else if (fs->cwd) { /* a removed cwd is a ghost: crshim's fd (files/ghost.h), on its own mount */
		int d = rst_ghost_open_path(fs->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d >= 0 && fs->cwd_mnt)
			d = rst_ghost_dir_on_mount(fs->cwd_mnt, d, O_PATH | O_DIRECTORY);
		if (d < 0 || fchdir(d)) {
			snprintf(msg, len, "chdir %s: %s", fs->cwd, strerror(errno));
			if (d >= 0)
				close(d);
			return -1;
		}
		close(d);
	}
	if (fs->has_umask)
		umask((mode_t)fs->umask);
	return 0;
}

/* Uid g of the initial user namespace as this task's user namespace sees it (a tree born in its user
 * namespace runs in it here; /proc/self/uid_map names the parent's ids, which is the initial one's for the
 * user namespace of a tree); 4294967295 if it maps no such uid. */
static uint32_t uid_here(uint32_t g)
{
	int fd = rst_self_proc_open("uid_map", O_RDONLY | O_CLOEXEC);
	__cleanup_fclose FILE *f = fd < 0 ? NULL : fdopen(fd, "re");
	if (fd >= 0 && !f)
		close(fd);
	unsigned long in, out, n;
	while (f && fscanf(f, "%lu %lu %lu", &in, &out, &n) == 3)
		if (g >= out && g - out < n)
			return (uint32_t)(in + (g - out));
	return UINT32_MAX;
}

/* The audit login uid (per task, inherited from crshim): written when it differs, which needs no privilege
 * while ours is unset and CAP_AUDIT_CONTROL otherwise; before the fd table (its fds are passing) and the
 * user namespace (CAP_AUDIT_CONTROL counts only in the first one). A tree born in its user namespace reads
 * and writes it as that namespace maps it: one it does not map is left as it is (it reads as unset there).
 * Through crshim's /proc when the task's mount tree has none (rst_self_proc_open). */
static int child_loginuid(const CoreEntry *c, char *msg, size_t len)
{
	char cur[16] = "", want[16];
	if (!c->has_loginuid)
		return 0;
	int fd = rst_self_proc_open("loginuid", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, cur, sizeof(cur) - 1);
	if (fd >= 0)
		close(fd);
	if (fd < 0 && errno == ENOENT) { /* a kernel without audit: nothing to keep; or no /proc at all */
		int st = rst_self_proc_open("status", O_RDONLY | O_CLOEXEC);
		if (st >= 0 || c->loginuid == UINT32_MAX) {
			if (st >= 0)
				close(st);
			return 0;
		}
		snprintf(msg, len, "loginuid %u: no /proc to set it through", c->loginuid);
		return -1;
	}
	if (n <= 0) {
		snprintf(msg, len, "read /proc/self/loginuid: %s", n < 0 ? strerror(errno) : "empty");
		return -1;
	}
	uint32_t v = c->loginuid == UINT32_MAX ? UINT32_MAX : uid_here(c->loginuid);
	if (strtoul(cur, NULL, 10) == v || (v == UINT32_MAX && c->loginuid != UINT32_MAX))
		return 0;
	snprintf(want, sizeof(want), "%u", v);
	fd = rst_self_proc_open("loginuid", O_WRONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : write(fd, want, strlen(want));
	int err = errno;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)strlen(want)) {
		snprintf(msg, len, "write %s to /proc/self/loginuid: %s", want, strerror(err));
		return -1;
	}
	return 0;
}

static int child_misc(const struct rst_task *t, char *msg, size_t len)
{
	const CoreEntry *c = t->core;
	if (c->has_personality && personality(c->personality) < 0)
		return fail_msg(msg, len, "personality");
	if (c->comm && prctl(PR_SET_NAME, c->comm, 0, 0, 0))
		return fail_msg(msg, len, "prctl(PR_SET_NAME)");
	if (c->has_sched_policy && c->sched_policy != SCHED_OTHER) {
		struct sched_param sp = {.sched_priority = (int)c->sched_prio};
		if (sched_setscheduler(0, (int)c->sched_policy, &sp))
			return fail_msg(msg, len, "sched_setscheduler");
	}
	if (c->has_nice && setpriority(PRIO_PROCESS, 0, c->nice))
		return fail_msg(msg, len, "setpriority");
	if (c->child_subreaper && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return fail_msg(msg, len, "prctl(PR_SET_CHILD_SUBREAPER)");
	if (c->has_timerslack_ns && c->timerslack_ns && prctl(PR_SET_TIMERSLACK, c->timerslack_ns, 0, 0, 0))
		return fail_msg(msg, len, "prctl(PR_SET_TIMERSLACK)");
	if (c->thp_disabled && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return fail_msg(msg, len, "prctl(PR_SET_THP_DISABLE)");
	/* membarrier registrations belong to the address space, which the blob keeps (it only remaps it) */
	static const unsigned mb_cmds[] = {MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED,
					   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
					   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
					   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ};
	for (size_t i = 0; c->has_membarrier && i < sizeof(mb_cmds) / sizeof(mb_cmds[0]); i++)
		if ((c->membarrier & mb_cmds[i]) && syscall(__NR_membarrier, mb_cmds[i], 0, 0))
			return fail_msg(msg, len, "membarrier (register)");
	return 0; /* (oom_score_adj: crshim writes it, rst_task_oom_adj) */
}

/* Drop from the bounding set what the image's task did not have (needs CAP_SETPCAP: do it as root). */
static int child_bounding(const struct rst_task *t, char *msg, size_t len)
{
	if (!t->creds || !t->creds->has_cap_bnd)
		return 0;
	for (int cap = 0; cap < 64; cap++) {
		int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (r < 0)
			break; /* past the last capability */
		if (r == 1 && !(t->creds->cap_bnd & (1ull << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			snprintf(msg, len, "drop capability %d from the bounding set: %s", cap,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* glibc registered rseq for this thread in crshim's TLS, which the blob unmaps. */
static int child_rseq_off(char *msg, size_t len)
{
	if (!__rseq_size)
		return 0;
	void *area = (char *)__builtin_thread_pointer() + __rseq_offset;
	if (!syscall(SYS_rseq, area, __rseq_size, RSEQ_UNREGISTER, arch_rseq_sig()))
		return 0;
	if (errno == EINVAL && !syscall(SYS_rseq, area, 32, RSEQ_UNREGISTER, arch_rseq_sig()))
		return 0;
	return fail_msg(msg, len, "rseq unregister");
}

static int child_root(const struct rst_task *t, char *msg, size_t len)
{
	const char *root = t->fs->root;
	if (!root || !strcmp(root, "/"))
		return 0;
	if (chroot(root)) {
		snprintf(msg, len, "chroot %s: %s", root, strerror(errno));
		return -1;
	}
	return 0;
}

static void drop_other_areas(const struct rst_task *t, bool keep_spawned);

static int child_setup(struct rst_task *t, char *msg, size_t len)
{
	if (!rst_files_shared(t)) /* in a table restored by the parent the log's fd number is the task's */
		pr_debug("task %d: session, fds, fs\n", t->pid);
	/* from here on nothing is logged (log_drop): the log's fd number may become one of the task's */
	if (t->fault == FI_RESTORE_FILES) /* no fault_hit(): it logs */
		snprintf(msg, len, "fault injected at restore-files");
	bool fs_shared =
	    (t->pst->clone_share & CLONE_FS) && !t->clone_parent && !t->helper &&
	    t->spawn_ppid == t->pst->ppid; /* cloned with CLONE_FS: the parent sets cwd, umask, root */
	bool files_shared =
	    rst_files_shared(t); /* a process up the line restores the fds, ours in our turn */
	/* a sharer's cwd before its turn ends: then the process restoring the table closes crshim's fds in it
	 * (a removed cwd opens through them) */
	bool fs_early = files_shared && !fs_shared;
	if (child_loginuid(t->core, msg, len) || (fs_early && child_fs(t, msg, len)) ||
	    (files_shared ? rst_fdtable_self(t, msg, len) : rst_child_files(t, msg, len)) ||
	    t->fault == FI_RESTORE_FILES || (!fs_shared && !fs_early && child_fs(t, msg, len)) ||
	    child_misc(t, msg, len) || (t->userns_fd < 0 && child_bounding(t, msg, len)) ||
	    child_rseq_off(msg, len) || (drop_other_areas(t, false), rst_child_fill_unmap(t, msg, len)) ||
	    rst_procfd_open(t, msg, len) || (!fs_shared && child_root(t, msg, len)))
		return -1;
	return 0;
}

/* x is cloned by t or by a task that t clones (and so on). */
static bool spawned_by(const struct rst_task *t, const struct rst_task *x)
{
	long ti = t - t->tree;
	for (int depth = 0; depth < 4096 && x->spawn_idx >= 0; depth++) {
		if (x->spawn_idx == ti)
			return true;
		x = &t->tree[x->spawn_idx];
	}
	return false;
}

/* The restore areas (restore-mm.c) of the tasks this one does not clone: every task inherited every area
 * from crshim, so clone3 copied and each blob removed n of them per task (O(n^2) VMAs for a tree). Its own
 * and (keep_spawned) those of the tasks it clones stay: once it cloned them, only its own (its maps, which
 * the blob reads, stay short: 2000 tasks' areas overflowed them); with shared address spaces (rst_svm_keep)
 * all of them stay. */
static void drop_other_areas(const struct rst_task *t, bool keep_spawned)
{
	if (t->svm_any)
		return;
	for (size_t i = 0; i < t->ntree; i++) {
		const struct rst_task *x = &t->tree[i];
		if (!bit(area_gone, i) && x != t && x->area && (!keep_spawned || !spawned_by(t, x))) {
			munmap(x->area, x->area_len);
			if (area_gone)
				set_bit(area_gone, i, true);
		}
	}
}

/* fd (close-on-exec) moved to the lowest free number (from 3): its new number; see drop_other_pipes */
static int fd_down(int fd)
{
	int n = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (n < 0)
		return fd;
	if (n > fd) { /* (already as low as it goes) */
		close(n);
		return fd;
	}
	close(fd);
	return n;
}

/* The pipe ends (error, go) and page files of the tasks this one does not clone, which it has from the
 * process that cloned it (crshim made two pipes per task before the root; each process held every task's ends
 * until its close_range, and copied them into each child: O(n^2) fds closed for a tree). Open here are those
 * of the tasks the spawner clones (it closed the others the same way; the root has them all), at their
 * numbers (not the spawner's own: its go end is closed and the number may be another fd by now). Those it
 * keeps, and its own, go down to the lowest free numbers: a clone3 copies a table as long as the highest open
 * fd and the child's close_range (restore-files.c) goes through all of it (in a tree of 2000 processes, 16384
 * fds per child). A process that clones none leaves them all to that close_range. Not with a shared fd
 * table, nor with shared address spaces (the spawner's numbers may have moved). */
static void drop_other_pipes(struct rst_task *t)
{
	bool spawned = t->spawn_idx >= 0; /* (not p == NULL: scan-build then takes t->tree for NULL) */
	const struct rst_task *p = spawned ? &t->tree[t->spawn_idx] : NULL;
	if (t->svm_any || (!t->root && !spawned) || rst_files_shared(t) || (spawned && rst_files_shared(p)))
		return;
	bool spawns = false;
	for (size_t i = 0; i < t->ntree && !spawns; i++)
		spawns = &t->tree[i] != t && spawned_by(t, &t->tree[i]);
	if (!spawns)
		return;
	for (size_t i = 0; i < t->ntree && spawned; i++) {
		const struct rst_task *x = &t->tree[i];
		if (x == t || !spawned_by(p, x) || spawned_by(t, x))
			continue;
		if (x->err_pipe[1] >= 0)
			close(x->err_pipe[1]);
		if (x->go_pipe[0] >= 0)
			close(x->go_pipe[0]);
		if (x->pm.pages_fd >= 0) /* its page file: crshim opened each (restore-load.c) */
			close(x->pm.pages_fd);
	}
	for (size_t i = 0; i < t->ntree; i++) {
		struct rst_task *x = &t->tree[i];
		if (x == t || spawned_by(t, x)) {
			x->err_pipe[1] = fd_down(x->err_pipe[1]);
			x->go_pipe[0] = fd_down(x->go_pipe[0]);
			x->pm.pages_fd = fd_down(x->pm.pages_fd);
		}
	}
}

bool rst_mntns_joined(const struct rst_task *ts, size_t n, const struct rst_task *t)
{
	for (size_t i = 0; t->pst && t->pst->mntns && i < n; i++)
		if (ts[i].pst && ts[i].pst->mntns_join && ts[i].pst->mntns_join == t->pst->pid)
			return true;
	return false;
}

/* A nested mount namespace another process enters: it stands (said already when crshim makes unix sockets in
 * it: rst_sk_unix_nested_take). */
static int mntns_stand(const struct rst_task *t, char *msg, size_t len)
{
	bool links = rst_ghost_links(t);
	if (!rst_sk_unix_nested_has(t) && (links || rst_mntns_joined(t->tree, t->ntree, t)) &&
	    write(t->err_pipe[1], (char[]){RST_STAND_MARK}, 1) != 1)
		return rst_errmsg(msg, len, "tell crshim that its mount namespace stands");
	if (!links)
		return 0;
	/* crshim links the ghosts it opens on its mounts there (rst_ghost_link_nested), then says go */
	char c;
	ssize_t n;
	do
		n = read(t->go_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(t->go_pipe[0]);
	return n == 1 ? 0 : rst_errmsg(msg, len, "wait for crshim in its mount namespace");
}

/* The root task of a tree with its own mount tree: it stands; crshim makes what needs it (restore.c), then
 * the root takes crshim's unix sockets. */
static int mounts_stand(const struct rst_task *t, char *msg, size_t len)
{
	char c;
	ssize_t n;
	if (rst_sk_unix_premake_root(t, msg, len))
		return -1;
	if (write(t->err_pipe[1], (char[]){RST_BORN_MARK}, 1) != 1)
		return rst_errmsg(msg, len, "tell crshim that the mount tree stands");
	if (rst_sk_unix_serve_root(t->go_pipe[0], msg, len))
		return -1;
	do
		n = read(t->go_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(1); /* crshim gave up */
	close(t->go_pipe[0]);
	return late_fds_recv(msg, len) || rst_sk_unix_root(msg, len);
}

/* Every signal blocked, glibc's own too (its sigprocmask leaves out 32 and 33; 32 is SIGTIMER of SIGEV_THREAD
 * timers): the blob's threads inherit this mask and the timers it arms may fire at once; crshim sets the
 * image's masks with PTRACE_SETSIGMASK once every thread is parked (engine/restore.c). */
static int block_all_signals(const char **what)
{
	uint64_t all = ~0ull;
	*what = "rt_sigprocmask (block every signal)";
	return (int)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, sizeof(all));
}

void rst_child(struct rst_task *t)
{
	char msg[512] = "";
	char c;
	ssize_t n;

	/* crshim's ends: only the root was cloned by crshim; every other task was cloned, with a copy of its
	 * table (or sharing it), by a task that closed them already (n closes per task made the tree O(n^2))
	 */
	for (size_t i = 0; i < t->ntree && t->root && !rst_files_shared(t); i++) {
		if (t->tree[i].go_pipe[1] >= 0)
			close(t->tree[i].go_pipe[1]);
		if (t->tree[i].err_pipe[0] >= 0)
			close(t->tree[i].err_pipe[0]);
		t->tree[i].go_pipe[1] = t->tree[i].err_pipe[0] = -1; /* (the numbers become others') */
	}
	if (!rst_files_shared(t)) {
		close(t->go_pipe[1]);
		close(t->err_pipe[0]);
	}
	if (t->zombie)
		zombie_exit(t);
	if (t->helper)
		helper_main(t);
	/* its memory for its children, before it is seized: the others' goes do not wait for it */
	if (!t->root && rst_cow_fill(t, !rst_files_shared(t), msg, sizeof(msg))) {
		if (write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	if (!t->root) /* while crshim seizes it */
		drop_other_areas(t, true);
	drop_other_pipes(t);
	do
		n = read(t->go_pipe[0], &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(1);					   /* the parent gave up */
	bool late = t->root && rst_mounts_late(t->tree, t->ntree); /* a second go, once its mounts stand */
	if (!late && !(t->pst->mntns && rst_ghost_links(t)))	   /* (... or its nested ones: mntns_stand) */
		close(t->go_pipe[0]);
	pid_t spawner = t->spawn_idx >= 0 && !t->tree[t->spawn_idx].helper ? t->tree[t->spawn_idx].pid : 0;
	if (ns_rst_task_net(t->tree[0].ns, t->pid, spawner, msg, sizeof(msg)) || /* its network namespace */
	    (t->root &&
	     (ns_rst_root_child(t->ns, msg, sizeof(msg)) || (late && mounts_stand(t, msg, sizeof(msg))) ||
	      rst_fdshare_root(msg, sizeof(msg)))) ||
	    (t->pst->mntns_up && ns_rst_mntns_up(&rst_mnt_up_ns, &rst_mnt_up_root, msg, sizeof(msg))) ||
	    (t->pst->mntns_join && (ns_rst_mntns_join(rst_pidns_vid(t, t->pst->mntns_join), &rst_mnt_up_ns,
						      &rst_mnt_up_root, msg, sizeof(msg)) ||
				    rst_fdshare_joined(t->pst->mntns_join, msg, sizeof(msg)) ||
				    rst_ghost_copy_joined(t, msg, sizeof(msg)))) ||
	    (t->pst->mntns
		 ? ns_rst_mntns(t->tree[0].ns, t->pst->mntns, &rst_mnt_up_ns, &rst_mnt_up_root, msg,
				sizeof(msg)) ||
		       rst_fdshare_nested(t->pid, msg, sizeof(msg)) ||
		       rst_ghost_copy_nested(t, msg, sizeof(msg)) ||
		       rst_sk_unix_nested_take(t, msg, sizeof(msg)) || mntns_stand(t, msg, sizeof(msg))
		 : (t->mntns_proc && !(t->root && ns_rst_mounts(t->ns)) &&
		    ns_pid_mount_proc(msg, sizeof(msg))) ||
		       rst_sk_unix_nested_take(t, msg, sizeof(msg))) || /* (a nested PID namespace's) */
	    (t->root && rst_cow_fill(t, !rst_files_shared(t), msg, sizeof(msg))) ||
	    adopt_begin(t, msg, sizeof(msg)) || spawn_children(t, true, msg, sizeof(msg)) ||
	    child_session(t, msg, sizeof(msg)) || rst_tty_child_session(t, msg, sizeof(msg)) ||
	    spawn_children(t, false, msg, sizeof(msg)) || rst_sk_unix_outer_take(t, msg, sizeof(msg)) ||
	    reap_helpers(t, true, msg, sizeof(msg)) || adopt_end(t, msg, sizeof(msg)) ||
	    child_setup(t, msg, sizeof(msg)) || reap_helpers(t, false, msg, sizeof(msg))) {
		rst_procfd_abort(t); /* (a no-op once it opened its /proc files) */
		if (write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	/* the tree's user namespace: now that the children are cloned (their pids set from crshim's user
	 * namespace) and the files opened; its fd is one of the helper fds the restorer closes */
	/* (entering it makes the bounding set full again: it is cut down in there, where we may) */
	int later = rst_svm_userns_later(t, msg, sizeof(msg)); /* (an owner of sharers: the blob enters) */
	if (later < 0 || (!later && ns_rst_user_enter(t->userns_fd, msg, sizeof(msg))) ||
	    (!later && t->userns_fd >= 0 && child_bounding(t, msg, sizeof(msg)))) {
		if (write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	/* last: the children are made; crshim traces us with PTRACE_O_SUSPEND_SECCOMP until we run */
	const char *what = "";
	if (block_all_signals(&what) ||
	    rst_seccomp_install(t->core->seccomp, rst_task_seccomp_common(t), &what)) {
		snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));
		if (write(t->err_pipe[1], msg, strlen(msg)) < 0)
			_exit(2);
		_exit(1);
	}
	struct rst_args *a = t->args;
	arch_jump_to_blob((char *)t->area + RST_OFF_ENTRY, a, (void *)(uintptr_t)a->stack_top);
}
