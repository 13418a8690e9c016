/* The restore's own checks, without the restore: `restore --check-only`, and every dump once its images are
 * written and before it kills or lets the tree go (whatever the restore would refuse, the dump refuses first,
 * and the tree keeps running). The images are loaded by the restore's loader (restore-load.c) and each kind
 * of object checked by the restore's own checks (the fd kinds' check hooks, files in flight, shared address
 * spaces, pipes, descriptions and event fds shared by several processes, shared memory objects and the VMAs
 * mapping them or a packet socket's rings, pagemaps against their pages files, paths of files and mappings,
 * credentials, the vDSO layout, the plan of who makes each process in which session and group, the namespaces
 * and mount tree of ns.img and mnt.img); t->dry makes the loader make nothing: no prefill, ghosts only named,
 * no process, no fd of the tree, no mount, no namespace. What a restore makes in its later stages (sockets
 * bound, namespaces, the mount tree) is not tried.
 *
 * At dump the restore's options are not known: the check takes the restore's defaults, and for what only
 * options give, the live tree (o->live_root: alive and frozen) stands in. This is what lets it run for
 * containers (a network, mount or user namespace of their own, external ones):
 * - --root of a tree with its own mount tree: /proc/ROOT/root. The restore opens the paths of files, FIFOs,
 *   mappings and the executable in the mount tree it makes again from mnt.img; the check looks them up in the
 *   live one, from each process's /proc/PID/root (openat2 RESOLVE_IN_ROOT, restore-load.c live_root): a
 *   file held or mapped in a directory over-mounted since is refused there as it is in crshim's own mount
 *   tree. A process whose root is not its mount namespace's (a chroot) has its paths left to the restore.
 * - the sources of external mounts (--external mnt[KEY]:PATH) and an external network namespace
 *   (--inherit-fd / --join-ns): the live tree's own mounts and namespace; nothing is made from them.
 * Left to the restore, said in the log: the mounts that crshim makes for a tree born in its user namespace
 * (ns_mnt_premake: making them would make mounts), the PIDs (the live tree's own), files inherited from the
 * caller (--inherit-fd). */
#define LOG_PREFIX "restore-check: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/log.h"
#include "dump.h"
#include "files/evfd.h"
#include "files/fdshare.h"
#include "files/pipes.h"
#include "files/procfd.h"
#include "mem/shmem.h"
#include "net/sk-unix.h"
#include "restore.h"

static int dry_tree(struct cr_opts *ro, struct rst_task **tsp, size_t *np, struct cr_err *e)
{
	if (rst_load(ro, &(*tsp)[0], e) || rst_load_tree(ro, tsp, np, e))
		return -1;
	/* in the restore's order: the pipes and other descriptions shared by several processes (their entries
	 * become inherited, as the checks after them see them at restore), the shared memory objects and the
	 * VMAs that map them or a packet socket's rings, the event fds held by several processes (nothing
	 * opened or made by any); rst_tree_plan: who
	 * makes each process, with helpers for sessions and groups whose leader is gone; the files of
	 * /proc/PID (no barrier made) */
	return rst_svm_prepare(*tsp, *np, e) || rst_sk_scm_check(*tsp, *np, e) ||
		       rst_pipes_share(*tsp, *np, e) || rst_fdshare_prepare(*tsp, *np, e) ||
		       rst_shmem_prepare(*tsp, *np, e) || rst_evfd_share(*tsp, *np, e) ||
		       rst_sk_unix_check(*tsp, *np, e) || rst_tree_plan(ro, tsp, np, e) ||
		       rst_fdtable_check(*tsp, *np, e) || rst_procfd_prepare(*tsp, *np, e)
		   ? -1
		   : 0;
}

int rst_dry_run(const struct cr_opts *o, bool at_dump, struct cr_err *e)
{
	struct cr_opts ro = *o;
	char root[64];
	if (at_dump) { /* the restore's options are not known: its defaults, and the live tree for the rest */
		eng_opts_init(&ro);
		ro.imgdir_fd = o->imgdir_fd;
		ro.images_dir = o->images_dir;
		ro.tcp_close = o->tcp_close; /* connections dumped without their stream: restored closed */
		ro.check_only = true;
		ro.live_root = o->pid;
		snprintf(root, sizeof(root), "/proc/%d/root", o->pid); /* --root of a mount tree of its own */
		ro.root = root;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct rst_task *ts = calloc(1, sizeof(*ts));
	size_t n = 1;
	if (!ts)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	*ts = (struct rst_task){.dirfd = -1,
				.pm = {.pages_fd = -1},
				.err_pipe = {-1, -1},
				.go_pipe = {-1, -1},
				.lazy_sk = -1,
				.dry = true,
				.dry_dump = at_dump};
	int ret = dry_tree(&ro, &ts, &n, e);
	rst_pipes_share_done();
	rst_fdshare_done();
	rst_shmem_done();
	rst_evfd_share_done();
	ns_rst_done(ts[0].ns, true); /* entered nothing, made nothing: only freed */
	ts[0].ns = NULL;
	for (size_t k = n; k-- > 0;) {
		free(ts[k].own_pst); /* a helper's (rst_tree_plan) */
		rst_free(&ts[k]);
	}
	free(ts);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ret)
		pr_info("the restore's checks pass: %zu processes (%.1f ms)\n", n,
			(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	return ret;
}

int eng_dump_restore_check(const struct cr_opts *o, bool pages_elsewhere, struct cr_err *e)
{
	if (fault_check(o, FI_DUMP_RESTORE_CHECK, e))
		return cr_wrap(e, "the restore could not make the tree again (it keeps running)");
	if (o->pre_dump || o->lazy_pages || pages_elsewhere) {
		pr_info("the restore's checks are left to the restore: the tree has its pages elsewhere than "
			"in the images dir\n");
		return 0;
	}
	if (rst_dry_run(o, true, e))
		return cr_wrap(e, "the restore could not make the tree again (it keeps running)");
	return 0;
}

int eng_restore_check(struct cr_opts *o, struct cr_err *e)
{
	bool own_dir = o->imgdir_fd < 0;
	if (eng_ext_check(o, e))
		return -1;
	if (own_dir) {
		o->imgdir_fd = open(o->images_dir ? o->images_dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (o->imgdir_fd < 0)
			return cr_fail_sys(e, "open images dir %s", o->images_dir ? o->images_dir : ".");
	}
	int ret = rst_dry_run(o, false, e);
	if (ret)
		cr_wrap(e, "the restore could not make the tree");
	if (own_dir) {
		close(o->imgdir_fd);
		o->imgdir_fd = -1;
	}
	return ret;
}
