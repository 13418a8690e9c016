/* Socket discovery through NETLINK_SOCK_DIAG (see sock-diag.h): libnl-3 sends the request, receives the
 * (multi-part) replies and parses the attributes. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "base/cleanup.h"
#include "ns.h"
#include "sock-diag.h"

#define NS_DIAG_MAXATTR 64

struct query {
	size_t hdrlen;
	int maxattr;
	ns_diag_cb cb;
	void *arg;
	struct cr_err *e;
	int failed; /* cb failed (e filled) */
	int replies;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct query *q = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NS_DIAG_MAXATTR + 1];
	if (nlmsg_datalen(nlh) < (int)q->hdrlen)
		return NL_SKIP;
	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, q->maxattr, nlmsg_attrdata(nlh, (int)q->hdrlen), nlmsg_attrlen(nlh, (int)q->hdrlen),
		      NULL) < 0)
		return NL_SKIP;
	q->replies++;
	if (q->cb(nlmsg_data(nlh), tb, q->arg, q->e)) {
		q->failed = 1;
		return NL_STOP;
	}
	return NL_OK;
}

int ns_diag_query(const void *req, size_t len, bool dump, size_t hdrlen, int maxattr, ns_diag_cb cb,
		  void *arg, struct cr_err *e)
{
	struct query q = {hdrlen, maxattr, cb, arg, e, 0, 0};
	if (maxattr > NS_DIAG_MAXATTR)
		return cr_fail_errno(e, EINVAL, "sock_diag: %d attributes asked, at most %d", maxattr,
				     NS_DIAG_MAXATTR);
	struct nl_sock *sk = nl_socket_alloc();
	if (!sk)
		return cr_fail_errno(e, ENOMEM, "sock_diag: nl_socket_alloc");
	int ret = nl_connect(sk, NETLINK_SOCK_DIAG);
	if (ret < 0) {
		nl_socket_free(sk);
		return cr_fail_errno(e, EPROTONOSUPPORT, "sock_diag: connect a NETLINK_SOCK_DIAG socket: %s",
				     nl_geterror(ret));
	}
	nl_socket_enable_msg_peek(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &q);
	ret = nl_send_simple(sk, SOCK_DIAG_BY_FAMILY, dump ? NLM_F_DUMP : 0, (void *)req, len);
	if (ret >= 0)
		ret = nl_recvmsgs_default(sk);
	nl_socket_free(sk);
	if (q.failed)
		return -1;
	if (ret == -NLE_OBJ_NOTFOUND || (ret >= 0 && !dump && !q.replies))
		return cr_fail_errno(e, ENOENT, "sock_diag: no such socket");
	if (ret < 0)
		return cr_fail_errno(e, EIO, "sock_diag: %s", nl_geterror(ret));
	return 0;
}

static bool same_ns(int a, int b)
{
	struct stat x, y;
	return !fstat(a, &x) && !fstat(b, &y) && x.st_ino == y.st_ino && x.st_dev == y.st_dev;
}

/* The netlink sockets belong to the namespace they are made in: fn runs in the net namespace target is (-1:
 * ours; another through ns_call, crshim staying in its own). */
int ns_diag_in_netns_fd(int target, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e)
{
	__cleanup_close int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return cr_fail_sys(e, "open /proc/thread-self/ns/net");
	if (target < 0 || same_ns(target, self))
		return fn(arg, e);
	return ns_call(target, CLONE_NEWNET, fn, arg, e);
}

int ns_diag_in_netns(pid_t pid, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	int target = pid ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (pid && target < 0)
		return cr_fail_sys(e, "open %s", path);
	int ret = ns_diag_in_netns_fd(target, fn, arg, e);
	if (target >= 0)
		close(target);
	return ret;
}

dev_t ns_diag_kdev(uint32_t kdev)
{
	return makedev(kdev >> 20, kdev & 0xfffff);
}

/* ---------------------------------------------------------------- unix */

static int unix_fill(const struct unix_diag_msg *m, struct nlattr **tb, struct ns_unix_sk *s,
		     struct cr_err *e)
{
	memset(s, 0, sizeof(*s));
	s->ino = m->udiag_ino;
	s->type = m->udiag_type;
	s->state = m->udiag_state;
	if (tb[UNIX_DIAG_NAME]) {
		size_t l = (size_t)nla_len(tb[UNIX_DIAG_NAME]);
		s->namelen = l > NS_UNIX_NAME_MAX ? NS_UNIX_NAME_MAX : l;
		memcpy(s->name, nla_data(tb[UNIX_DIAG_NAME]), s->namelen);
	}
	if (tb[UNIX_DIAG_VFS] && nla_len(tb[UNIX_DIAG_VFS]) >= (int)sizeof(struct unix_diag_vfs)) {
		const struct unix_diag_vfs *v = nla_data(tb[UNIX_DIAG_VFS]);
		s->has_vfs = true;
		s->vfs_ino = v->udiag_vfs_ino;
		s->vfs_dev = ns_diag_kdev(v->udiag_vfs_dev);
	}
	if (tb[UNIX_DIAG_PEER] && nla_len(tb[UNIX_DIAG_PEER]) >= 4)
		s->peer = nla_get_u32(tb[UNIX_DIAG_PEER]);
	if (tb[UNIX_DIAG_RQLEN] && nla_len(tb[UNIX_DIAG_RQLEN]) >= (int)sizeof(struct unix_diag_rqlen)) {
		const struct unix_diag_rqlen *r = nla_data(tb[UNIX_DIAG_RQLEN]);
		s->rqueue = r->udiag_rqueue;
		s->wqueue = r->udiag_wqueue;
	}
	if (tb[UNIX_DIAG_SHUTDOWN] && nla_len(tb[UNIX_DIAG_SHUTDOWN]) >= 1)
		s->shutdown = nla_get_u8(tb[UNIX_DIAG_SHUTDOWN]);
	if (tb[UNIX_DIAG_UID] && nla_len(tb[UNIX_DIAG_UID]) >= 4) {
		s->has_uid = true;
		s->uid = nla_get_u32(tb[UNIX_DIAG_UID]);
	}
	if (tb[UNIX_DIAG_ICONS] && nla_len(tb[UNIX_DIAG_ICONS]) >= 4) {
		size_t n = (size_t)nla_len(tb[UNIX_DIAG_ICONS]) / 4;
		s->icons = calloc(n, sizeof(uint32_t));
		if (!s->icons)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		memcpy(s->icons, nla_data(tb[UNIX_DIAG_ICONS]), n * sizeof(uint32_t));
		s->nicons = n;
	}
	return 0;
}

static int unix_add(const void *hdr, struct nlattr **tb, void *arg, struct cr_err *e)
{
	struct ns_unix_table *t = arg;
	if (!(t->n & (t->n + 1))) { /* grow at 0, 1, 3, 7, ... entries */
		struct ns_unix_sk *n = realloc(t->sk, (t->n * 2 + 2) * sizeof(*n));
		if (!n)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		t->sk = n;
	}
	if (unix_fill(hdr, tb, &t->sk[t->n], e))
		return -1;
	t->n++;
	return 0;
}

static int unix_one(const void *hdr, struct nlattr **tb, void *arg, struct cr_err *e)
{
	return unix_fill(hdr, tb, arg, e);
}

static void unix_req(struct unix_diag_req *r, uint32_t ino)
{
	memset(r, 0, sizeof(*r));
	r->sdiag_family = AF_UNIX;
	r->udiag_states = ~0u;
	r->udiag_ino = ino;
	r->udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_PEER | UDIAG_SHOW_ICONS |
			UDIAG_SHOW_RQLEN | UDIAG_SHOW_UID;
	r->udiag_cookie[0] = r->udiag_cookie[1] = ~0u; /* INET_DIAG_NOCOOKIE: any */
}

static int cmp_ino(const void *a, const void *b)
{
	uint32_t x = ((const struct ns_unix_sk *)a)->ino, y = ((const struct ns_unix_sk *)b)->ino;
	return x < y ? -1 : x > y;
}

static int unix_dump(void *arg, struct cr_err *e)
{
	struct unix_diag_req r;
	unix_req(&r, 0);
	return ns_diag_query(&r, sizeof(r), true, sizeof(struct unix_diag_msg), UNIX_DIAG_MAX, unix_add, arg,
			     e);
}

int ns_unix_collect_fd(int netns_fd, struct ns_unix_table *t, struct cr_err *e)
{
	t->sk = NULL;
	t->n = 0;
	if (ns_diag_in_netns_fd(netns_fd, unix_dump, t, e)) {
		ns_unix_table_free(t);
		return cr_wrap(e, "unix sockets");
	}
	if (t->n)
		qsort(t->sk, t->n, sizeof(*t->sk), cmp_ino);
	return 0;
}

int ns_unix_collect(pid_t pid, struct ns_unix_table *t, struct cr_err *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	int target = pid ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (pid && target < 0)
		return cr_fail_sys(e, "open %s", path);
	int ret = ns_unix_collect_fd(target, t, e);
	if (target >= 0)
		close(target);
	return ret;
}

const struct ns_unix_sk *ns_unix_find(const struct ns_unix_table *t, uint32_t ino)
{
	struct ns_unix_sk key = {.ino = ino};
	if (!t->n)
		return NULL;
	return bsearch(&key, t->sk, t->n, sizeof(*t->sk), cmp_ino);
}

void ns_unix_table_free(struct ns_unix_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->sk[i].icons);
	free(t->sk);
	t->sk = NULL;
	t->n = 0;
}

int ns_unix_get(uint32_t ino, struct ns_unix_sk *out, struct cr_err *e)
{
	struct unix_diag_req r;
	unix_req(&r, ino);
	memset(out, 0, sizeof(*out));
	if (ns_diag_query(&r, sizeof(r), false, sizeof(struct unix_diag_msg), UNIX_DIAG_MAX, unix_one, out,
			  e))
		return cr_wrap(e, "unix socket:[%u]", ino);
	return 0;
}
