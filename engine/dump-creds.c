/* Dump of identity and fs state: creds-PID.img, fs-PID.img. */
#define LOG_PREFIX "dump-creds: "
#include <stdlib.h>

#include "cleanup.h"
#include "dump.h"
#include "ghost.h"
#include "log.h"

static int write_creds(struct dump_ctx *c, struct cr_err *e)
{
	CredsEntry ce = CREDS_ENTRY__INIT;
	const struct proc_status *st = &c->st;
	ce.uid = st->uid[0], ce.has_uid = 1;
	ce.euid = st->uid[1], ce.has_euid = 1;
	ce.suid = st->uid[2], ce.has_suid = 1;
	ce.fsuid = st->uid[3], ce.has_fsuid = 1;
	ce.gid = st->gid[0], ce.has_gid = 1;
	ce.egid = st->gid[1], ce.has_egid = 1;
	ce.sgid = st->gid[2], ce.has_sgid = 1;
	ce.fsgid = st->gid[3], ce.has_fsgid = 1;
	ce.n_groups = st->ngroups, ce.groups = st->groups;
	ce.cap_inh = st->cap_inh, ce.has_cap_inh = 1;
	ce.cap_prm = st->cap_prm, ce.has_cap_prm = 1;
	ce.cap_eff = st->cap_eff, ce.has_cap_eff = 1;
	ce.cap_bnd = st->cap_bnd, ce.has_cap_bnd = 1;
	ce.cap_amb = st->cap_amb, ce.has_cap_amb = 1;
	ce.securebits = c->rem.securebits, ce.has_securebits = 1;
	return dump_write_one(c, IMG_CREDS, &ce.base, e);
}

static int write_fs(struct dump_ctx *c, struct cr_err *e)
{
	FsEntry fe = FS_ENTRY__INIT;
	__cleanup_free char *cwd = NULL, *root = NULL;
	if (proc_readlink(c->pid, "cwd", &cwd, e) || proc_readlink(c->pid, "root", &root, e))
		return -1;
	if (dump_ghost_cwd(c, cwd, &fe.cwd_ghost_id, e)) /* a removed cwd */
		return -1;
	fe.has_cwd_ghost_id = fe.cwd_ghost_id != 0;
	fe.cwd = cwd;
	fe.root = root;
	if (c->st.umask >= 0)
		fe.umask = (uint32_t)c->st.umask, fe.has_umask = 1;
	return dump_write_one(c, IMG_FS, &fe.base, e);
}

int dump_creds_write(struct dump_ctx *c, struct cr_err *e)
{
	if (write_creds(c, e))
		return cr_wrap(e, "creds");
	if (write_fs(c, e))
		return cr_wrap(e, "fs");
	return 0;
}
