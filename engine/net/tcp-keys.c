/* The keys that sign a TCP socket's segments: MD5 signatures (RFC 2385, TCP_MD5SIG and TCP_MD5SIG_EXT) and
 * the Authentication Option (RFC 5925, TCP-AO, Linux 6.7 on). Both are set-only socket options: a socket
 * restored without them talks to its peer unsigned, which drops every segment (a BGP session goes down).
 *
 * Dump: the MD5 keys come from sock_diag (INET_DIAG_MD5SIG, which the kernel adds to a TCP socket's entry
 * when INET_DIAG_INFO is asked and the asker has CAP_NET_ADMIN over the namespace; ns/sock-diag-inet.c): for
 * each key its family, prefix, address and key bytes, newest first. sock_diag does not say whether a key is
 * bound to an L3 master device (TCP_MD5SIG_FLAG_IFINDEX, a VRF): a socket with keys in a namespace with a VRF
 * device is refused. A socket sock_diag does not list (TCP, never bound nor connected; or closed after a
 * connection) cannot be read at all: its keys are not saved. That loss is not silent: each key is charged to
 * the socket's option memory (SO_MEMINFO, SK_MEMINFO_OPTMEM; 136 bytes on Linux 6.18, measured at the dump
 * on a scratch socket), so a closed socket without keys from sock_diag whose option memory is a whole number
 * of keys is named, one line with the count (reading the keys themselves would need a BPF iterator, as
 * sk-mc-index.c reads IP_MULTICAST_IF). Without CAP_NET_ADMIN no key is read: the dump says so, once. TCP-AO
 * keys (TCP_AO_INFO says the socket has them): refused, they are not restored yet.
 *
 * Restore: the keys are set again oldest first (the kernel lists the newest first, so the order, which
 * decides between keys of the same prefix, is the same), each with TCP_MD5SIG_EXT and its prefix (on an IPv6
 * socket an IPv4 key as its v4-mapped address), on the new socket before it is bound, listens or is connected
 * (in repair mode: the connect sizes the header by the key of the peer). */
#define LOG_PREFIX "tcp-keys: "
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/capability.h>
#include <linux/sock_diag.h>

#include "base/caps.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "dump.h"
#include "net/sk-inet.h"
#include "restore.h"
#include "sock-diag.h"

#ifndef TCP_AO_INFO /* Linux 6.7 */
#define TCP_AO_INFO 40
#endif

#define MD5_MAXKEYLEN 80

/* struct tcp_diag_md5sig of linux/tcp.h (which glibc's netinet/tcp.h cannot be included with) */
struct diag_md5 {
	uint8_t family, prefixlen;
	uint16_t keylen;
	uint32_t addr[4]; /* network order; IPv4: the first */
	uint8_t key[MD5_MAXKEYLEN];
};

/* ---------------------------------------------------------------- dump */

void tcp_md5_free(InetSkEntry *ie)
{
	for (size_t i = 0; i < ie->n_md5; i++) {
		free(ie->md5[i]->addr.data);
		if (ie->md5[i]->key.data) /* the key: not left in freed memory */
			memset(ie->md5[i]->key.data, 0, ie->md5[i]->key.len);
		free(ie->md5[i]->key.data);
		free(ie->md5[i]);
	}
	free(ie->md5);
	ie->md5 = NULL;
	ie->n_md5 = 0;
}

static int md5_entry(const struct diag_md5 *d, TcpMd5Entry **out, struct cr_err *e)
{
	size_t alen = d->family == AF_INET ? 4 : 16;
	if ((d->family != AF_INET && d->family != AF_INET6) || !d->keylen || d->keylen > MD5_MAXKEYLEN ||
	    d->prefixlen > alen * 8)
		return cr_fail_errno(e, EPROTO, "MD5 key of family %u, prefix %u, %u bytes: not understood",
				     d->family, d->prefixlen, d->keylen);
	TcpMd5Entry *m = calloc(1, sizeof(*m));
	uint8_t *a = malloc(alen), *k = malloc(d->keylen);
	if (!m || !a || !k) {
		free(m), free(a), free(k);
		return cr_fail_errno(e, ENOMEM, "out of memory");
	}
	tcp_md5_entry__init(m);
	memcpy(a, d->addr, alen);
	memcpy(k, d->key, d->keylen);
	m->family = d->family, m->has_family = 1;
	m->prefixlen = d->prefixlen, m->has_prefixlen = 1;
	m->addr.data = a, m->addr.len = alen, m->has_addr = 1;
	m->key.data = k, m->key.len = d->keylen, m->has_key = 1;
	*out = m;
	return 0;
}

int tcp_md5_dump(const struct dump_ctx *c, bool *said, const struct ns_inet_table *t,
		 const struct ns_inet_sk *s, InetSkEntry *ie, struct cr_err *e)
{
	if (!cr_has_cap(CAP_NET_ADMIN)) {
		if (!*said)
			eng_notice(
			    c->o,
			    "pid %d: the MD5 keys of TCP sockets (TCP_MD5SIG) cannot be read without "
			    "CAP_NET_ADMIN: its TCP sockets are saved without them (said once per process)",
			    c->pid);
		*said = true;
		return 0;
	}
	if (!s->md5)
		return 0;
	if (s->md5_len % sizeof(struct diag_md5))
		return cr_fail_errno(e, EPROTO, "TCP socket:[%u]: MD5 keys of %u bytes: not understood",
				     s->ino, s->md5_len);
	if (t->vrf)
		return cr_fail(
		    e,
		    "TCP socket:[%u] has MD5 keys (TCP_MD5SIG) in a network namespace with a VRF "
		    "device: whether a key is bound to it (TCP_MD5SIG_FLAG_IFINDEX) cannot be read",
		    s->ino);
	size_t n = s->md5_len / sizeof(struct diag_md5);
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
	if (!(ie->md5 = calloc(n, sizeof(*ie->md5))))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct diag_md5 d;
		memcpy(&d, s->md5 + i * sizeof(d), sizeof(d));
		if (md5_entry(&d, &ie->md5[ie->n_md5], e))
			return cr_wrap(e, "TCP socket:[%u]", s->ino);
		ie->n_md5++;
	}
	pr_debug("socket:[%u]: %zu MD5 keys\n", s->ino, n);
	return 0;
}

/* The option memory of socket fd (SO_MEMINFO: SK_MEMINFO_OPTMEM, what sock_kmalloc charged it), -1: unknown.
 */
static long optmem(int fd)
{
	uint32_t m[SK_MEMINFO_VARS];
	socklen_t l = sizeof(m);
	memset(m, 0, sizeof(m));
	return getsockopt(fd, SOL_SOCKET, SO_MEMINFO, m, &l) || l <= SK_MEMINFO_OPTMEM * sizeof(m[0])
		   ? -1
		   : (long)m[SK_MEMINFO_OPTMEM];
}

/* What one MD5 key charges a socket's option memory on this kernel (sizeof struct tcp_md5sig_key), measured
 * once on a scratch socket; 0: unknown. */
static long md5_key_mem(void)
{
	static long k = -1;
	if (k >= 0)
		return k;
	k = 0;
	__cleanup_close int sk = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	struct tcp_md5sig m;
	memset(&m, 0, sizeof(m));
	struct sockaddr_in *a = (struct sockaddr_in *)&m.tcpm_addr;
	a->sin_family = AF_INET, a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m.tcpm_keylen = 1, m.tcpm_key[0] = 'k';
	long before = sk < 0 ? -1 : optmem(sk);
	if (before < 0 || setsockopt(sk, IPPROTO_TCP, TCP_MD5SIG, &m, sizeof(m)))
		return k;
	long after = optmem(sk);
	k = after > before ? after - before : 0;
	return k;
}

/* A closed TCP socket whose MD5 keys sock_diag did not read (it does not list one never bound, nor one closed
 * after a connection): no interface reads its keys, but their memory shows in its option memory. A socket
 * with option memory of a whole number of keys is named, one line with their number; other option memory
 * (a socket filter, IPv6 options) is only logged. */
static void md5_unlisted(const struct dump_ctx *c, int fd, int cfd, const InetSkEntry *ie)
{
	if (ie->state != TCP_CLOSE || ie->n_md5)
		return;
	long om = optmem(cfd), k = om > 0 ? md5_key_mem() : 0;
	if (om <= 0)
		return;
	if (!k || om % k) {
		pr_info("fd %d: closed TCP socket with %ld bytes of option memory, not a number of MD5 keys "
			"(%ld bytes each)\n",
			fd, om, k);
		return;
	}
	eng_notice(
	    c->o,
	    "pid %d fd %d: TCP socket (state CLOSE, %s) holds %ld TCP MD5 key%s (TCP_MD5SIG; its option "
	    "memory shows them), which no kernel interface reads where sock_diag does not list the "
	    "socket: restored without them",
	    c->pid, fd,
	    ie->has_dst_addr   ? "after a connection"
	    : ie->has_src_addr ? "bound"
			       : "never bound",
	    om / k, om / k == 1 ? "" : "s");
}

int tcp_keys_dump(const struct dump_ctx *c, int fd, int cfd, InetSkEntry *ie, struct cr_err *e)
{
	md5_unlisted(c, fd, cfd, ie);
	return tcp_ao_dump(cfd, e);
}

int tcp_ao_dump(int cfd, struct cr_err *e)
{
	uint8_t info[48] = {0}; /* struct tcp_ao_info_opt */
	socklen_t l = sizeof(info);
	if (!getsockopt(cfd, IPPROTO_TCP, TCP_AO_INFO, info, &l))
		return cr_fail(e,
			       "TCP socket with TCP-AO keys (TCP_AO_ADD_KEY, RFC 5925): not supported yet");
	if (errno == ENOENT || errno == ENOPROTOOPT || errno == EOPNOTSUPP)
		return 0; /* none; a kernel without TCP-AO */
	return cr_fail_sys(e, "TCP_AO_INFO");
}

/* ---------------------------------------------------------------- restore */

int tcp_md5_check(const InetSkEntry *ie, struct cr_err *e)
{
	for (size_t i = 0; i < ie->n_md5; i++) {
		const TcpMd5Entry *m = ie->md5[i];
		size_t alen = m->family == AF_INET ? 4 : 16;
		if (ie->protocol != IPPROTO_TCP || (m->family != AF_INET && m->family != AF_INET6) ||
		    (m->family == AF_INET6 && ie->family != AF_INET6) || m->addr.len != alen ||
		    m->prefixlen > alen * 8 || !m->key.len || m->key.len > MD5_MAXKEYLEN)
			return cr_fail_errno(e, EBADMSG, "bad TCP MD5 key %zu", i);
	}
	return 0;
}

int tcp_md5_restore(int sk, const InetSkEntry *ie, char *msg, size_t len)
{
	for (size_t i = ie->n_md5; i-- > 0;) {
		const TcpMd5Entry *m = ie->md5[i];
		struct tcp_md5sig k;
		memset(&k, 0, sizeof(k));
		if (m->key.len > sizeof(k.tcpm_key) || m->addr.len != (m->family == AF_INET ? 4u : 16u) ||
		    (m->family != AF_INET && ie->family == AF_INET)) {
			snprintf(msg, len, "bad TCP MD5 key %zu", ie->n_md5 - i);
			return -1;
		}
		if (ie->family == AF_INET) {
			struct sockaddr_in *a = (struct sockaddr_in *)&k.tcpm_addr;
			a->sin_family = AF_INET;
			memcpy(&a->sin_addr, m->addr.data, 4);
		} else {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&k.tcpm_addr;
			a->sin6_family = AF_INET6;
			if (m->family == AF_INET) { /* the IPv6 socket's key of IPv4 peers: v4-mapped */
				a->sin6_addr.s6_addr[10] = a->sin6_addr.s6_addr[11] = 0xff;
				memcpy(&a->sin6_addr.s6_addr[12], m->addr.data, 4);
			} else {
				memcpy(&a->sin6_addr, m->addr.data, 16);
			}
		}
		k.tcpm_flags = TCP_MD5SIG_FLAG_PREFIX;
		k.tcpm_prefixlen = (uint8_t)m->prefixlen;
		k.tcpm_keylen = (uint16_t)m->key.len;
		memcpy(k.tcpm_key, m->key.data, m->key.len);
		int r = setsockopt(sk, IPPROTO_TCP, TCP_MD5SIG_EXT, &k, sizeof(k));
		memset(k.tcpm_key, 0, sizeof(k.tcpm_key));
		if (r)
			return sk_errmsg(msg, len, "TCP MD5 key %zu of %zu (TCP_MD5SIG_EXT, prefix %u)",
					 ie->n_md5 - i, ie->n_md5, m->prefixlen);
	}
	return 0;
}
