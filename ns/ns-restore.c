/* Restore of the tree's namespaces, in the order of README.md: crshim makes (or joins) the net, IPC, UTS and
 * time namespaces of the root and fills them before it makes any object of the tree, stays in them while
 * it makes the tree (whose root inherits them), and goes back to its own at the end. What a failure leaves
 * inside a new namespace (net devices, IPC objects) goes with the namespace; what is outside (the outer end
 * of a veth, cgroups) is removed by ns_rst_done. */
#define LOG_PREFIX "ns-restore: "
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "mnt-int.h"
#include "ns-int.h"

/* The root's namespaces crshim makes in ns_rst_enter (the others come from the PID/mount code). */
#define NS_ENTER_KINDS (CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWTIME)

static struct ns_rst *rst_new(const struct cr_opts *o, int dirfd)
{
	struct ns_rst *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->o = o;
	r->dirfd = dirfd;
	for (int k = 0; k < NS_KINDS; k++)
		r->self_fd[k] = r->join_fd[k] = r->user_made_fd[k] = -1;
	r->user_fd = -1;
	r->root_net_fd = -1;
	return r;
}

/* Images of a crshim before ns.img: a netns.img alone said the root had a network namespace of its own. */
static int load_old(struct ns_rst *r, struct cr_err *e)
{
	ProtobufCMessage *m;
	if (img_read_one(r->dirfd, IMG_NETNS, 0, &m, e)) {
		if (e->errnum != ENOENT)
			return -1;
		cr_err_clear(e);
		return 0;
	}
	const NetnsEntry *nn = (const NetnsEntry *)m;
	r->own = CLONE_NEWNET;
	r->ids[NS_NET] = nn->ino;
	pr_info("older images: the root lived in net:[%llu], restored as a new network namespace\n",
		(unsigned long long)nn->ino);
	protobuf_c_message_free_unpacked(m, NULL);
	return 0;
}

/* The fd an --inherit-fd fd[N]:KEY gives for KEY, or -1. */
static int inherit_fd_of(const struct cr_opts *o, const char *key)
{
	for (int i = 0; i < o->n_inherit_fd; i++) {
		const char *x = o->inherit_fd[i];
		char *end;
		if (strncmp(x, "fd[", 3))
			continue;
		long fd = strtol(x + 3, &end, 10);
		if (end != x + 3 && !strncmp(end, "]:", 2) && !strcmp(end + 2, key) && fd >= 0)
			return (int)fd;
	}
	return -1;
}

/* An namespace the caller gives: --join-ns KIND:PATH, or an external one (--inherit-fd of its key). */
static int load_join(struct ns_rst *r, struct cr_err *e)
{
	const struct cr_opts *o = r->o;
	for (int i = 0; i < o->n_join_ns; i++) {
		const char *x = o->join_ns[i], *colon = strchr(x, ':');
		char kind[16];
		if (!colon || colon == x || (size_t)(colon - x) >= sizeof(kind) || !colon[1])
			return cr_fail(e, "--join-ns %s: malformed (want KIND:PATH)", x);
		snprintf(kind, sizeof(kind), "%.*s", (int)(colon - x), x);
		int k = ns_kind_of(kind);
		if (k < 0 || !(ns_kinds[k].flag & NS_ENTER_KINDS))
			return cr_fail(e, "--join-ns %s: not supported for %s (net, ipc, uts, time)", x,
				       kind);
		const char *path = colon + 1;
		const char *comma =
		    strchr(path, ','); /* CRIU's KIND:PATH[,EXTRA]: the extra part is ignored */
		char p[4096];
		snprintf(p, sizeof(p), "%.*s", comma ? (int)(comma - path) : (int)strlen(path), path);
		r->join_fd[k] = open(p, O_RDONLY | O_CLOEXEC);
		if (r->join_fd[k] < 0)
			return cr_fail_sys(e, "--join-ns %s: open %s", x, p);
	}
	if (r->ne && (r->ne->external & CLONE_NEWNET) && r->join_fd[NS_NET] < 0) {
		for (size_t i = 0; i < r->ne->n_ext_key; i++) {
			const char *key = r->ne->ext_key[i];
			if (strncmp(key, "net:", 4))
				continue;
			int fd = inherit_fd_of(o, key + 4);
			if (fd < 0 &&
			    o->live_root) { /* the dump's check: the namespace is there, the tree's */
				pr_info("the network namespace is external (key %s): the live tree's stands "
					"in for "
					"its --inherit-fd\n",
					key + 4);
				continue;
			}
			if (fd < 0)
				return cr_fail(
				    e,
				    "the network namespace was external at dump (key %s): give it with "
				    "--inherit-fd fd[N]:%s or --join-ns net:PATH",
				    key + 4, key + 4);
			r->join_fd[NS_NET] = fcntl(fd, F_DUPFD_CLOEXEC, 0);
			if (r->join_fd[NS_NET] < 0)
				return cr_fail_sys(e, "--inherit-fd for %s", key + 4);
		}
	}
	return 0;
}

int ns_rst_load(const struct cr_opts *o, int dirfd, struct ns_rst **out, struct cr_err *e)
{
	ProtobufCMessage *m;
	struct ns_rst *r = rst_new(o, dirfd);
	*out = r;
	if (!r)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (img_read_one(dirfd, IMG_NS, 0, &m, e)) {
		if (e->errnum != ENOENT)
			return -1;
		cr_err_clear(e);
		if (load_old(r, e))
			return -1;
	} else {
		r->ne = (NsEntry *)m;
		r->own = r->ne->own;
		if (r->ne->n_tasks && r->ne->tasks[0]->ids)
			ns_ids_from_msg(r->ne->tasks[0]->ids, r->ids);
	}
	r->empty_net = (o->empty_ns & CLONE_NEWNET) != 0;
	if (o->empty_ns & ~(uint32_t)CLONE_NEWNET)
		return cr_fail(e, "--empty-ns 0x%x: only net (0x%x) is supported", o->empty_ns,
			       (unsigned)CLONE_NEWNET);
	if (load_join(r, e) || ns_user_load(r, e))
		return -1;
	if (ns_rst_load_state(r, e) || ns_cg_load(o, dirfd, &r->cg, e))
		return -1;
	pr_info("namespaces of the root: own 0x%x%s\n", r->own, r->empty_net ? ", net left empty" : "");
	return 0;
}

static int save_self(struct ns_rst *r, int k, struct cr_err *e)
{
	char sp[64];
	snprintf(sp, sizeof(sp), "/proc/self/ns/%s", ns_kinds[k].name);
	r->self_fd[k] = open(sp, O_RDONLY | O_CLOEXEC);
	if (r->self_fd[k] < 0)
		return cr_fail_sys(e, "open %s", sp);
	return 0;
}

/* Make (unshare) or join the namespace of kind k for crshim; the state follows in ns_rst_fill. */
static int enter_one(struct ns_rst *r, int k, struct cr_err *e)
{
	int flag = ns_kinds[k].flag;
	bool join = r->join_fd[k] >= 0;
	if (!join && !(r->own & (uint32_t)flag))
		return 0;
	if (k == NS_TIME && !join && ns_rst_user_time(r)) { /* made by the born root's creator */
		pr_info("the time namespace is made in the user namespace, before the root task\n");
		return 0;
	}
	if (k == NS_TIME && r->user_made_fd[k] >= 0) { /* crshim's clocks stay: the root task enters it */
		pr_info("the time namespace is made in the user namespace, entered by the root task\n");
		return 0;
	}
	if (save_self(r, k, e))
		return -1;
	if (r->user_made_fd[k] >= 0) { /* made by the user namespace's helper, owned by it: fill it */
		if (setns(r->user_made_fd[k], flag))
			return cr_fail_sys(e, "join the %s namespace made in the user namespace",
					   ns_kinds[k].name);
		r->made |= (uint32_t)flag;
		pr_info("in the %s namespace owned by the user namespace\n", ns_kinds[k].name);
		return 0;
	}
	if (join ? setns(r->join_fd[k], flag) : unshare(flag))
		return cr_fail_sys(e, "%s the %s namespace", join ? "join" : "make", ns_kinds[k].name);
	r->made |= (uint32_t)flag;
	pr_info("%s a %s namespace\n", join ? "joined" : "made", ns_kinds[k].name);
	return 0;
}

int ns_rst_enter(struct ns_rst *r, struct cr_err *e)
{
	/* order: the user namespace first (its maps, and the namespaces it owns made inside it), net devices
	 * and addresses before any socket, IPC objects before the tasks attach them, UTS, time offsets
	 * before the root task enters the time namespace */
	static const int order[] = {NS_NET, NS_IPC, NS_UTS, NS_TIME};
	if (ns_user_make(r, e) || ns_net_multi_make(r, e)) /* the tree's other network namespaces, empty */
		return -1;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (enter_one(r, order[i], e) || ns_rst_fill(r, order[i], e) ||
		    (order[i] == NS_NET && (ns_net_multi_fill(r, e) || ns_net_mnt_premake(r, e))))
			return -1;
	if (fault_check(r->o, FI_RESTORE_NS_MADE, e))
		return -1;
	if (ns_cg_prepare(r->cg, e)) /* cgroups made (or checked) before any task */
		return -1;
	/* a cgroup namespace owned by the user namespace, which the root (not born in it) enters last */
	if (!ns_rst_user_born(r) && (r->own & CLONE_NEWCGROUP) && r->user_fd >= 0 && r->ne &&
	    (r->ne->user_owned & CLONE_NEWCGROUP))
		return ns_cg_make_owned(r->cg, r->user_fd, &r->user_made_fd[NS_CGROUP], e);
	return 0;
}

void ns_rst_memcg_enter(struct ns_rst *r)
{
	ns_rst_memcg_enter_for(r, 0);
}

void ns_rst_memcg_enter_for(struct ns_rst *r, uint64_t bytes)
{
	if (r)
		ns_cg_mem_enter(r->cg, bytes);
}

void ns_rst_memcg_leave(struct ns_rst *r)
{
	if (r)
		ns_cg_mem_leave(r->cg);
}

uint64_t ns_rst_clone_flags(const struct ns_rst *r)
{
	return r && r->mnt ? CLONE_NEWNS : 0;
}

bool ns_rst_new_net(const struct ns_rst *r)
{
	return r && (r->made & CLONE_NEWNET);
}

bool ns_rst_joined_net(const struct ns_rst *r)
{
	return r && r->join_fd[NS_NET] >= 0;
}

bool ns_rst_mounts(const struct ns_rst *r)
{
	return r && r->mnt;
}

const char *ns_rst_root(const struct ns_rst *r)
{
	return r && r->mnt ? r->o->root : NULL;
}

int ns_rst_root_spawned(struct ns_rst *r, pid_t pid, pid_t img_pid, struct cr_err *e)
{
	return r ? ns_cg_attach(r->cg, pid, img_pid, e) : 0;
}

int ns_rst_task_spawned(struct ns_rst *r, pid_t pid, pid_t img_pid, struct cr_err *e)
{
	return r ? ns_cg_attach(r->cg, pid, img_pid, e) : 0;
}

int ns_rst_thread_made(struct ns_rst *r, pid_t tid, pid_t img_tid, struct cr_err *e)
{
	return r ? ns_cg_attach_thread(r->cg, tid, img_tid, e) : 0;
}

int ns_rst_root_child(const struct ns_rst *r, char *msg, size_t len)
{
	if (!r)
		return 0;
	int tfd = r->user_made_fd[NS_TIME]; /* made in the user namespace, which the root enters last */
	if (tfd >= 0 && setns(tfd, CLONE_NEWTIME)) {
		snprintf(msg, len, "enter the time namespace made in the user namespace: %s",
			 strerror(errno));
		return -1;
	}
	int cfd = r->user_made_fd[NS_CGROUP]; /* made in the user namespace (ns_cg_make_owned) */
	if (cfd >= 0 && setns(cfd, CLONE_NEWCGROUP)) {
		snprintf(msg, len, "enter the cgroup namespace made in the user namespace: %s",
			 strerror(errno));
		return -1;
	}
	if (ns_rst_user_born_ids(r, msg, len) ||
	    (cfd < 0 && (r->own & CLONE_NEWCGROUP) && ns_cg_unshare(r->cg, msg, len)))
		return -1;
	/* born in its user namespace, the root task may not look --root up (runc's dirs are 0700): it is its
	 * cwd already (engine/restore.c born_clone), and paths under it are relative to that */
	struct ns_mnt_args ma = {.imgdir_fd = r->dirfd,
				 .root = ns_rst_user_born(r) && r->mnt ? "." : r->o->root,
				 .o = r->o,
				 .mnt = r->mnt};
	return ns_mnt_restore(&ma, msg, len);
}

int ns_rst_mntns_up(int *parent_ns, int *parent_root, char *msg, size_t len)
{
	return ns_mnt_nested_up(parent_ns, parent_root, msg, len);
}

int ns_rst_mntns(const struct ns_rst *r, uint32_t id, int *parent_ns, int *parent_root, char *msg, size_t len)
{
	if (!r || !id || id > r->n_mntns) {
		snprintf(msg, len, "mntns-%u.img: not loaded", id);
		return -1;
	}
	return ns_mnt_nested_restore(r->mntns[id - 1], r->o && r->o->fault == FI_RESTORE_MNT_NESTED,
				     parent_ns, parent_root, msg, len);
}

bool ns_rst_has_mntns(const struct ns_rst *r, uint32_t id)
{
	return r && id && id <= r->n_mntns;
}

void ns_rst_done(struct ns_rst *r, bool failed)
{
	if (!r)
		return;
	for (int k = NS_KINDS; k-- > 0;) {
		if (r->self_fd[k] >= 0 && setns(r->self_fd[k], ns_kinds[k].flag))
			pr_err("cannot return to crshim's %s namespace: %s\n", ns_kinds[k].name,
			       strerror(errno));
		if (r->self_fd[k] >= 0)
			close(r->self_fd[k]);
		if (r->join_fd[k] >= 0)
			close(r->join_fd[k]);
		if (r->user_made_fd[k] >= 0)
			close(r->user_made_fd[k]);
	}
	ns_user_done(r);
	ns_rst_state_done(r, failed);
	ns_cg_done(r->cg, failed);
	if (r->ne)
		protobuf_c_message_free_unpacked(&r->ne->base, NULL);
	free(r);
}
