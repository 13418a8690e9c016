/* Restore of inet sockets (see sk-inet.h), in the restore child: socket, options, bind, then listen or
 * connect; an established TCP connection through tcp-repair.c. Errors are text for the error pipe. The
 * parent checks the entries first and removes the network locks once the tree runs (or the restore failed).
 */
#define LOG_PREFIX "restore-sk: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "files/fdshare.h"
#include "restore.h"
#include "net/sk-inet.h"
#include "net/sk-inet-queue.h"

static int check_addr(const ProtobufCBinaryData *a, bool has, uint32_t family)
{
	return !has || a->len == (family == AF_INET ? 4u : 16u) ? 0 : -1;
}

int rst_sk_check(const FileEntry *f, struct cr_err *e)
{
	if (f->kind == FILE_KIND__FILE_NETLINKSK)
		return f->netlink_sk
			   ? 0
			   : cr_fail_errno(e, EBADMSG, "file id %u: no netlink socket entry", f->id);
	if (f->kind == FILE_KIND__FILE_PACKETSK)
		return f->packet_sk ? rst_pkt_rings_check(f->packet_sk, e)
				    : cr_fail_errno(e, EBADMSG, "file id %u: no packet socket entry", f->id);
	const InetSkEntry *ie = f->inet_sk;
	if (!ie || (ie->family != AF_INET && ie->family != AF_INET6) ||
	    check_addr(&ie->src_addr, ie->has_src_addr, ie->family) ||
	    check_addr(&ie->dst_addr, ie->has_dst_addr, ie->family))
		return cr_fail_errno(e, EBADMSG, "file id %u: bad inet socket entry", f->id);
	if (ie->protocol == IPPROTO_TCP && sk_tcp_repair_state(ie->state) && !ie->tcp)
		return cr_fail_errno(
		    e, ENOTCONN,
		    "TCP connection in state %s was dumped without its stream (--tcp-close): "
		    "restore it with --tcp-close",
		    sk_tcp_state_name(ie->state));
	if (ie->protocol == IPPROTO_TCP && sk_tcp_repair_state(ie->state) && !ie->has_dst_addr)
		return cr_fail_errno(e, EBADMSG, "file id %u: TCP connection without its peer address",
				     f->id);
	for (size_t i = 0; i < ie->n_opts; i++)
		if (!ie->opts[i]->has_level || !ie->opts[i]->has_name)
			return cr_fail_errno(e, EBADMSG, "file id %u: bad socket option", f->id);
	return tcp_md5_check(ie, e) ? cr_wrap(e, "file id %u", f->id) : 0;
}

/* SO_SNDBUFFORCE/SO_RCVBUFFORCE need CAP_NET_ADMIN. Without it (a crshim with file capabilities only), the
 * plain option gives the same size when it is within net.core.[wr]mem_max: the kernel stores twice the value
 * asked, which is what the dump read. Otherwise one line naming the capability. */
static int rst_sk_buf_unforced(int sk, const SkOptEntry *o, char *msg, size_t len)
{
	int want, got = 0, plain = o->name == SO_SNDBUFFORCE ? SO_SNDBUF : SO_RCVBUF;
	socklen_t gl = sizeof(got);
	if (o->val.len != sizeof(want))
		return -1;
	memcpy(&want, o->val.data, sizeof(want));
	if (setsockopt(sk, SOL_SOCKET, plain, &want, sizeof(want)) ||
	    getsockopt(sk, SOL_SOCKET, plain, &got, &gl))
		return sk_errmsg(msg, len, "socket option %s",
				 plain == SO_SNDBUF ? "SO_SNDBUF" : "SO_RCVBUF");
	if (got / 2 != want) {
		snprintf(msg, len,
			 "%s of %d bytes is above net.core.%s and %s needs CAP_NET_ADMIN, which crshim lacks",
			 plain == SO_SNDBUF ? "SO_SNDBUF" : "SO_RCVBUF", want * 2,
			 plain == SO_SNDBUF ? "wmem_max" : "rmem_max",
			 plain == SO_SNDBUF ? "SO_SNDBUFFORCE" : "SO_RCVBUFFORCE");
		return -1;
	}
	return 0;
}

/* SO_BUF_LOCK at 0 (as every image of a kernel that has it says): nothing to do on a kernel without it. */
static bool buf_lock_unknown(const SkOptEntry *o)
{
	static const uint8_t zero[sizeof(int)];
	return errno == ENOPROTOOPT && o->level == SOL_SOCKET && o->name == SO_BUF_LOCK &&
	       o->val.len == sizeof(int) && !memcmp(o->val.data, zero, sizeof(int));
}

int rst_sk_opts(int sk, SkOptEntry *const *o, size_t n, char *msg, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		/* (one that needs CAP_NET_ADMIN over the host: set by crshim's server, sk-priv.c) */
		if (!sk_priv_setsockopt(sk, o[i]->level, o[i]->name, o[i]->val.data,
					(socklen_t)o[i]->val.len) ||
		    buf_lock_unknown(o[i]))
			continue;
		if (errno == EPERM && o[i]->level == SOL_SOCKET &&
		    (o[i]->name == SO_SNDBUFFORCE || o[i]->name == SO_RCVBUFFORCE) &&
		    o[i]->val.len == sizeof(int)) {
			if (rst_sk_buf_unforced(sk, o[i], msg, len))
				return -1;
			continue;
		}
		return sk_errmsg(msg, len, "socket option %d/%d (%zu bytes)", o[i]->level, o[i]->name,
				 o[i]->val.len);
	}
	return 0;
}

int rst_sk_buf_lock(int sk, SkOptEntry *const *o, size_t n, char *msg, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (o[i]->level == SOL_SOCKET && o[i]->name == SO_BUF_LOCK)
			return rst_sk_opts(sk, &o[i], 1, msg, len);
	return 0;
}

static socklen_t mkaddr(const InetSkEntry *ie, bool dst, struct sockaddr_storage *ss)
{
	const ProtobufCBinaryData *a = dst ? &ie->dst_addr : &ie->src_addr;
	unsigned port = dst ? ie->dst_port : ie->src_port;
	memset(ss, 0, sizeof(*ss));
	if (ie->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (a->len == 4)
			memcpy(&s4->sin_addr, a->data, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons((uint16_t)port);
	if (a->len == 16)
		memcpy(&s6->sin6_addr, a->data, 16);
	if (!dst)
		s6->sin6_scope_id = ie->scope_id;
	return sizeof(*s6);
}

static bool established_tcp(const InetSkEntry *ie)
{
	return ie->protocol == IPPROTO_TCP && sk_tcp_repair_state(ie->state) && ie->tcp;
}

/* A TCP connection that ended (tcp_closed_restore). */
static bool closed_tcp(const InetSkEntry *ie)
{
	return ie->protocol == IPPROTO_TCP && ie->state == TCP_CLOSE && ie->has_dst_addr &&
	       ie->has_src_addr && !ie->tcp;
}

/* Its MD5 keys set once it is connected: its restore sends it a packet of the peer's (tcp-fin.c: a FIN, the
 * RST that ends it), which crshim does not sign (a socket with a key for the peer drops it). */
static bool md5_late(const InetSkEntry *ie)
{
	return (established_tcp(ie) && sk_tcp_fin_rcvd(ie->state)) || closed_tcp(ie);
}

/* bind; an address this host does not have (bound under IP_FREEBIND that was turned off afterwards) is bound
 * with the option on for the bind alone, as it was then; the option is back as the image had it. */
static int bind_any(int sk, const InetSkEntry *ie, const struct sockaddr *a, socklen_t alen)
{
	if (!bind(sk, a, alen))
		return 0;
	if (errno != EADDRNOTAVAIL)
		return -1;
	int lvl = a->sa_family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP;
	int name = a->sa_family == AF_INET6 ? IPV6_FREEBIND : IP_FREEBIND, on = 1, was = 0;
	socklen_t l = sizeof(was);
	if (getsockopt(sk, lvl, name, &was, &l) || was) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	if (setsockopt(sk, lvl, name, &on, sizeof(on)))
		return -1;
	int r = bind(sk, a, alen), err = errno;
	if (setsockopt(sk, lvl, name, &was, sizeof(was)))
		return -1;
	pr_info("port %u: bound to an address this host lacks, with IP_FREEBIND for the bind only\n",
		ie->src_port);
	errno = err;
	return r;
}

/* A TCP socket that was connecting (SYN_SENT, dumped with --tcp-established): connecting again, without
 * waiting (the task's connect, restarted, waits if it did; a SYN is sent again, as the socket would have). */
static int connect_again(int sk, const struct sockaddr *dst, socklen_t dlen, const InetSkEntry *ie, char *msg,
			 size_t len)
{
	int fl = fcntl(sk, F_GETFL);
	if (fl < 0 || fcntl(sk, F_SETFL, fl | O_NONBLOCK))
		return sk_errmsg(msg, len, "O_NONBLOCK");
	if (connect(sk, dst, dlen) && errno != EINPROGRESS)
		return sk_errmsg(msg, len, "connect to port %u again (state SYN_SENT)", ie->dst_port);
	if (fcntl(sk, F_SETFL, fl))
		return sk_errmsg(msg, len, "file status flags");
	return 0;
}

static int inet_setup(int sk, const InetSkEntry *ie, char *msg, size_t len)
{
	struct sockaddr_storage src, dst;
	socklen_t slen = mkaddr(ie, false, &src), dlen = mkaddr(ie, true, &dst);
	/* the saved options first: TCP_REPAIR makes the bind ignore the sockets on the port (a listener of
	 * the tree restored before this connection), which a saved SO_REUSEADDR set after it would undo */
	if (rst_sk_opts(sk, ie->opts, ie->n_opts, msg, len) ||
	    (!md5_late(ie) && tcp_md5_restore(sk, ie, msg, len)))
		return -1;
	if (established_tcp(ie)) {
		int on = 1;
		if (setsockopt(sk, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
			return sk_errmsg(msg, len, "TCP_REPAIR");
	}
	if (closed_tcp(ie))
		return tcp_closed_restore(sk, ie, (struct sockaddr *)&src, slen, (struct sockaddr *)&dst,
					  dlen, msg, len);
	if (established_tcp(ie))
		return tcp_repair_restore(sk, ie, (struct sockaddr *)&src, slen, (struct sockaddr *)&dst,
					  dlen, msg, len);
	sk_queue_filter(sk, ie);
	/* TCP sockets sharing a port with SO_REUSEPORT, one of which turned it off since it was bound (the
	 * kernel checks the flags of both at bind and listen): bound and listening with it on, then as saved
	 */
	int rp = 0, on = 1;
	socklen_t rl = sizeof(rp);
	bool rp_tmp = ie->port_shared && !getsockopt(sk, SOL_SOCKET, SO_REUSEPORT, &rp, &rl) && !rp &&
		      !setsockopt(sk, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on));
	if (ie->has_src_addr && bind_any(sk, ie, (struct sockaddr *)&src, slen))
		return sk_errmsg(msg, len, "bind to port %u", ie->src_port);
	if (sk_queue_restore(sk, ie, msg, len) || /* before connect: from any sender */
	    sk_mcast_restore(sk, ie, msg, len))
		return -1;
	if (ie->protocol == IPPROTO_TCP && ie->state == TCP_LISTEN && listen(sk, (int)ie->backlog))
		return sk_errmsg(msg, len, "listen");
	if (rp_tmp && setsockopt(sk, SOL_SOCKET, SO_REUSEPORT, &rp, sizeof(rp)))
		return sk_errmsg(msg, len, "SO_REUSEPORT");
	if (ie->protocol == IPPROTO_TCP && ie->state == TCP_SYN_SENT && ie->has_dst_addr)
		return connect_again(sk, (struct sockaddr *)&dst, dlen, ie, msg, len);
	if (ie->protocol != IPPROTO_TCP && ie->has_dst_addr && connect(sk, (struct sockaddr *)&dst, dlen))
		return sk_errmsg(msg, len, "connect to port %u", ie->dst_port);
	return 0;
}

/* RCV_SHUTDOWN 1, SEND_SHUTDOWN 2 as SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2; an unconnected socket gets the state
 * and ENOTCONN. */
static int rst_sk_shutdown(int sk, const InetSkEntry *ie, char *msg, size_t len)
{
	if (!ie->has_shutdown || !ie->shutdown || ie->shutdown > 3)
		return 0;
	if (shutdown(sk, (int)ie->shutdown - 1) && errno != ENOTCONN)
		return sk_errmsg(msg, len, "shutdown %u", ie->shutdown);
	return 0;
}

/* A ping socket (SOCK_DGRAM, ICMP) is allowed to a process whose gid is in the network namespace's
 * net.ipv4.ping_group_range: that of a tree in a user namespace of its own names the tree's gids, not
 * ours. Refused (EACCES), it is made with the range's first gid as our effective gid, for that call only. */
static int ping_socket(int family, int type, int proto)
{
	int sk = socket(family, type, proto);
	if (sk >= 0 || errno != EACCES || (type & 0xf) != SOCK_DGRAM)
		return sk;
	char range[64];
	unsigned lo = 0, hi = 0;
	bool got = !proc_read_value("/proc/sys/net/ipv4/ping_group_range", range, sizeof(range)) &&
		   sscanf(range, "%u %u", &lo, &hi) == 2 && lo <= hi;
	gid_t was = getegid();
	if (!got || lo == was || setresgid((gid_t)-1, (gid_t)lo, (gid_t)-1)) {
		errno = EACCES;
		return -1;
	}
	sk = socket(family, type, proto);
	int err = errno;
	if (setresgid((gid_t)-1, was, (gid_t)-1))
		_exit(1); /* cannot happen (we had it); never go on as another gid */
	errno = err;
	return sk;
}

int rst_sk_make(const FileEntry *f, char *msg, size_t len)
{
	if (f->kind != FILE_KIND__FILE_INETSK)
		return rst_sk_nlpkt_open(f, msg, len);
	const InetSkEntry *ie = f->inet_sk;
	int nb = (ie->flags & O_NONBLOCK) ? SOCK_NONBLOCK : 0;
	int sk = ie->protocol == IPPROTO_ICMP || ie->protocol == IPPROTO_ICMPV6
		     ? ping_socket((int)ie->family, (int)ie->type | nb, (int)ie->protocol)
		     : socket((int)ie->family, (int)ie->type | nb, (int)ie->protocol);
	if (sk < 0)
		return sk_errmsg(msg, len, "socket(%u, %u, %u)", ie->family, ie->type, ie->protocol);
	if (inet_setup(sk, ie, msg, len) || (md5_late(ie) && tcp_md5_restore(sk, ie, msg, len)) ||
	    rst_sk_shutdown(sk, ie, msg, len) || rst_sk_buf_lock(sk, ie->opts, ie->n_opts, msg, len)) {
		close(sk);
		return -1;
	}
	return sk;
}

int rst_sk_open(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len)
{
	return rst_fd_made_at(rst_sk_make(f, msg, len), fi->fd, "socket", msg, len);
}

void rst_sk_tcp_close(struct rst_task *t)
{
	for (size_t i = 0; i < t->nr_files; i++) {
		InetSkEntry *ie = t->files[i]->kind == FILE_KIND__FILE_INETSK ? t->files[i]->inet_sk : NULL;
		if (!ie || ie->protocol != IPPROTO_TCP ||
		    !(sk_tcp_repair_state(ie->state) || ie->state == TCP_SYN_SENT))
			continue;
		pr_info("task %d, file id %u: TCP connection in state %s restored closed (--tcp-close)\n",
			t->pid, t->files[i]->id, sk_tcp_state_name(ie->state));
		/* an unbound socket shut down both ways: reads give EOF, writes EPIPE; the stream (if the
		 * dump read one) stays for its network lock, removed as usual */
		ie->state = TCP_CLOSE;
		ie->has_src_addr = ie->has_dst_addr = 0;
		ie->shutdown = 3, ie->has_shutdown = 1;
	}
}

/* The inet socket of entry f, also once crshim made it for its holders (restore-fdshare.c) or --inherit-fd
 * gave it (FILE_INHERIT, its inet_sk kept); NULL: not one. */
static const InetSkEntry *inet_of(const FileEntry *f)
{
	return f->kind == FILE_KIND__FILE_INETSK || f->kind == FILE_KIND__FILE_INHERIT ? f->inet_sk : NULL;
}

/* The network namespace (of the dump) of inet socket f of task k: its own, else its holder's. */
static uint64_t sk_net(const struct rst_task *ts, size_t k, const FileEntry *f)
{
	uint64_t net = rst_sk_netns(f);
	return net ? net : ns_rst_task_net_ino(ts[0].ns, ts[k].pid);
}

/* Is entry i of task k the tree's first inet socket of network namespace net? */
static bool first_of_net(const struct rst_task *ts, size_t k, size_t i, uint64_t net)
{
	for (size_t a = 0; a <= k; a++)
		for (size_t b = 0; b < (a == k ? i : ts[a].nr_files); b++)
			if (inet_of(ts[a].files[b]) && sk_net(ts, a, ts[a].files[b]) == net)
				return false;
	return true;
}

/* Was network namespace net (of the dump) made new by this restore (no lock of the dump's there)? */
static bool net_new(const struct rst_task *ts, uint64_t net)
{
	return net == ns_rst_task_net_ino(ts[0].ns, ts[0].pid) ? ns_rst_new_net(ts[0].ns)
							       : ns_rst_net_fd(ts[0].ns, net) >= 0;
}

/* Run fn(ts, n, net) in each network namespace of the tree's inet sockets (all: only the new ones), crshim
 * back in the root's after each. */
static int each_net(const struct rst_task *ts, size_t n, bool all,
		    int (*fn)(const struct rst_task *, size_t, uint64_t, struct cr_err *), struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			uint64_t net = inet_of(f) ? sk_net(ts, k, f) : 0;
			if (!inet_of(f) || (!all && !net_new(ts, net)) || !first_of_net(ts, k, i, net))
				continue;
			if (ns_rst_net_enter(ts[0].ns, net, e))
				return -1;
			int r = fn(ts, n, net, e);
			if (ns_rst_net_enter(ts[0].ns, 0, e) || r)
				return -1;
		}
	return 0;
}

/* The lock of f's connection removed, unless it is the one removed last (last: its name). */
static void unlock_of(const FileEntry *f, char *last, size_t len)
{
	const char *l = f->inet_sk && f->inet_sk->tcp ? f->inet_sk->tcp->netlock : NULL;
	if (!l || !strcmp(last, l))
		return;
	struct cr_err e = {0};
	if (net_unlock(l, -1, &e))
		pr_warn("%s\n", e.msg);
	snprintf(last, len, "%s", l);
}

/* Does the restore of f send its socket a packet of the peer's (tcp-fin.c: a FIN, or the RST that ends it)?
 */
static bool peer_packet(const FileEntry *f)
{
	const InetSkEntry *ie = inet_of(f);
	return ie && ((established_tcp(ie) && sk_tcp_fin_rcvd(ie->state)) || closed_tcp(ie));
}

static bool net_has_peer_packet(const struct rst_task *ts, size_t n, uint64_t net)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++)
			if (peer_packet(ts[k].files[i]) && sk_net(ts, k, ts[k].files[i]) == net)
				return true;
	return false;
}

/* The locks of the connections of network namespace net removed (crshim in it), then their peers probed. */
static int unlock_net(const struct rst_task *ts, size_t n, uint64_t net, struct cr_err *e)
{
	char last[64] = "";
	(void)e;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++)
			if (inet_of(ts[k].files[i]) && sk_net(ts, k, ts[k].files[i]) == net)
				unlock_of(ts[k].files[i], last, sizeof(last));
	for (size_t k = 0; k < n; k++) /* what leaving repair mode sent, behind the lock (tcp_probe_peer) */
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const FileEntry *f = ts[k].files[i];
			const InetSkEntry *ie = inet_of(f);
			if (ie && established_tcp(ie) && sk_net(ts, k, f) == net && tcp_probe_peer(ie))
				pr_warn("task %d, file id %u: probe of the peer: %s\n", ts[k].pid, f->id,
					strerror(errno));
		}
	if (tcp_nft_path() && net_has_peer_packet(ts, n, net))
		tcp_fin_pass_close();
	return 0;
}

void rst_sk_unlock(struct rst_task *ts, size_t n)
{
	struct cr_err e = {0};
	if (each_net(ts, n, true, unlock_net, &e))
		pr_warn("network unlock: %s\n", e.msg);
}

/* The locks of the connections of network namespace net made again there (crshim in it). */
static int relock_net(const struct rst_task *ts, size_t n, uint64_t net, struct cr_err *e)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ts[k].nr_files; i++) {
			const InetSkEntry *ie = inet_of(ts[k].files[i]);
			if (ie && ie->tcp && sk_net(ts, k, ts[k].files[i]) == net && net_relock(ie, e))
				return cr_wrap(e, "task %d", ts[k].pid);
		}
	/* its restored rules must not drop the peers' packets we send (best effort: without nft it has no
	 * ruleset; a FIN still dropped fails that connection's restore) */
	struct cr_err e2 = {0};
	if (tcp_nft_path() && net_has_peer_packet(ts, n, net) && tcp_fin_pass_open(&e2))
		pr_warn("%s\n", e2.msg);
	return 0;
}

int rst_sk_relock(const struct rst_task *ts, size_t n, struct cr_err *e)
{
	return each_net(ts, n, false, relock_net, e);
}

/* The locks of the connections of one files image (what cannot be read is passed over). */
static void unlock_image(int dirfd, const char *fname, char *last, size_t len)
{
	struct img_reader *r;
	struct cr_err e = {0};
	ProtobufCMessage *m;
	if (img_open_name(dirfd, fname, &r, &e)) {
		pr_warn("network locks of %s: %s\n", fname, e.msg);
		return;
	}
	while (img_read(r, &m, &e) > 0) {
		unlock_of((const FileEntry *)m, last, len);
		protobuf_c_message_free_unpacked(m, NULL);
	}
	img_close(r);
}

/* inventory.img says a format newer than this crshim reads: the images (and their network lock) belong to a
 * newer crshim, which can still restore them; a refusal of them must not take their lock away. */
static bool newer_images(int dirfd)
{
	uint32_t hdr[2] = {0, 0}; /* struct img_hdr: magic, version */
	int fd = openat(dirfd, "inventory.img", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, hdr, sizeof(hdr), 0);
	close(fd);
	return n == (ssize_t)sizeof(hdr) && hdr[1] > CRSHIM_IMG_VERSION;
}

void rst_sk_unlock_dir(int dirfd)
{
	char last[64] = "";
	if (dirfd >= 0 && newer_images(dirfd)) {
		pr_info("images of a newer format: their network locks stay\n");
		return;
	}
	int fd = dirfd < 0 ? -1 : openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	__cleanup_closedir DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d))) {
		int id, k = img_kind_of(de->d_name, &id);
		if (k == IMG_FILES || k == IMG_FILES_TASK)
			unlock_image(dirfd, de->d_name, last, sizeof(last));
	}
}
