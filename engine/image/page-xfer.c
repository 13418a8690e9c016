/* Page transfer over TCP (--page-server): client and server. The protocol is in page-xfer.md. */
#define LOG_PREFIX "page-xfer: "
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "image/csum.h"
#include "image/image.h"
#include "image/page-xfer.h"

#define PX_MAGIC "CRSHPGX1"
#define PX_VERSION 1u
#define PX_REPLY_MAGIC 0x50535250u /* "PRSP" */
#define PX_NAME_MAX 63u
#define PX_CHUNK_MAX (64u << 20)
#define PX_FILES_MAX 65536u

enum px_cmd { PX_HELLO = 1, PX_OPEN, PX_DATA, PX_CLOSE, PX_ABORT, PX_FINISH };

/* Every message: this header (little endian), then name_len bytes of name, then len bytes of payload. */
struct px_hdr {
	uint32_t cmd;
	uint32_t name_len;
	uint64_t len;
	uint64_t csum; /* DATA: csum64 of the payload; CLOSE: the file's checksum (page-xfer.md) */
};

/* The server's answer to HELLO and FINISH, and its last word before it closes on an error. */
struct px_reply {
	uint32_t magic;
	int32_t err; /* 0, or an errno */
	char msg[248];
};

struct page_xfer {
	int sk;
	char peer[128];
	bool open;
	char name[PX_NAME_MAX + 1];
	uint64_t size, fsum, sent;
};

int px_send_all(int sk, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = send(sk, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n, len -= (size_t)n;
	}
	return 0;
}

int px_recv_all(int sk, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t got = 0;
	while (got < len) {
		ssize_t n = recv(sk, p + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			if (!got)
				return 0;
			errno = EPIPE;
			return -1;
		}
		got += (size_t)n;
	}
	return 1;
}

static void hdr_le(struct px_hdr *h)
{
	h->cmd = htole32(h->cmd);
	h->name_len = htole32(h->name_len);
	h->len = htole64(h->len);
	h->csum = htole64(h->csum);
}

/* After a failed send or receive: the server's error reply when it sent one, else what the socket says. */
static int px_lost(struct page_xfer *px, const char *what, struct cr_err *e)
{
	int err = errno ? errno : EPIPE;
	struct px_reply r;
	struct timeval tv = {.tv_sec = 1};
	setsockopt(px->sk, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (px_recv_all(px->sk, &r, sizeof(r)) == 1 && le32toh(r.magic) == PX_REPLY_MAGIC && r.err) {
		r.msg[sizeof(r.msg) - 1] = '\0';
		return cr_fail_errno(e, (int)le32toh((uint32_t)r.err), "page server %s: %s", px->peer, r.msg);
	}
	return cr_fail_errno(e, err, "page server %s: connection lost while %s", px->peer, what);
}

/* len: of the payload buf, or (CLOSE: buf NULL) the file's size, sent in the header only. */
static int px_send(struct page_xfer *px, uint32_t cmd, const char *name, const void *buf, uint64_t len,
		   uint64_t csum, struct cr_err *e)
{
	struct px_hdr h = {cmd, name ? (uint32_t)strlen(name) : 0, len, csum};
	uint32_t nl = h.name_len;
	hdr_le(&h);
	errno = 0;
	if (px_send_all(px->sk, &h, sizeof(h)) || (nl && px_send_all(px->sk, name, nl)) ||
	    (buf && len && px_send_all(px->sk, buf, (size_t)len)))
		return px_lost(px, "sending", e);
	return 0;
}

static int px_reply_wait(struct page_xfer *px, const char *what, struct cr_err *e)
{
	struct px_reply r;
	errno = 0;
	int n = px_recv_all(px->sk, &r, sizeof(r));
	if (n <= 0) {
		if (!n)
			errno = EPIPE;
		return px_lost(px, what, e);
	}
	if (le32toh(r.magic) != PX_REPLY_MAGIC)
		return cr_fail_errno(e, EPROTO, "page server %s: not a crshim page server (bad reply)",
				     px->peer);
	r.msg[sizeof(r.msg) - 1] = '\0';
	if (r.err)
		return cr_fail_errno(e, (int)le32toh((uint32_t)r.err), "page server %s: %s", px->peer, r.msg);
	return 0;
}

/* A TCP socket on the first address of addr:port that connects (passive: that binds and listens, with
 * SO_REUSEADDR). -1 with *err set (and *gai for a name that does not resolve). */
static int tcp_first(const char *addr, int port, bool passive, int *err, const char **gai)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = passive ? AI_PASSIVE : 0},
			*ai = NULL;
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	int r = getaddrinfo(addr, ps, &hints, &ai);
	*err = 0, *gai = NULL;
	if (r) {
		*err = EINVAL, *gai = gai_strerror(r);
		return -1;
	}
	int sk = -1, one = 1;
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		sk = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (sk < 0) {
			*err = errno;
			continue;
		}
		if (passive)
			setsockopt(sk, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (passive ? !bind(sk, a->ai_addr, a->ai_addrlen) && !listen(sk, 1)
			    : !connect(sk, a->ai_addr, a->ai_addrlen))
			break;
		*err = errno;
		close(sk);
		sk = -1;
	}
	freeaddrinfo(ai);
	return sk;
}

int px_dial(const char *addr, int port, int *skp, struct cr_err *e)
{
	int err;
	const char *gai;
	int sk = tcp_first(addr, port, false, &err, &gai);
	if (sk < 0 && gai)
		return cr_fail_errno(e, EINVAL, "page server %s:%d: %s", addr, port, gai);
	if (sk < 0)
		return cr_fail_errno(e, err, "page server %s:%d: connect", addr, port);
	int one = 1;
	setsockopt(sk, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*skp = sk;
	return 0;
}

int px_connect(const char *addr, int port, struct page_xfer **pxp, struct cr_err *e)
{
	if (!addr || port <= 0 || port > 65535)
		return cr_fail_errno(e, EINVAL,
				     "--page-server needs --address ADDR and --port PORT (1-65535)");
	struct page_xfer *px = calloc(1, sizeof(*px));
	if (!px)
		return cr_fail_errno(e, ENOMEM, "page server: out of memory");
	snprintf(px->peer, sizeof(px->peer), "%s:%d", addr, port);
	if (px_dial(addr, port, &px->sk, e)) {
		free(px);
		return -1;
	}
	static const uint8_t magic[8] = {'C', 'R', 'S', 'H', 'P', 'G', 'X', '1'};
	uint8_t hello[16];
	memcpy(hello, magic, sizeof(magic));
	uint32_t v = htole32(PX_VERSION), psz = htole32((uint32_t)sysconf(_SC_PAGESIZE));
	memcpy(hello + 8, &v, 4);
	memcpy(hello + 12, &psz, 4);
	if (px_send(px, PX_HELLO, NULL, hello, sizeof(hello), csum64(hello, sizeof(hello), 0), e) ||
	    px_reply_wait(px, "saying hello", e)) {
		px_free(px);
		return -1;
	}
	pr_info("connected to page server %s\n", px->peer);
	*pxp = px;
	return 0;
}

int px_open(struct page_xfer *px, const char *name, struct cr_err *e)
{
	if (px->open || strlen(name) > PX_NAME_MAX)
		return cr_fail_errno(e, EINVAL, "page server %s: cannot send %s (%s)", px->peer, name,
				     px->open ? "another file is open" : "name too long");
	snprintf(px->name, sizeof(px->name), "%s", name);
	px->size = px->fsum = 0;
	if (px_send(px, PX_OPEN, name, NULL, 0, 0, e))
		return -1;
	px->open = true;
	return 0;
}

int px_data(struct page_xfer *px, const void *buf, size_t len, struct cr_err *e)
{
	const uint8_t *p = buf;
	while (len) {
		size_t n = len > PX_CHUNK_MAX ? PX_CHUNK_MAX : len;
		uint64_t c = csum64(p, n, 0);
		if (px_send(px, PX_DATA, NULL, p, n, c, e))
			return -1;
		px->fsum = csum64(&c, sizeof(c), px->fsum);
		px->size += n, px->sent += n;
		p += n, len -= n;
	}
	return 0;
}

int px_close_file(struct page_xfer *px, struct cr_err *e)
{
	px->open = false;
	return px_send(px, PX_CLOSE, px->name, NULL, px->size, px->fsum, e);
}

void px_abort_file(struct page_xfer *px)
{
	struct cr_err e = {0};
	if (!px->open)
		return;
	px->open = false;
	px_send(px, PX_ABORT, px->name, NULL, 0, 0, &e);
}

int px_send_file(struct page_xfer *px, int dirfd, const char *name, struct cr_err *e)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", name);
	uint8_t buf[1 << 16];
	int ret = px_open(px, name, e);
	while (!ret) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = cr_fail_sys(e, "read %s", name);
			px_abort_file(px);
			break;
		}
		if (!n) {
			ret = px_close_file(px, e);
			break;
		}
		ret = px_data(px, buf, (size_t)n, e);
	}
	close(fd);
	return ret;
}

int px_finish(struct page_xfer *px, struct cr_err *e)
{
	if (px_send(px, PX_FINISH, NULL, NULL, 0, 0, e) || px_reply_wait(px, "finishing", e))
		return -1;
	pr_info("page server %s: %llu bytes sent\n", px->peer, (unsigned long long)px->sent);
	return 0;
}

uint64_t px_sent(const struct page_xfer *px)
{
	return px ? px->sent : 0;
}

void px_free(struct page_xfer *px)
{
	if (!px)
		return;
	if (px->sk >= 0)
		close(px->sk);
	free(px);
}

/* ---------------- the server ---------------- */

/* The port of an IPv4 or IPv6 address, and its text in host (may be NULL). */
static unsigned sa_port(const struct sockaddr_storage *ss, char *host, size_t len)
{
	if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 s6;
		memcpy(&s6, ss, sizeof(s6));
		if (host)
			inet_ntop(AF_INET6, &s6.sin6_addr, host, (socklen_t)len);
		return ntohs(s6.sin6_port);
	}
	struct sockaddr_in s4;
	memcpy(&s4, ss, sizeof(s4));
	if (host && ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &s4.sin_addr, host, (socklen_t)len);
	return ntohs(s4.sin_port);
}

void ps_peer_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char host[96] = "?";
	unsigned port = sa_port(ss, host, sizeof(host));
	snprintf(buf, len, "%s:%u", host, port);
}

int ps_listen(const char *addr, int port, int *lfd, int *bound, struct cr_err *e)
{
	if (port < 0 || port > 65535)
		return cr_fail_errno(e, EINVAL, "page-server: port %d out of range (0-65535)", port);
	int err;
	const char *gai;
	int sk = tcp_first(addr, port, true, &err, &gai);
	if (sk < 0 && gai)
		return cr_fail_errno(e, EINVAL, "page-server: address %s: %s", addr ? addr : "*", gai);
	if (sk < 0)
		return cr_fail_errno(e, err, "page-server: listen on %s:%d", addr ? addr : "*", port);
	struct sockaddr_storage ss = {0};
	socklen_t sl = sizeof(ss);
	if (getsockname(sk, (struct sockaddr *)&ss, &sl)) {
		close(sk);
		return cr_fail_sys(e, "page-server: getsockname");
	}
	*bound = (int)sa_port(&ss, NULL, 0);
	*lfd = sk;
	return 0;
}

struct ps_file {
	char name[PX_NAME_MAX + 1];
	char tmp[PX_NAME_MAX + 16];
};

struct ps_conn {
	int sk, dirfd, fd; /* fd: the file being received */
	char peer[128];
	struct ps_file *files; /* received (closed) files, and the one open last */
	size_t nr, cap;
	bool open;
	uint64_t size, fsum, total;
	uint8_t *buf; /* a message's payload: grown to the largest one so far (at most PX_CHUNK_MAX) */
	size_t bufsz;
};

static void ps_reply(struct ps_conn *c, int err, const char *msg)
{
	struct px_reply r = {htole32(PX_REPLY_MAGIC), (int32_t)htole32((uint32_t)err), {0}};
	size_t n = strnlen(msg, sizeof(r.msg) - 1);
	memcpy(r.msg, msg, n);
	px_send_all(c->sk, &r, sizeof(r));
}

/* A page file or a pagemap image, by the images' own names: nothing else is written. */
static bool ps_name_ok(const char *n)
{
	int id;
	int k = img_kind_of(n, &id);
	return n[0] != '.' && !strchr(n, '/') &&
	       (k == IMG_PAGEMAP || k == IMG_PAGES || k == IMG_SHMEM_PAGEMAP || k == IMG_SHMEM_PAGES ||
		k == IMG_IPC_SHM_PAGEMAP || k == IMG_IPC_SHM_PAGES);
}

static int ps_fail(struct ps_conn *c, struct cr_err *e, int err, const char *fmt, const char *arg)
{
	char m[200];
	snprintf(m, sizeof(m), fmt, arg);
	ps_reply(c, err, m);
	return cr_fail_errno(e, err, "page-server: client %s: %s", c->peer, m);
}

static int ps_handle(struct ps_conn *c, const struct px_hdr *h, const char *name, struct cr_err *e)
{
	switch (h->cmd) {
	case PX_OPEN:
		if (c->open)
			return ps_fail(c, e, EPROTO, "%s: opened while another file is open", name);
		if (!ps_name_ok(name))
			return ps_fail(c, e, EPROTO, "%s: not the name of a page image", name);
		for (size_t i = 0; i < c->nr; i++)
			if (!strcmp(c->files[i].name, name))
				return ps_fail(c, e, EPROTO, "%s: sent twice", name);
		if (c->nr == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 64;
			if (ncap > PX_FILES_MAX)
				return ps_fail(c, e, EPROTO, "%s: too many files", name);
			struct ps_file *n = realloc(c->files, ncap * sizeof(*n));
			if (!n)
				return ps_fail(c, e, ENOMEM, "%s: out of memory", name);
			c->files = n, c->cap = ncap;
		}
		struct ps_file *f = &c->files[c->nr];
		snprintf(f->name, sizeof(f->name), "%s", name);
		snprintf(f->tmp, sizeof(f->tmp), ".%s.ps.tmp", name);
		c->fd = openat(c->dirfd, f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (c->fd < 0)
			return ps_fail(c, e, errno, "%s: cannot create it on the server", name);
		c->nr++;
		c->open = true;
		c->size = c->fsum = 0;
		return 0;
	case PX_DATA: {
		if (!c->open)
			return ps_fail(c, e, EPROTO, "%s", "data without an open file");
		uint64_t sum = csum64(c->buf, (size_t)h->len, 0);
		if (sum != h->csum)
			return ps_fail(c, e, EBADMSG, "%s: checksum mismatch in a data block",
				       c->files[c->nr - 1].name);
		for (size_t done = 0; done < h->len;) {
			ssize_t n = write(c->fd, c->buf + done, (size_t)h->len - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return ps_fail(c, e, n < 0 ? errno : EIO, "%s: write failed on the server",
					       c->files[c->nr - 1].name);
			done += (size_t)n;
		}
		c->fsum = csum64(&sum, sizeof(sum), c->fsum);
		c->size += h->len, c->total += h->len;
		return 0;
	}
	case PX_CLOSE:
	case PX_ABORT:
		if (!c->open || strcmp(name, c->files[c->nr - 1].name))
			return ps_fail(c, e, EPROTO, "%s: closed but not open", name);
		c->open = false;
		int r = close(c->fd);
		c->fd = -1;
		if (h->cmd == PX_ABORT) {
			unlinkat(c->dirfd, c->files[--c->nr].tmp, 0);
			return 0;
		}
		if (r)
			return ps_fail(c, e, errno, "%s: write failed on the server", name);
		if (h->len != c->size || h->csum != c->fsum)
			return ps_fail(c, e, EBADMSG, "%s: size or checksum of the file differs", name);
		return 0;
	}
	return ps_fail(c, e, EPROTO, "%s", "unknown message");
}

/* The files received, made visible by name (a FINISH), or removed. */
static int ps_end(struct ps_conn *c, bool keep, struct cr_err *e)
{
	int ret = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	for (size_t i = 0; i < c->nr; i++) {
		if (keep && !ret && renameat(c->dirfd, c->files[i].tmp, c->dirfd, c->files[i].name))
			ret = cr_fail_sys(e, "page-server: rename %s", c->files[i].name);
		if (!keep || ret)
			unlinkat(c->dirfd, c->files[i].tmp, 0);
	}
	if (ret) /* those renamed before the failure go too: all or nothing */
		for (size_t i = 0; i < c->nr; i++)
			unlinkat(c->dirfd, c->files[i].name, 0);
	return ret;
}

static int ps_session(struct ps_conn *c, struct cr_err *e)
{
	struct px_hdr h;
	char name[PX_NAME_MAX + 1];
	bool hello = false;
	for (;;) {
		int n = px_recv_all(c->sk, &h, sizeof(h));
		if (n <= 0)
			return cr_fail_errno(
			    e, n ? errno : EPIPE,
			    "page-server: client %s: connection closed before the end of the dump", c->peer);
		h.cmd = le32toh(h.cmd), h.name_len = le32toh(h.name_len);
		h.len = le64toh(h.len), h.csum = le64toh(h.csum);
		if (h.name_len > PX_NAME_MAX || (h.cmd != PX_CLOSE && h.len > PX_CHUNK_MAX))
			return ps_fail(c, e, EPROTO, "%s", "message too long");
		if (!hello && h.cmd != PX_HELLO)
			return ps_fail(c, e, EPROTO, "%s", "not a crshim page client (no hello)");
		if ((h.len && h.cmd != PX_DATA && h.cmd != PX_HELLO && h.cmd != PX_CLOSE) ||
		    (h.cmd == PX_CLOSE && h.len > (1ull << 48)))
			return ps_fail(c, e, EPROTO, "%s", "bad message length");
		uint64_t plen = h.cmd == PX_CLOSE ? 0 : h.len;
		if (plen > c->bufsz) {
			uint8_t *nb = realloc(c->buf, (size_t)plen);
			if (!nb)
				return ps_fail(c, e, ENOMEM, "%s", "out of memory for a message");
			c->buf = nb, c->bufsz = (size_t)plen;
		}
		if ((h.name_len && px_recv_all(c->sk, name, h.name_len) != 1) ||
		    (plen && px_recv_all(c->sk, c->buf, (size_t)plen) != 1))
			return cr_fail_errno(e, errno ? errno : EPIPE,
					     "page-server: client %s: connection closed in a message",
					     c->peer);
		name[h.name_len] = '\0';
		if (h.name_len != strlen(name))
			return ps_fail(c, e, EPROTO, "%s", "bad file name");
		if (h.cmd == PX_HELLO) {
			uint32_t v, psz;
			if (hello || h.len != 16 || memcmp(c->buf, PX_MAGIC, 8) ||
			    csum64(c->buf, 16, 0) != h.csum)
				return ps_fail(c, e, EPROTO, "%s", "not a crshim page client (bad hello)");
			memcpy(&v, c->buf + 8, 4);
			memcpy(&psz, c->buf + 12, 4);
			if (le32toh(v) != PX_VERSION)
				return ps_fail(c, e, EPROTO, "%s", "protocol version differs");
			if (le32toh(psz) != (uint32_t)sysconf(_SC_PAGESIZE))
				return ps_fail(c, e, EPROTO, "%s", "page size differs");
			hello = true;
			ps_reply(c, 0, "");
			continue;
		}
		if (h.cmd == PX_FINISH) {
			if (c->open)
				return ps_fail(c, e, EPROTO, "%s", "finish with a file still open");
			if (ps_end(c, true, e)) {
				ps_reply(c, EIO, e->msg);
				return -1;
			}
			c->nr = 0;
			ps_reply(c, 0, "");
			return 0;
		}
		if (ps_handle(c, &h, name, e))
			return -1;
	}
}

int ps_serve_one(int lfd, int dirfd, struct cr_err *e)
{
	struct sockaddr_storage ss = {0};
	socklen_t sl = sizeof(ss);
	struct ps_conn c = {.sk = -1, .dirfd = dirfd, .fd = -1};
	do
		c.sk = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	while (c.sk < 0 && errno == EINTR);
	if (c.sk < 0)
		return cr_fail_sys(e, "page-server: accept");
	char host[96] = "?";
	unsigned port = sa_port(&ss, host, sizeof(host));
	snprintf(c.peer, sizeof(c.peer), "%s:%u", host, port);
	pr_info("page-server: client %s connected\n", c.peer);
	c.bufsz = 64u << 10; /* grown by a larger message */
	c.buf = malloc(c.bufsz);
	int ret;
	if (!c.buf)
		ret = cr_fail_errno(e, ENOMEM, "page-server: out of memory");
	else
		ret = ps_session(&c, e);
	if (ret)
		ps_end(&c, false, e);
	else
		pr_info("page-server: client %s done, %llu bytes received\n", c.peer,
			(unsigned long long)c.total);
	free(c.files);
	free(c.buf);
	close(c.sk);
	return ret;
}
