/* Restore: can crshim give each task the credentials of its image? Checked when the images are read, before
 * anything is made, so that an unprivileged crshim (e.g. a copy with only CAP_CHECKPOINT_RESTORE and
 * CAP_SYS_PTRACE as file capabilities) refuses another user's tree with one line naming the capability it
 * lacks, instead of failing half way in the blob. The same rules as the kernel's
 * setresuid/setresgid/setgroups/capset. */
#define LOG_PREFIX "restore: "
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/securebits.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/log.h"
#include "restore.h"

struct rst_caps {
	uint64_t eff, prm;
};

static struct rst_caps own_caps(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	if (capget(&h, d))
		return (struct rst_caps){0, 0};
	return (struct rst_caps){d[0].effective | ((uint64_t)d[1].effective << 32),
				 d[0].permitted | ((uint64_t)d[1].permitted << 32)};
}

static bool has_cap(const struct rst_caps *c, int cap)
{
	return c->eff & (1ull << cap);
}

static bool id_in(uint32_t id, const uid_t own[3])
{
	return id == own[0] || id == own[1] || id == own[2];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

bool rst_groups_are_own(const uint32_t *groups, size_t n)
{
	int own_n = getgroups(0, NULL);
	if (own_n < 0 || (size_t)own_n != n)
		return false;
	if (n == 0)
		return true;
	gid_t *own = calloc(n, sizeof(*own));
	uint32_t *want = calloc(n, sizeof(*want));
	bool same = false;
	if (own && want && getgroups(own_n, own) == own_n) {
		memcpy(want, groups, n * sizeof(*want));
		qsort(own, n, sizeof(*own), cmp_u32);
		qsort(want, n, sizeof(*want), cmp_u32);
		same = !memcmp(own, want, n * sizeof(*want));
	}
	free(own);
	free(want);
	return same;
}

static const char *cap_list(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int cap = 0; cap < 64 && off < len; cap++) {
		if (!(mask & (1ull << cap)))
			continue;
		char *n = cap_to_name(cap);
		int w = snprintf(buf + off, len - off, "%s%s", off ? "," : "", n ? n : "?");
		cap_free(n);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

int rst_creds_check(pid_t pid, const CredsEntry *c, bool in_user, struct cr_err *e)
{
	struct rst_caps own = own_caps();
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	char names[256];

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		return cr_fail_errno(e, errno, "task %d: getresuid", pid);
	const uid_t uids[3] = {ru, eu, su}, gids[3] = {rg, eg, sg};
	const uint32_t tu[4] = {c->uid, c->euid, c->suid, c->fsuid},
		       tg[4] = {c->gid, c->egid, c->sgid, c->fsgid};
	for (int i = 0; i < 4; i++) {
		if (!has_cap(&own, CAP_SETUID) && !id_in(tu[i], uids))
			return cr_fail_errno(
			    e, EPERM, "task %d runs as uid %u: restoring it as uid %u needs CAP_SETUID", pid,
			    tu[i], (unsigned)eu);
		if (!has_cap(&own, CAP_SETGID) && !id_in(tg[i], gids))
			return cr_fail_errno(
			    e, EPERM, "task %d runs as gid %u: restoring it as gid %u needs CAP_SETGID", pid,
			    tg[i], (unsigned)eg);
	}
	if (!has_cap(&own, CAP_SETGID) && !rst_groups_are_own(c->groups, c->n_groups))
		return cr_fail_errno(e, EPERM,
				     "task %d: its supplementary groups differ from crshim's: setting them "
				     "needs CAP_SETGID",
				     pid);
	/* capset: permitted never grows; inheritable and ambient stay inside what is permitted */
	/* (in a user namespace of its own they are of that namespace, where the task gets them all) */
	uint64_t want = c->cap_prm | c->cap_inh | c->cap_amb | c->cap_eff;
	if (!in_user && (want & ~own.prm))
		return cr_fail_errno(e, EPERM, "task %d holds capabilities crshim does not: %s", pid,
				     cap_list(want & ~own.prm, names, sizeof(names)));
	for (int cap = 0; c->has_cap_bnd && cap < 64 && !has_cap(&own, CAP_SETPCAP); cap++)
		if (!(c->cap_bnd & (1ull << cap)) && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			return cr_fail_errno(e, EPERM,
					     "task %d: dropping %s from its bounding set needs CAP_SETPCAP",
					     pid, cap_list(1ull << cap, names, sizeof(names)));
	int sb = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	const uint32_t kc = 1u << SECURE_KEEP_CAPS; /* PR_SET_KEEPCAPS: no capability needed */
	if (c->has_securebits && sb >= 0 && ((uint32_t)sb & ~kc) != (c->securebits & ~kc) &&
	    !has_cap(&own, CAP_SETPCAP))
		return cr_fail_errno(e, EPERM, "task %d: its securebits 0x%x need CAP_SETPCAP", pid,
				     c->securebits);
	return 0;
}
