/* Lazy pages from a remote source (engine/mem/lazy.md, "Remote"): `crshim dump --lazy-pages --port P`
 * serves the pages files it wrote to the destination's `crshim lazy-pages --page-server`, which asks for
 * the bytes it needs as the restored tree touches them. Protocol (version 1, TCP, little endian): the client
 * sends struct lzr_req (HELLO with the page size in off, GET of [off, off + len) of pages-ID.img, BYE),
 * the server answers each with struct lzr_rep, a GET's data after it (csum64 of the data in csum). */
#define LOG_PREFIX "lazy-remote: "
#include <endian.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "crshim.h"
#include "image/csum.h"
#include "image/image.h"
#include "image/page-xfer.h"
#include "mem/lazy.h"

#define LZR_MAGIC 0x524c5243u /* "CRLR" */
#define LZR_VERSION 1u
#define LZR_FILES 64 /* pages files kept open by the server */

enum { LZR_HELLO = 1, LZR_GET = 2, LZR_BYE = 3 };

struct lzr_req {
	uint32_t magic;
	uint16_t version, cmd;
	int32_t id; /* GET: pages-ID.img */
	uint32_t pad;
	uint64_t off, len; /* HELLO: off the client's page size */
};

struct lzr_rep {
	uint32_t magic;
	int32_t status; /* 0 or an errno */
	uint64_t len, csum;
	char msg[104];
};

static void req_le(struct lzr_req *r)
{
	r->magic = htole32(r->magic), r->version = htole16(r->version), r->cmd = htole16(r->cmd);
	r->id = (int32_t)htole32((uint32_t)r->id), r->off = htole64(r->off), r->len = htole64(r->len);
}

static void rep_le(struct lzr_rep *r)
{
	r->magic = htole32(r->magic), r->status = (int32_t)htole32((uint32_t)r->status);
	r->len = htole64(r->len), r->csum = htole64(r->csum);
}

/* ---------------- the client: lazy-pages --page-server ---------------- */

static int lzr_call(int sk, struct lzr_req *q, struct lzr_rep *p, const char *what, struct cr_err *e)
{
	q->magic = LZR_MAGIC, q->version = LZR_VERSION;
	req_le(q);
	if (px_send_all(sk, q, sizeof(*q)))
		return cr_fail_errno(e, errno ? errno : EPIPE,
				     "the page server (dump --lazy-pages) went away (%s)", what);
	int n = px_recv_all(sk, p, sizeof(*p));
	if (n != 1)
		return cr_fail_errno(e, n ? errno : EPIPE,
				     "the page server (dump --lazy-pages) went away (%s)", what);
	rep_le(p); /* its own inverse */
	p->msg[sizeof(p->msg) - 1] = '\0';
	if (p->magic != LZR_MAGIC)
		return cr_fail_errno(e, EPROTO, "the page server is not a crshim dump --lazy-pages (%s)",
				     what);
	if (p->status)
		return cr_fail_errno(e, p->status > 0 ? p->status : EPROTO, "the page server refused %s: %s",
				     what, p->msg);
	return 0;
}

int lzr_connect(const char *addr, int port, int *sk, struct cr_err *e)
{
	struct lzr_req q = {.cmd = LZR_HELLO, .off = (uint64_t)sysconf(_SC_PAGESIZE)};
	struct lzr_rep p;
	if (!addr || port <= 0)
		return cr_fail_errno(e, EINVAL,
				     "lazy-pages --page-server needs --address ADDR and --port PORT");
	if (px_dial(addr, port, sk, e))
		return -1;
	if (lzr_call(*sk, &q, &p, "hello", e)) {
		close(*sk);
		*sk = -1;
		return -1;
	}
	pr_info("connected to the page server of dump --lazy-pages at %s:%d\n", addr, port);
	return 0;
}

int lzr_get(int sk, int id, uint64_t off, void *buf, uint64_t len, struct cr_err *e)
{
	struct lzr_req q = {.cmd = LZR_GET, .id = id, .off = off, .len = len};
	struct lzr_rep p;
	char what[96];
	snprintf(what, sizeof(what), "pages-%d.img at %llu (%llu bytes)", id, (unsigned long long)off,
		 (unsigned long long)len);
	if (lzr_call(sk, &q, &p, what, e))
		return -1;
	if (p.len != len)
		return cr_fail_errno(e, EPROTO, "the page server sent %llu bytes for %s",
				     (unsigned long long)p.len, what);
	int n = px_recv_all(sk, buf, (size_t)len);
	if (n != 1)
		return cr_fail_errno(e, n ? errno : EPIPE,
				     "the page server (dump --lazy-pages) went away (%s)", what);
	if (csum64(buf, (size_t)len, 0) != p.csum)
		return cr_fail_errno(e, EBADMSG, "the page server sent %s with a bad checksum", what);
	return 0;
}

int lzr_bye(int sk, struct cr_err *e)
{
	struct lzr_req q = {.cmd = LZR_BYE};
	struct lzr_rep p;
	return lzr_call(sk, &q, &p, "the end", e);
}

/* ---------------- the server: dump --lazy-pages ---------------- */

int eng_lazy_src_listen(struct cr_opts *o, int *lfd, int *port, struct cr_err *e)
{
	if (ps_listen(o->ps_address, o->ps_port, lfd, port, e))
		return -1;
	pr_info("dump --lazy-pages: will serve the pages on %s:%d\n", o->ps_address ? o->ps_address : "*",
		*port);
	return 0;
}

struct lzr_srv {
	int sk, dirfd;
	int fid[LZR_FILES], fd[LZR_FILES];
	uint64_t fsize[LZR_FILES];
	size_t nf;
	uint8_t *buf;
	size_t cap;
	uint64_t bytes, gets;
};

static int srv_reply(struct lzr_srv *s, int status, const char *msg, const void *data, uint64_t len)
{
	struct lzr_rep p = {LZR_MAGIC, status, data ? len : 0, data ? csum64(data, (size_t)len, 0) : 0, {0}};
	snprintf(p.msg, sizeof(p.msg), "%s", msg);
	rep_le(&p);
	if (px_send_all(s->sk, &p, sizeof(p)) || (data && len && px_send_all(s->sk, data, (size_t)len)))
		return -1;
	return 0;
}

static int srv_file(struct lzr_srv *s, int id, uint64_t *size)
{
	for (size_t i = 0; i < s->nf; i++)
		if (s->fid[i] == id) {
			*size = s->fsize[i];
			return s->fd[i];
		}
	char name[64];
	struct stat st;
	img_name(IMG_PAGES, id, name, sizeof(name));
	int fd = openat(s->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || s->nf == LZR_FILES) {
		close(fd);
		errno = s->nf == LZR_FILES ? EMFILE : errno;
		return -1;
	}
	s->fid[s->nf] = id, s->fd[s->nf] = fd, s->fsize[s->nf] = (uint64_t)st.st_size;
	s->nf++;
	*size = (uint64_t)st.st_size;
	return fd;
}

/* One GET: 0 answered (data or a refusal), -1 the client is gone. */
static int srv_get(struct lzr_srv *s, const struct lzr_req *q)
{
	uint64_t size;
	char m[96];
	if (q->id <= 0 || !q->len || q->len > LZ_REMOTE_MAX)
		return srv_reply(s, EINVAL, "bad request", NULL, 0);
	int fd = srv_file(s, q->id, &size);
	if (fd < 0) {
		int er = errno;
		snprintf(m, sizeof(m), "pages-%d.img: %s", q->id, strerror(er));
		return srv_reply(s, er, m, NULL, 0);
	}
	if (q->off > size || q->len > size - q->off) {
		snprintf(m, sizeof(m), "pages-%d.img: beyond its end", q->id);
		return srv_reply(s, EINVAL, m, NULL, 0);
	}
	if (q->len > s->cap) {
		uint8_t *nb = realloc(s->buf, (size_t)q->len);
		if (!nb)
			return srv_reply(s, ENOMEM, "out of memory", NULL, 0);
		s->buf = nb, s->cap = (size_t)q->len;
	}
	for (uint64_t got = 0; got < q->len;) {
		ssize_t n = pread(fd, s->buf + got, (size_t)(q->len - got), (off_t)(q->off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(m, sizeof(m), "pages-%d.img: read: %s", q->id, n ? strerror(errno) : "EOF");
			return srv_reply(s, n ? errno : EIO, m, NULL, 0);
		}
		got += (uint64_t)n;
	}
	s->bytes += q->len, s->gets++;
	return srv_reply(s, 0, "", s->buf, q->len);
}

static int srv_session(struct lzr_srv *s, const char *peer, struct cr_err *e)
{
	bool hello = false;
	for (;;) {
		struct lzr_req q;
		int n = px_recv_all(s->sk, &q, sizeof(q));
		if (n != 1)
			return cr_fail_errno(e, n ? errno : EPIPE,
					     "the lazy-pages client %s went away before it had every page",
					     peer);
		req_le(&q); /* its own inverse */
		if (q.magic != LZR_MAGIC || q.version != LZR_VERSION) {
			srv_reply(s, EPROTO, "protocol version differs", NULL, 0);
			return cr_fail_errno(e, EPROTO, "client %s: not a crshim lazy-pages of version %u",
					     peer, LZR_VERSION);
		}
		if (q.cmd == LZR_HELLO) {
			if (q.off != (uint64_t)sysconf(_SC_PAGESIZE)) {
				srv_reply(s, EPROTO, "page size differs", NULL, 0);
				return cr_fail_errno(e, EPROTO, "client %s: page size differs", peer);
			}
			hello = true;
			if (srv_reply(s, 0, "", NULL, 0))
				return cr_fail_sys(e, "client %s: send", peer);
			continue;
		}
		if (!hello) {
			srv_reply(s, EPROTO, "no hello", NULL, 0);
			return cr_fail_errno(e, EPROTO, "client %s: no hello", peer);
		}
		if (q.cmd == LZR_BYE) {
			srv_reply(s, 0, "", NULL, 0);
			return 0;
		}
		if (q.cmd != LZR_GET) {
			srv_reply(s, EPROTO, "unknown request", NULL, 0);
			return cr_fail_errno(e, EPROTO, "client %s: unknown request %u", peer, q.cmd);
		}
		if (srv_get(s, &q))
			return cr_fail_errno(e, errno ? errno : EPIPE,
					     "the lazy-pages client %s went away before it had every page",
					     peer);
	}
}

static int src_serve(int lfd, int dirfd, struct cr_err *e);

/* Each pages-*.img of the images dir renamed into LAZY_SRC_DIR (same filesystem: nothing is copied). */
int eng_lazy_src_ready(struct cr_opts *o, struct cr_err *e)
{
	if (mkdirat(o->imgdir_fd, LAZY_SRC_DIR, 0700) && errno != EEXIST)
		return cr_fail_sys(e, "dump --lazy-pages: make %s/%s", o->images_dir, LAZY_SRC_DIR);
	int dfd = dup(o->imgdir_fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return cr_fail_sys(e, "dump --lazy-pages: read %s", o->images_dir);
	}
	struct dirent *de;
	int ret = 0, id, n = 0;
	char to[300];
	while (!ret && (de = readdir(d))) {
		if (img_kind_of(de->d_name, &id) != IMG_PAGES)
			continue;
		snprintf(to, sizeof(to), LAZY_SRC_DIR "/%s", de->d_name);
		if (renameat(o->imgdir_fd, de->d_name, o->imgdir_fd, to))
			ret = cr_fail_sys(e, "dump --lazy-pages: move %s aside", de->d_name);
		n++;
	}
	closedir(d);
	pr_info("dump --lazy-pages: %d pages files moved to %s/%s, served from there\n", n, o->images_dir,
		LAZY_SRC_DIR);
	return ret;
}

/* LAZY_SRC_DIR and what it holds removed: the pages are the client's now (or lost with it). */
static void src_dir_remove(int imgdir_fd, int fd)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(imgdir_fd, LAZY_SRC_DIR, AT_REMOVEDIR);
}

int eng_lazy_src_serve(struct cr_opts *o, int lfd, struct cr_err *e)
{
	int dirfd = openat(o->imgdir_fd, LAZY_SRC_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return cr_fail_sys(e, "dump --lazy-pages: open %s/%s", o->images_dir, LAZY_SRC_DIR);
	int ret = src_serve(lfd, dirfd, e);
	src_dir_remove(o->imgdir_fd, dirfd);
	return ret;
}

static int src_serve(int lfd, int dirfd, struct cr_err *e)
{
	struct lzr_srv s = {.sk = -1, .dirfd = dirfd};
	struct timespec t0, t1;
	char peer[64] = "?";
	int ret;
	do
		s.sk = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (s.sk < 0 && errno == EINTR);
	if (s.sk < 0)
		return cr_fail_sys(e, "dump --lazy-pages: accept");
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (!getpeername(s.sk, (struct sockaddr *)&ss, &sl))
		ps_peer_name(&ss, peer, sizeof(peer));
	int one = 1; /* a reply is its header, then its data: not held back for an ACK (Nagle) */
	setsockopt(s.sk, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	pr_info("lazy-pages client %s connected\n", peer);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = srv_session(&s, peer, e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ret)
		pr_info("done: %llu bytes in %llu requests served to %s in %.3f s\n",
			(unsigned long long)s.bytes, (unsigned long long)s.gets, peer,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (size_t i = 0; i < s.nf; i++)
		close(s.fd[i]);
	free(s.buf);
	close(s.sk);
	return ret;
}
