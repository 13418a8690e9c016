/* fs-PID.img: the working directory (a removed one: a ghost, dump-ghost.c; made again by its process on a
 * filesystem only its mount namespace shows: file-reg.c dump_ghost_own_dir), the root and the umask. */
#define LOG_PREFIX "dump-fs: "
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/cleanup.h"
#include "dump.h"
#include "files/ghost.h"
#include "files/procfd.h"

int dump_fs_write(struct dump_ctx *c, struct cr_err *e)
{
	FsEntry fe = FS_ENTRY__INIT;
	__cleanup_free char *cwd = NULL, *root = NULL;
	if (proc_readlink(c->pid, "cwd", &cwd, e) || proc_readlink(c->pid, "root", &root, e))
		return cr_wrap(e, "fs");
	fe.cwd_dead_pid = dump_procfd_dead(c->pid, cwd), fe.has_cwd_dead_pid = fe.cwd_dead_pid;
	if (!fe.cwd_dead_pid && dump_ghost_cwd(c, cwd, &fe.cwd_ghost_id, e)) /* a removed cwd */
		return cr_wrap(e, "fs");
	fe.has_cwd_ghost_id = fe.cwd_ghost_id != 0;
	fe.cwd = cwd;
	fe.root = root;
	if (c->st.umask >= 0)
		fe.umask = (uint32_t)c->st.umask, fe.has_umask = 1;
	char src[64];
	struct stat st;
	snprintf(src, sizeof(src), "/proc/%d/cwd", (int)c->pid);
	int r = fe.has_cwd_ghost_id && stat(src, &st) ? cr_fail_sys(e, "stat %s", src) : 0;
	r = r ||
	    (fe.has_cwd_ghost_id && dump_ghost_own_dir(c, "removed cwd", cwd, fe.cwd_ghost_id, st.st_dev,
						       &fe.cwd_ghost_mnt, &fe.cwd_ghost_name, e)) ||
	    (fe.has_cwd_ghost_id && !fe.cwd_ghost_mnt &&
	     dump_ghost_cwd_mnt(c, cwd, fe.cwd_ghost_id, src, &fe.cwd_mnt, e)) ||
	    dump_write_one(c, IMG_FS, &fe.base, e);
	free(fe.cwd_mnt);
	free(fe.cwd_ghost_mnt);
	free(fe.cwd_ghost_name);
	return r ? cr_wrap(e, "fs") : 0;
}
