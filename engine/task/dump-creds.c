/* Dump of identity and fs state: creds-PID.img, fs-PID.img. */
#define LOG_PREFIX "dump-creds: "
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "dump.h"
#include "base/log.h"

static void fill_creds(CredsEntry *ce, const struct proc_status *st, uint32_t securebits)
{
	ce->uid = st->uid[0], ce->has_uid = 1;
	ce->euid = st->uid[1], ce->has_euid = 1;
	ce->suid = st->uid[2], ce->has_suid = 1;
	ce->fsuid = st->uid[3], ce->has_fsuid = 1;
	ce->gid = st->gid[0], ce->has_gid = 1;
	ce->egid = st->gid[1], ce->has_egid = 1;
	ce->sgid = st->gid[2], ce->has_sgid = 1;
	ce->fsgid = st->gid[3], ce->has_fsgid = 1;
	ce->n_groups = st->ngroups, ce->groups = st->groups;
	ce->cap_inh = st->cap_inh, ce->has_cap_inh = 1;
	ce->cap_prm = st->cap_prm, ce->has_cap_prm = 1;
	ce->cap_eff = st->cap_eff, ce->has_cap_eff = 1;
	ce->cap_bnd = st->cap_bnd, ce->has_cap_bnd = 1;
	ce->cap_amb = st->cap_amb, ce->has_cap_amb = 1;
	ce->securebits = securebits, ce->has_securebits = 1;
}

static int write_creds(struct dump_ctx *c, struct cr_err *e)
{
	CredsEntry ce = CREDS_ENTRY__INIT;
	fill_creds(&ce, &c->st, c->rem.securebits);
	return dump_write_one(c, IMG_CREDS, &ce.base, e);
}

static bool same_creds(const struct proc_status *a, const struct proc_status *b)
{
	return !memcmp(a->uid, b->uid, sizeof(a->uid)) && !memcmp(a->gid, b->gid, sizeof(a->gid)) &&
	       a->ngroups == b->ngroups &&
	       (!a->ngroups || !memcmp(a->groups, b->groups, a->ngroups * sizeof(*a->groups))) &&
	       a->cap_inh == b->cap_inh && a->cap_prm == b->cap_prm && a->cap_eff == b->cap_eff &&
	       a->cap_bnd == b->cap_bnd && a->cap_amb == b->cap_amb;
}

int dump_creds_thread(struct dump_ctx *c, const struct dump_thread *t, CredsEntry *ce, struct proc_status *st,
		      struct cr_err *e)
{
	if (proc_parse_task_status(c->pid, t->tid, st, e))
		return cr_wrap(e, "thread %d creds", t->tid);
	if (same_creds(st, &c->st) && t->securebits == c->rem.securebits)
		return 0;
	fill_creds(ce, st, t->securebits);
	pr_debug("thread %d: credentials of its own (uid %u, gid %u, fsuid %u, eff %#" PRIx64 ")\n", t->tid,
		 st->uid[1], st->gid[1], st->uid[3], st->cap_eff);
	return 1;
}

int dump_creds_write(struct dump_ctx *c, struct cr_err *e)
{
	if (write_creds(c, e))
		return cr_wrap(e, "creds");
	return 0;
}
