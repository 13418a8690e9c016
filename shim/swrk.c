/* `crshim swrk FD`: CRIU's RPC service, as runc, go-criu, Podman and containerd drive it. One protobuf
 * message per SOCK_SEQPACKET datagram. fds 0-2 are the client's business (runc reads them from /proc to
 * describe the container's stdio, and a restored tree inherits them): nothing here prints to them. */
#define LOG_PREFIX "swrk: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "bundle.h"
#include "rpc.h"
#include "stats.h"
#include "base/log.h"
#include "base/scm.h"

struct srv {
	int sk;
	pid_t peer;
	bool notify; /* the client asked for notifications (notify_scripts) */
	bool log_open;
};

static int send_resp(struct srv *s, const RpcResp *r, int pass_fd)
{
	size_t len = rpc_resp__get_packed_size(r);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return -1;
	rpc_resp__pack(r, buf);
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	ssize_t n;
	do
		n = scm_send(s->sk, &iov, 1, &pass_fd, pass_fd >= 0);
	while (n < 0 && errno == EINTR);
	free(buf);
	if (n != (ssize_t)len) {
		pr_err("send reply (%zu bytes): %s\n", len, n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/* One datagram; *len 0 at EOF. The buffer is the caller's to free. */
static int recv_req(struct srv *s, uint8_t **buf, size_t *len)
{
	ssize_t n;
	*buf = NULL;
	*len = 0;
	do
		n = recv(s->sk, NULL, 0, MSG_PEEK | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		pr_err("receive request: %s\n", strerror(errno));
		return -1;
	}
	if (n == 0)
		return 0;
	size_t want = (size_t)n > SHIM_RPC_MAX_REQ ? SHIM_RPC_MAX_REQ : (size_t)n;
	*buf = malloc(want);
	if (!*buf)
		return -1;
	do
		n = recv(s->sk, *buf, want, MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		pr_err("receive request: %s\n", strerror(errno));
		return -1;
	}
	if ((size_t)n > want) { /* the datagram is gone: too large to serve */
		errno = EMSGSIZE;
		return -1;
	}
	*len = (size_t)n;
	return 0;
}

static int fail_resp(struct srv *s, int type, int err, const char *msg)
{
	RpcResp r = RPC_RESP__INIT;
	r.type = (RpcReqType)type;
	r.success = 0;
	if (err)
		r.has_cr_errno = 1, r.cr_errno = err;
	char m[1024];
	snprintf(m, sizeof(m), "%s", msg); /* go-criu reads replies into 8 KiB: keep it short */
	r.cr_errmsg = m;
	pr_err("%s failed: %s\n", shim_rpc_type_name(type), msg);
	return send_resp(s, &r, -1);
}

/* A notification: the client answers {type NOTIFY, notify_success} (runc closes the socket instead when its
 * handler failed). */
static int notify(void *arg, const char *script, pid_t pid, int fd)
{
	struct srv *s = arg;
	if (!s->notify && fd < 0) /* an fd (orphan-pts-master) goes to the client that asked for it anyway */
		return 0;
	RpcResp r = RPC_RESP__INIT;
	RpcNotify n = RPC_NOTIFY__INIT;
	r.type = RPC_REQ_TYPE__NOTIFY;
	r.success = 1;
	r.notify = &n;
	n.script = (char *)script;
	if (pid > 0)
		n.has_pid = 1, n.pid = pid;
	if (send_resp(s, &r, fd))
		return -1;
	uint8_t *buf;
	size_t len;
	if (recv_req(s, &buf, &len) || !len) {
		free(buf);
		pr_err("notify %s: the client closed the connection\n", script);
		return -1;
	}
	RpcReq *q = rpc_req__unpack(NULL, len, buf);
	free(buf);
	int ok = q && q->type == RPC_REQ_TYPE__NOTIFY && q->has_notify_success && q->notify_success;
	if (!ok)
		pr_err("notify %s: the client answered %s\n", script,
		       q ? shim_rpc_type_name(q->type) : "with a malformed message");
	if (q)
		rpc_req__free_unpacked(q, NULL);
	return ok ? 0 : -1;
}

/* The log of a request: log_file (default criu.log, as CRIU) in the work dir. */
static int open_log(struct srv *s, struct shim_cmd *c, struct cr_err *err)
{
	struct cr_opts *o = &c->opts;
	char path[PATH_MAX];
	if (s->log_open)
		log_close();
	s->log_open = false;
	if (o->log_file && !strcmp(o->log_file, "-"))
		return 0; /* log_to_stderr */
	const char *dir = o->work_dir ? o->work_dir : o->images_dir;
	int n = snprintf(path, sizeof(path), "%s/%s", dir, o->log_file ? o->log_file : "criu.log");
	if (n < 0 || (size_t)n >= sizeof(path))
		return cr_fail_errno(err, ENAMETOOLONG, "log file path");
	if (log_open(path, o->verbosity))
		return cr_fail_sys(err, "open log file %s", path);
	s->log_open = true;
	pr_info("crshim %s RPC for client %d: %s\n", CRSHIM_VERSION, (int)s->peer, c->cmdline);
	for (int i = 0; i < c->n_notes; i++)
		pr_info("option --%s accepted for CRIU compatibility and ignored\n", c->notes[i]);
	return 0;
}

/* Relative paths of a config file (the RPC's own are absolute) against our cwd, which is the client's. */
static int absolute(const char **p, char *buf, size_t len, struct cr_err *err)
{
	char cwd[PATH_MAX];
	if (!*p || (*p)[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd)) || snprintf(buf, len, "%s/%s", cwd, *p) >= (int)len)
		return cr_fail_sys(err, "path %s", *p);
	*p = buf;
	return 0;
}

static double since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The client's command line (runc's), NUL-separated args; n = number of bytes. */
static int peer_cmdline(pid_t peer, char *buf, size_t len, size_t *n)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)peer);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t k = read(fd, buf, len - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	*n = (size_t)k;
	return 0;
}

/* runc's state of the container a DUMP is for: `runc [--root R] ... checkpoint ... ID` (ID last, R default
 * /run/runc), its init the RPC's pid. NULL when the client is not runc driving that container. */
static struct oci_state *peer_runc_state(pid_t peer, pid_t pid)
{
	char cl[8192];
	size_t n;
	const char *root = "/run/runc", *last = NULL;
	if (peer_cmdline(peer, cl, sizeof(cl), &n))
		return NULL;
	for (size_t i = 0; i < n; i += strlen(cl + i) + 1) {
		const char *a = cl + i;
		if (!strcmp(a, "--root") && i + strlen(a) + 1 < n)
			root = cl + i + strlen(a) + 1;
		else if (!strncmp(a, "--root=", 7))
			root = a + 7;
		last = a;
	}
	struct cr_err e = {0};
	char path[PATH_MAX];
	if (!last || oci_id_check(last, &e))
		return NULL;
	/* runc keeps no container of that name: another client (CRIU's zdtm.py ends with `zdtm.py`), no error
	 */
	if (snprintf(path, sizeof(path), "%s/%s/state.json", root, last) >= (int)sizeof(path) ||
	    access(path, F_OK))
		return NULL;
	struct oci_state *st = oci_runc_state(root, last, &e);
	if (st && st->pid != pid) {
		oci_state_free(st);
		return NULL;
	}
	return st;
}

/* The bundle a RESTORE is for: runc restores from its bundle dir as cwd, whose config's root is the RPC's
 * root (runc's bind mount of it: the same inode). NULL when the client's cwd holds no such config. */
static struct oci_config *peer_bundle(pid_t peer, const char *root)
{
	char cwd[64], rel[PATH_MAX];
	struct cr_err e = {0};
	struct stat a, b;
	snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)peer);
	if (!root || stat(root, &a))
		return NULL;
	struct oci_config *cf = oci_config_load(cwd, &e);
	if (!cf)
		return NULL;
	if (cf->root_path && !bundle_abs(rel, sizeof(rel), cwd, cf->root_path) && !stat(rel, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return cf;
	oci_config_free(cf);
	return NULL;
}

/* cr.fault of the container runc drives (issue 17): the annotations of the bundle it restores from, or those
 * runc keeps as labels in its state of the container it dumps. CRSHIM_FAULT / CRIU_FAULT win. */
static int annotation_fault(struct srv *s, struct shim_rpc_req *r, struct cr_err *err)
{
	struct cr_opts *o = &r->cmd.opts;
	if (o->fault || s->peer <= 0)
		return 0;
	struct oci_config *cf = NULL;
	struct oci_state *st = NULL;
	if (r->req->type == RPC_REQ_TYPE__RESTORE)
		cf = peer_bundle(s->peer, o->root);
	else if (o->pid > 0)
		st = peer_runc_state(s->peer, o->pid);
	int ret = cf || st ? bundle_fault(&r->cmd, cf, st, err) : 0;
	oci_config_free(cf);
	oci_state_free(st);
	return ret;
}

static int prepare(struct srv *s, struct shim_rpc_req *r, struct cr_err *err)
{
	static char img[PATH_MAX], work[PATH_MAX];
	struct cr_opts *o = &r->cmd.opts;
	if (absolute(&o->images_dir, img, sizeof(img), err) ||
	    absolute(&o->work_dir, work, sizeof(work), err))
		return -1;
	char msg[512]; /* fault injection reaches the service through the client's environment, as CRIU_FAULT
			  does */
	if (shim_fault_env(&r->cmd, getenv("CRSHIM_FAULT"), getenv("CRIU_FAULT"), msg, sizeof(msg)))
		return cr_fail_errno(err, EINVAL, "%s", msg);
	s->notify = r->notify;
	o->notify = notify;
	o->notify_arg = s;
	o->notice = NULL; /* warnings go to the log */
	/* the log first: an unknown point in the annotation is reported there (runc points the user to it) */
	return open_log(s, &r->cmd, err) || annotation_fault(s, r, err) ? -1 : 0;
}

/* The one-line cause of a failed request; an injected fault says where it came from (CRSHIM_FAULT, the
 * annotation). */
static void err_line(const struct shim_rpc_req *r, const struct cr_err *err, char *m, size_t len)
{
	cr_err_str(err, m, len);
	size_t n = strlen(m);
	if (r->cmd.fault_src && strstr(m, "fault injected at") && n < len)
		snprintf(m + n, len - n, " (%s)", r->cmd.fault_src);
}

/* DUMP with lazy_pages: the images are written; say so (runc waits for the notification "status-ready" from
 * a CRIU of 3.15 or later, older clients for a zero byte on status_fd), then serve the pages to one
 * `lazy-pages --page-server` until it has them all; only then is the DUMP answered. */
static int serve_lazy(struct srv *s, struct shim_rpc_req *r, int lfd, int port, struct cr_err *err)
{
	int sfd = r->cmd.status_fd;
	if (eng_lazy_src_ready(&r->cmd.opts, err))
		return -1;
	pr_info("lazy pages served on port %d\n", port);
	if (sfd >= 0) {
		char z = 0;
		if (write(sfd, &z, 1) != 1)
			pr_warn("status_fd %d: %s\n", sfd, strerror(errno));
		close(sfd);
		r->cmd.status_fd = -1;
	}
	if (notify(s, "status-ready", 0, -1))
		return cr_fail_errno(err, EPIPE, "notify status-ready: the client did not take it");
	return eng_lazy_src_serve(&r->cmd.opts, lfd, err);
}

static int do_dump(struct srv *s, struct shim_rpc_req *r)
{
	struct cr_err err = {0};
	struct cr_opts *o = &r->cmd.opts;
	int type = r->req->type;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = prepare(s, r, &err), lfd = -1, port = 0;
	bool lazy = type == RPC_REQ_TYPE__DUMP && o->lazy_pages;
	if (!ret && lazy) /* where the pages are served: listening before the tree is touched */
		ret = eng_lazy_src_listen(o, &lfd, &port, &err);
	struct cr_stats st = {0};
	o->stats = &st;
	if (!ret)
		ret = (type == RPC_REQ_TYPE__PRE_DUMP ? eng_pre_dump : eng_dump)(o, &err);
	if (!ret && lazy)
		ret = serve_lazy(s, r, lfd, port, &err);
	o->stats = NULL; /* st is this call's: r outlives it */
	if (lfd >= 0)
		close(lfd);
	if (ret) {
		char m[1100];
		err_line(r, &err, m, sizeof(m));
		return fail_resp(s, type, err.errnum ? err.errnum : EIO, m);
	}
	pr_info("%s of %d done in %.3f s\n", shim_rpc_type_name(type), (int)o->pid, since(&t0));
	shim_stats_write(o->work_dir ? o->work_dir : o->images_dir, &st, true, NULL);
	RpcResp resp = RPC_RESP__INIT;
	RpcDumpResp d = RPC_DUMP_RESP__INIT;
	resp.type = (RpcReqType)type;
	resp.success = 1;
	resp.dump = &d;
	d.has_restored = 1;
	return send_resp(s, &resp, -1);
}

static int do_restore(struct srv *s, struct shim_rpc_req *r)
{
	struct cr_err err = {0};
	struct cr_opts *o = &r->cmd.opts;
	pid_t pid = -1;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	o->detach = true; /* the tree outlives us: runc's child (rst_sibling) or reparented */
	struct cr_stats st = {0};
	o->stats = &st;
	bool failed = prepare(s, r, &err) || eng_restore(o, &pid, &err);
	o->stats = NULL; /* st is this call's: r outlives it */
	if (failed) {
		char m[1100];
		err_line(r, &err, m, sizeof(m));
		return fail_resp(s, RPC_REQ_TYPE__RESTORE, err.errnum ? err.errnum : EIO, m);
	}
	pr_info("restored %d in %.3f s\n", (int)pid, since(&t0));
	shim_stats_write(o->work_dir ? o->work_dir : o->images_dir, &st, false, NULL);
	RpcResp resp = RPC_RESP__INIT;
	RpcRestoreResp rr = RPC_RESTORE_RESP__INIT;
	resp.type = RPC_REQ_TYPE__RESTORE;
	resp.success = 1;
	resp.restore = &rr;
	rr.pid = pid;
	return send_resp(s, &resp, -1);
}

static int do_version(struct srv *s)
{
	RpcResp resp = RPC_RESP__INIT;
	RpcVersion v = RPC_VERSION__INIT;
	resp.type = RPC_REQ_TYPE__VERSION;
	resp.success = 1;
	resp.version = &v;
	v.major_number = SHIM_RPC_MAJOR;
	v.minor_number = SHIM_RPC_MINOR;
	v.has_sublevel = 1;
	v.sublevel = SHIM_RPC_SUBLEVEL; /* no gitid: go-criu would round the version up */
	return send_resp(s, &resp, -1);
}

/* Each asked feature answered truthfully: memory tracking and lazy pages (userfaultfd with its fork, remap,
 * remove and unmap events) as the engine finds them on this kernel; the pidfd store is not there. */
static int lazy_supported(void)
{
	struct cr_err e;
	FILE *out = fopen("/dev/null", "w");
	int ok = out && !eng_check("uffd-noncoop", out, &e);
	if (out)
		fclose(out);
	return ok;
}

static int do_features(struct srv *s, const RpcReq *q)
{
	RpcResp resp = RPC_RESP__INIT;
	RpcFeatures f = RPC_FEATURES__INIT;
	resp.type = RPC_REQ_TYPE__FEATURE_CHECK;
	resp.success = 1;
	resp.features = &f; /* runc panics on a reply without it */
	char why[256];
	if (q->features && q->features->has_mem_track)
		f.has_mem_track = 1, f.mem_track = eng_mem_track_supported(why, sizeof(why)) == 1;
	if (q->features && q->features->has_lazy_pages)
		f.has_lazy_pages = 1, f.lazy_pages = lazy_supported();
	if (q->features && q->features->has_pidfd_store)
		f.has_pidfd_store = 1, f.pidfd_store = 1; /* accepted: PID reuse is seen without it */
	return send_resp(s, &resp, -1);
}

static int do_check(struct srv *s)
{
	struct cr_err err = {0};
	FILE *out = fopen("/dev/null", "we");
	int ret = eng_check(NULL, out ? out : stderr, &err);
	if (out)
		fclose(out);
	if (ret) {
		char m[1100];
		cr_err_str(&err, m, sizeof(m));
		return fail_resp(s, RPC_REQ_TYPE__CHECK, err.errnum ? err.errnum : EIO, m);
	}
	RpcResp resp = RPC_RESP__INIT;
	resp.type = RPC_REQ_TYPE__CHECK;
	resp.success = 1;
	return send_resp(s, &resp, -1);
}

/* A request that could not be mapped: the line goes to the log it names (the client points the user there),
 * else to stderr (the client's: /dev/null for runc's dumps). */
static void bad_request_log(struct srv *s, const RpcReq *q, int type, const char *msg)
{
	const RpcOpts *o = q ? q->opts : NULL;
	char proc[64], dir[PATH_MAX], path[PATH_MAX + 300];
	FILE *f = NULL;
	int fd = o && o->has_work_dir_fd && o->work_dir_fd >= 0 ? o->work_dir_fd : o ? o->images_dir_fd : -1;
	snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)s->peer, fd);
	ssize_t n = fd >= 0 ? readlink(proc, dir, sizeof(dir) - 1) : -1;
	if (n > 0 && dir[0] == '/' && o->log_file && !strchr(o->log_file, '/')) {
		dir[n] = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, o->log_file);
		f = fopen(path, "ae");
	}
	fprintf(f ? f : stderr, "crshim %s swrk: bad %s request: %s\n", CRSHIM_VERSION,
		shim_rpc_type_name(type), msg);
	if (f)
		fclose(f);
}

/* One request. 1: served, and this process's work is done (DUMP, RESTORE); 0: served, wait for the next;
 * -1: the connection broke. */
static int serve(struct srv *s, const uint8_t *buf, size_t len)
{
	struct shim_rpc_req r;
	char msg[1024];
	int ret;
	if (shim_rpc_decode(buf, len, s->peer, true, true, &r, msg, sizeof(msg))) {
		int type = r.req ? (int)r.req->type : RPC_REQ_TYPE__EMPTY;
		bad_request_log(s, r.req, type, msg);
		ret = fail_resp(s, type, EINVAL, msg);
		shim_rpc_req_free(&r);
		return ret ? -1 : 0;
	}
	switch (r.req->type) {
	case RPC_REQ_TYPE__VERSION:
		ret = do_version(s);
		break;
	case RPC_REQ_TYPE__FEATURE_CHECK:
		ret = do_features(s, r.req);
		break;
	case RPC_REQ_TYPE__CHECK:
		ret = do_check(s);
		break;
	case RPC_REQ_TYPE__DUMP:
		ret = do_dump(s, &r);
		ret = ret ? -1 : 1;
		break;
	case RPC_REQ_TYPE__PRE_DUMP:
		ret = do_dump(s, &r);
		break;
	case RPC_REQ_TYPE__RESTORE:
		ret = do_restore(s, &r);
		ret = ret ? -1 : 1;
		break;
	default:
		snprintf(msg, sizeof(msg), "request type %s (%d) is not supported",
			 shim_rpc_type_name(r.req->type), (int)r.req->type);
		fprintf(stderr, "crshim swrk: %s\n", msg);
		ret = fail_resp(s, r.req->type, EOPNOTSUPP, msg);
		break;
	}
	shim_rpc_req_free(&r);
	return ret;
}

int shim_swrk(struct shim_cmd *c)
{
	struct srv s = {.sk = -1};
	char *end;
	errno = 0;
	long fd = strtol(c->operand, &end, 10);
	struct stat st;
	if (errno || *end || fd < 0 || fd > INT_MAX || fstat((int)fd, &st) || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "crshim: swrk failed: '%s' is not the fd of a socket\n", c->operand);
		return 1;
	}
	s.sk = (int)fd;
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	if (getsockopt(s.sk, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0)
		s.peer = cr.pid;
	int ret = 0;
	for (;;) {
		uint8_t *buf;
		size_t len;
		if (recv_req(&s, &buf, &len)) {
			free(buf);
			if (errno == EMSGSIZE &&
			    !fail_resp(&s, RPC_REQ_TYPE__EMPTY, EMSGSIZE, "request too large"))
				continue;
			ret = 1;
			break;
		}
		if (!len) /* EOF: the client is done */
			break;
		int r = serve(&s, buf, len);
		free(buf);
		if (r) {
			ret = r < 0;
			break;
		}
	}
	if (s.log_open)
		log_close();
	close(s.sk);
	return ret;
}
