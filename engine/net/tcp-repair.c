/* Established TCP connections (see sk-inet.h): the network lock (an nftables table per dump that drops
 * the connection's packets both ways), the dump in repair mode (sequence numbers, queues, options, window,
 * timestamp) and the restore in repair mode. Restore-side functions run in the restore child and report
 * errors as text. */
#define LOG_PREFIX "tcp-repair: "
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/sockios.h>

#include "base/caps.h"
#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "net/sk-inet-queue.h"
#include "net/sk-inet.h"

extern char **environ;

/* ---------------------------------------------------------------- network lock (nftables) */

const char *tcp_nft_path(void)
{
	static const char *const p[] = {"/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft", "/usr/local/sbin/nft"};
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (!access(p[i], X_OK))
			return p[i];
	return NULL;
}

/* Into the network namespace of socket skfd (SIOCGSKNS), for this thread: *back is where we were (-1: we
 * stay, e.g. skfd -1 or a kernel without SIOCGSKNS). */
static int ns_fd_enter(int ns, int *back, struct cr_err *e);
static int sk_netns_enter(int skfd, int *back, struct cr_err *e)
{
	*back = -1;
	if (skfd < 0)
		return 0;
	__cleanup_close int ns = ioctl(skfd, SIOCGSKNS);
	if (ns < 0)
		return 0;
	return ns_fd_enter(ns, back, e);
}

/* Into network namespace ns (a file of it), for this thread: *back is where we were. */
static int ns_fd_enter(int ns, int *back, struct cr_err *e)
{
	*back = -1;
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return cr_fail_sys(e, "network lock: our network namespace");
	if (setns(ns, CLONE_NEWNET)) {
		close(self);
		return cr_fail_sys(e, "network lock: enter the connection's network namespace");
	}
	*back = self;
	return 0;
}

static void netns_leave(int back)
{
	if (back < 0)
		return;
	if (setns(back, CLONE_NEWNET))
		pr_warn("network lock: back to our network namespace: %s\n", strerror(errno));
	close(back);
}

static int run_nft_here(const char *script, struct cr_err *e);

/* The whole of memfd fd into *out (NUL-terminated, malloc'ed). */
static int read_all(int fd, char **out, struct cr_err *e)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *b = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!b)
		return cr_fail_sys(e, "network lock: nft output");
	ssize_t r = pread(fd, b, (size_t)n, 0);
	if (r != (ssize_t)n) {
		free(b);
		return cr_fail_sys(e, "network lock: read nft output");
	}
	b[n] = '\0';
	*out = b;
	return 0;
}

/* Run `nft -f -` with script on stdin in the network namespace of socket skfd (-1: ours), where the
 * connection's packets pass: a lock made in ours would not see a peer behind a veth. */
static int run_nft(const char *script, int skfd, struct cr_err *e)
{
	int back;
	if (sk_netns_enter(skfd, &back, e))
		return -1;
	int ret = run_nft_here(script, e);
	netns_leave(back);
	return ret;
}

static int run_nft_here(const char *script, struct cr_err *e)
{
	return tcp_nft_run(script, false, NULL, e);
}

/* Run `nft -f -` (with -a: handles) with script on stdin; its stderr (first line) goes into the error; out
 * (may be NULL) gets what it printed. */
static int run_tool(const char *tool, char *const argv[], const char *script, char **out, struct cr_err *e);

int tcp_nft_run(const char *script, bool handles, char **out, struct cr_err *e)
{
	const char *nft = tcp_nft_path();
	if (!nft)
		return cr_fail_errno(e, ENOENT,
				     "network lock: nft not found (install nftables, or dump with "
				     "--network-lock=skip)");
	char *argv[] = {(char *)nft, (char *)"-f", (char *)"/dev/stdin", NULL, NULL};
	if (handles)
		argv[1] = (char *)"-a", argv[2] = (char *)"-f", argv[3] = (char *)"/dev/stdin";
	return run_tool(nft, argv, script, out, e);
}

/* Run tool (argv) with script on stdin; its stderr (first line) goes into the error (e NULL: none logged,
 * -1); out (may be NULL) gets what it printed. */
static int run_tool(const char *tool, char *const argv[], const char *script, char **out, struct cr_err *e)
{
	const char *name = strrchr(tool, '/') ? strrchr(tool, '/') + 1 : tool;
	struct cr_err spare = {0};
	bool quiet = !e; /* NULL e: a tool's failure is an answer (no error logged) */
	if (quiet)
		e = &spare;
	if (!cr_has_cap(CAP_NET_ADMIN)) /* the tool runs with crshim's credentials */
		return cr_fail_errno(e, EPERM,
				     "network lock: %s needs CAP_NET_ADMIN, which crshim lacks (or dump with "
				     "--network-lock=skip)",
				     name);
	__cleanup_close int in = memfd_create("crshim-nft", MFD_CLOEXEC);
	__cleanup_close int err = memfd_create("crshim-nft-err", MFD_CLOEXEC);
	if (in < 0 || err < 0)
		return cr_fail_sys(e, "network lock: memfd");
	size_t len = strlen(script);
	if (write(in, script, len) != (ssize_t)len || lseek(in, 0, SEEK_SET))
		return cr_fail_sys(e, "network lock: script");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, err, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	pid_t pid;
	int rc = posix_spawn(&pid, tool, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return cr_fail_errno(e, rc, "network lock: run %s", tool);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return cr_fail_sys(e, "network lock: wait for %s", name);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return out ? read_all(err, out, e) : 0;
	if (quiet)
		return -1;
	char msg[256] = "";
	ssize_t n = pread(err, msg, sizeof(msg) - 1, 0);
	msg[n > 0 ? n : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	return cr_fail_errno(e, EIO, "network lock: %s failed: %s", name, msg[0] ? msg : "(no message)");
}

/* ---------------------------------------------------------------- network lock (iptables) */

const char *tcp_ipt_path(bool v6)
{
	static const char *const p4[] = {"/usr/sbin/iptables-restore", "/sbin/iptables-restore",
					 "/usr/bin/iptables-restore"};
	static const char *const p6[] = {"/usr/sbin/ip6tables-restore", "/sbin/ip6tables-restore",
					 "/usr/bin/ip6tables-restore"};
	for (size_t i = 0; i < sizeof(p4) / sizeof(p4[0]); i++)
		if (!access(v6 ? p6[i] : p4[i], X_OK))
			return v6 ? p6[i] : p4[i];
	return NULL;
}

/* `iptables-restore --noflush` (v6: ip6tables-) with script, in our network namespace. */
static int run_ipt(bool v6, const char *script, struct cr_err *e)
{
	const char *t = tcp_ipt_path(v6);
	if (!t)
		return cr_fail_errno(e, ENOENT,
				     "network lock: %s not found (install iptables, or dump with "
				     "--network-lock=skip)",
				     v6 ? "ip6tables-restore" : "iptables-restore");
	char *argv[] = {(char *)t, (char *)"-w", (char *)"--noflush", NULL};
	return run_tool(t, argv, script, NULL, e);
}

/* Does chain exist in the filter table (v6: of ip6tables)? `iptables -S CHAIN` fails on one it does not know
 * (iptables-restore --test does not, with iptables-nft). */
static bool ipt_chain_exists(bool v6, const char *chain)
{
	const char *r = tcp_ipt_path(v6);
	char t[64];
	if (!r || snprintf(t, sizeof(t), "%.*s", (int)(strlen(r) - strlen("-restore")), r) >= (int)sizeof(t))
		return false;
	char *argv[] = {t, (char *)"-w", (char *)"-S", (char *)chain, NULL};
	return cr_has_cap(CAP_NET_ADMIN) && run_tool(t, argv, "", NULL, NULL) == 0;
}

/* The chain made (empty but for accepting the marks), jumped to first from INPUT and OUTPUT; rules appended.
 */
static int ipt_lock(bool v6, const char *chain, const char *rules, struct cr_err *e)
{
	char script[1536];
	if (ipt_chain_exists(v6, chain))
		snprintf(script, sizeof(script), "*filter\n%sCOMMIT\n", rules);
	else
		snprintf(script, sizeof(script),
			 "*filter\n:%s - [0:0]\n-I INPUT 1 -j %s\n-I OUTPUT 1 -j %s\n"
			 /* the peer's FIN at restore (tcp-fin.c); CRIU's restore mark (its tools) */
			 "-A %s -m mark --mark %#x -j ACCEPT\n-A %s -m mark --mark %#x -j ACCEPT\n%sCOMMIT\n",
			 chain, chain, chain, chain, TCP_FIN_MARK, chain, NETNS_LOCK_PASS_MARK, rules);
	return run_ipt(v6, script, e);
}

/* The chain and its jumps removed (quiet if there is none). */
static int ipt_unlock(bool v6, const char *chain, struct cr_err *e)
{
	if (!tcp_ipt_path(v6) || !ipt_chain_exists(v6, chain))
		return 0;
	char script[256];
	snprintf(script, sizeof(script), "*filter\n-D INPUT -j %s\n-D OUTPUT -j %s\n-F %s\n-X %s\nCOMMIT\n",
		 chain, chain, chain, chain);
	return run_ipt(v6, script, e);
}

static const char *lock_method(const struct cr_opts *o)
{
	return o->network_lock ? o->network_lock : "nftables";
}

/* "a.b.c.d" / "ip6 addr" of an address from the image; a v4-mapped IPv6 address as IPv4. */
static const char *addr_str(const ProtobufCBinaryData *a, bool *v4, char *buf, size_t len)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (a->len == 4) {
		*v4 = true;
		return inet_ntop(AF_INET, a->data, buf, (socklen_t)len);
	}
	if (a->len == 16 && !memcmp(a->data, mapped, sizeof(mapped))) {
		*v4 = true;
		return inet_ntop(AF_INET, a->data + 12, buf, (socklen_t)len);
	}
	*v4 = false;
	return a->len == 16 ? inet_ntop(AF_INET6, a->data, buf, (socklen_t)len) : NULL;
}

/* The nft script of a lock named table that drops ie's packets both ways (0, or -1: bad address). */
static int lock_script(const char *table, const InetSkEntry *ie, char *script, size_t len, char *what,
		       size_t wlen)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	bool v4s, v4d;
	if (!addr_str(&ie->src_addr, &v4s, src, sizeof(src)) ||
	    !addr_str(&ie->dst_addr, &v4d, dst, sizeof(dst)))
		return -1;
	const char *ip = v4s ? "ip" : "ip6";
	snprintf(script, len,
		 "add table inet %s\n"
		 "add chain inet %s in { type filter hook input priority -300 ; }\n"
		 "add chain inet %s out { type filter hook output priority -300 ; }\n"
		 /* the peer's FIN at restore (tcp-fin.c), also out: a peer in the tree has a lock too */
		 "add rule inet %s in meta mark %#x accept\n"
		 "add rule inet %s out meta mark %#x accept\n"
		 "add rule inet %s in %s saddr %s %s daddr %s tcp sport %u tcp dport %u drop\n"
		 "add rule inet %s out %s saddr %s %s daddr %s tcp sport %u tcp dport %u drop\n",
		 table, table, table, table, TCP_FIN_MARK, table, TCP_FIN_MARK, table, ip, dst, ip, src,
		 ie->dst_port, ie->src_port, table, ip, src, ip, dst, ie->src_port, ie->dst_port);
	snprintf(what, wlen, "%s %s:%u <-> %s:%u", ip, src, ie->src_port, dst, ie->dst_port);
	return 0;
}

/* The iptables rules (for iptables-restore, in chain) that drop ie's packets both ways; *v6: ip6tables. */
static int ipt_rules(const char *chain, const InetSkEntry *ie, char *rules, size_t len, bool *v6)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	bool v4s, v4d;
	if (!addr_str(&ie->src_addr, &v4s, src, sizeof(src)) ||
	    !addr_str(&ie->dst_addr, &v4d, dst, sizeof(dst)))
		return -1;
	*v6 = !v4s;
	snprintf(rules, len,
		 "-A %s -p tcp -s %s -d %s --sport %u --dport %u -j DROP\n"
		 "-A %s -p tcp -s %s -d %s --sport %u --dport %u -j DROP\n",
		 chain, dst, src, ie->dst_port, ie->src_port, chain, src, dst, ie->src_port, ie->dst_port);
	return 0;
}

/* The lock of ie's connection by iptables in our network namespace (chain: its name). */
static int ipt_lock_conn(const char *chain, const InetSkEntry *ie, struct cr_err *e)
{
	char rules[512];
	bool v6;
	if (ipt_rules(chain, ie, rules, sizeof(rules), &v6))
		return cr_fail_errno(e, EINVAL, "network lock: bad connection address");
	if (ipt_lock(v6, chain, rules, e))
		return -1;
	pr_info("network lock: %s:%u <-> :%u dropped (%s chain %s)\n", v6 ? "ip6" : "ip", ie->src_port,
		ie->dst_port, v6 ? "ip6tables" : "iptables", chain);
	return 0;
}

static int net_lock(const struct cr_opts *o, int cfd, const InetSkEntry *ie, char **lock, struct cr_err *e)
{
	const char *m = lock_method(o);
	if (!strcmp(m, "skip")) {
		*lock = strdup("skip");
		return *lock ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
	}
	if (!strcmp(m, "iptables")) {
		char chain[32];
		snprintf(chain, sizeof(chain), "CRSHIM_%d", o->pid);
		int back;
		if (sk_netns_enter(cfd, &back, e))
			return -1;
		int r = ipt_lock_conn(chain, ie, e);
		netns_leave(back);
		if (r)
			return -1;
		if (asprintf(lock, "ipt:%s", chain) < 0)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		return 0;
	}
	if (strcmp(m, "nftables"))
		return cr_fail_errno(e, ENOTSUP,
				     "network lock method %s is not supported (nftables, iptables, skip)", m);
	char table[32], script[1024], what[128];
	snprintf(table, sizeof(table), "crshim_%d", o->pid);
	if (lock_script(table, ie, script, sizeof(script), what, sizeof(what)))
		return cr_fail_errno(e, EINVAL, "network lock: bad connection address");
	if (run_nft(script, cfd, e))
		return -1;
	pr_info("network lock: %s dropped (nft table inet %s)\n", what, table);
	if (asprintf(lock, "nft:%s", table) < 0)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	return 0;
}

/* A lock's table or chain name from the image's netlock ("nft:NAME", "ipt:NAME"; NULL: none, or not one
 * nft or iptables can take); *ipt: an iptables chain. */
static const char *lock_name(const char *netlock, bool *ipt)
{
	*ipt = netlock && !strncmp(netlock, "ipt:", 4);
	if (!netlock || (strncmp(netlock, "nft:", 4) && !*ipt))
		return NULL;
	for (const char *p = netlock + 4; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return NULL;
	return netlock[4] && strlen(netlock + 4) < 29 ? netlock + 4 : NULL;
}

int net_relock(const InetSkEntry *ie, struct cr_err *e)
{
	bool ipt;
	const char *table = lock_name(ie->tcp ? ie->tcp->netlock : NULL, &ipt);
	char script[1024], what[128];
	if (!table)
		return 0;
	if (ipt)
		return ipt_lock_conn(table, ie, e);
	if (lock_script(table, ie, script, sizeof(script), what, sizeof(what)))
		return cr_fail_errno(e, EINVAL, "network lock: bad connection address");
	if (run_nft_here(script, e))
		return -1;
	pr_info("network lock again, in the new network namespace: %s dropped (nft table inet %s)\n", what,
		table);
	return 0;
}

/* Remove lock netlock ("nft:TABLE", "ipt:CHAIN": of iptables and ip6tables) in our network namespace. */
static int unlock_here(const char *netlock, struct cr_err *e)
{
	bool ipt;
	const char *name = lock_name(netlock, &ipt);
	if (!name)
		return cr_fail_errno(e, EINVAL, "bad network lock name %s", netlock);
	if (ipt) {
		int r4 = ipt_unlock(false, name, e);
		if (ipt_unlock(true, name, e) || r4)
			return -1;
		pr_info("network unlock: iptables chain %s removed\n", name);
		return 0;
	}
	char script[256];
	/* add first: removing a table that is gone already is no error */
	snprintf(script, sizeof(script), "add table inet %s\ndelete table inet %s\n", name, name);
	if (run_nft_here(script, e))
		return -1;
	pr_info("network unlock: nft table inet %s removed\n", name);
	return 0;
}

int net_unlock(const char *netlock, int skfd, struct cr_err *e)
{
	if (!netlock || (strncmp(netlock, "nft:", 4) && strncmp(netlock, "ipt:", 4)))
		return 0;
	int back;
	if (sk_netns_enter(skfd, &back, e))
		return -1;
	int ret = unlock_here(netlock, e);
	netns_leave(back);
	return ret;
}

/* ---------------------------------------------------------------- network namespace lock */

int netns_lock(const struct cr_opts *o, pid_t pid, char **lock, struct cr_err *e)
{
	const char *m = lock_method(o);
	*lock = NULL;
	if (!strcmp(m, "skip"))
		return 0;
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)pid);
	__cleanup_close int ns = open(p, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return cr_fail_sys(e, "network lock: %s", p);
	int back;
	if (ns_fd_enter(ns, &back, e))
		return -1;
	int ret;
	const char *name = NETNS_LOCK_NAME;
	if (!strcmp(m, "iptables")) {
		const char *drop = "-A " NETNS_LOCK_NAME " -j DROP\n";
		ret = ipt_lock(false, name, drop, e);
		if (!ret && ipt_lock(true, name, drop, e)) {
			struct cr_err e2 = {0};
			ipt_unlock(false, name, &e2);
			ret = -1;
		}
		if (!ret && asprintf(lock, "ipt:%s", name) < 0)
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
	} else {
		char script[512];
		snprintf(script, sizeof(script),
			 "add table inet %s\n"
			 "add chain inet %s in { type filter hook input priority -300 ; policy drop ; }\n"
			 "add chain inet %s out { type filter hook output priority -300 ; policy drop ; }\n"
			 "add rule inet %s in meta mark { %#x, %#x } accept\n"
			 "add rule inet %s out meta mark { %#x, %#x } accept\n",
			 NETNS_LOCK_NAME_NFT, NETNS_LOCK_NAME_NFT, NETNS_LOCK_NAME_NFT, NETNS_LOCK_NAME_NFT,
			 TCP_FIN_MARK, NETNS_LOCK_PASS_MARK, NETNS_LOCK_NAME_NFT, TCP_FIN_MARK,
			 NETNS_LOCK_PASS_MARK);
		ret = run_nft_here(script, e);
		if (!ret && asprintf(lock, "nft:%s", NETNS_LOCK_NAME_NFT) < 0)
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
	}
	netns_leave(back);
	if (!ret)
		pr_info("network lock: all traffic of the tree's network namespace dropped (%s)\n", *lock);
	return ret;
}

int netns_unlock(const char *lock, int nsfd, struct cr_err *e)
{
	if (!lock)
		return 0;
	int back = -1;
	if (nsfd >= 0 && ns_fd_enter(nsfd, &back, e))
		return -1;
	int ret = unlock_here(lock, e);
	netns_leave(back);
	return ret;
}

int netns_unlock_pid(const char *lock, pid_t pid, struct cr_err *e)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)pid);
	__cleanup_close int ns = lock ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	if (lock && ns < 0)
		return cr_fail_sys(e, "network unlock: %s", p);
	return netns_unlock(lock, ns, e);
}

/* ---------------------------------------------------------------- dump */

void tcp_stream_free(TcpStreamEntry *t)
{
	if (!t)
		return;
	free(t->inq_data.data);
	free(t->outq_data.data);
	free(t->netlock);
	free(t);
}

void tcp_repair_off(int cfd)
{
	int off = TCP_REPAIR_OFF_NO_WP;
	if (setsockopt(cfd, IPPROTO_TCP, TCP_REPAIR, &off, sizeof(off)))
		pr_warn("leave TCP repair mode: %s\n", strerror(errno));
}

/* The current queue's sequence number and length (SIOCINQ, SIOCOUTQ). */
static int queue_now(int cfd, int q, uint32_t *seq, int *len)
{
	socklen_t l = sizeof(*seq);
	if (getsockopt(cfd, IPPROTO_TCP, TCP_QUEUE_SEQ, seq, &l))
		return -1;
	return ioctl(cfd, q == TCP_RECV_QUEUE ? SIOCINQ : SIOCOUTQ, len) || *len < 0 ? -1 : 0;
}

/* One queue: its sequence number and contents (peeked in repair mode); 1: it changed while it was read
 * (try again). Repair mode does not stop the kernel: a segment the network lock did not stop (past its hook
 * already) may still come in, an ack may still take data off the send queue. So the sequence number and
 * length are read again after the peek: the same, the data is what ends at that sequence number. */
static int dump_queue(int cfd, int q, uint32_t *seq, ProtobufCBinaryData *data, uint32_t *unsent, bool fin,
		      bool fake_change, struct cr_err *e)
{
	int len = 0, len2 = 0;
	uint32_t seq2;
	const char *name = q == TCP_RECV_QUEUE ? "receive" : "send";
	if (setsockopt(cfd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) || queue_now(cfd, q, seq, &len))
		return cr_fail_sys(e, "%s queue sequence and length", name);
	int all = len;
	if (fin && len > 0)
		len--; /* the FIN not yet acked takes a sequence number, no byte */
	if (unsent) {
		int u = 0;
		if (ioctl(cfd, SIOCOUTQNSD, &u) || u < 0 || (!fin && u > len))
			return cr_fail_sys(e, "unsent length");
		*unsent = (uint32_t)u;
	}
	uint8_t *buf = len ? malloc((size_t)len + 1) : NULL;
	if (len && !buf)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ssize_t n = len ? recv(cfd, buf, (size_t)len + 1, MSG_PEEK | MSG_DONTWAIT) : 0;
	int err = n < 0 ? errno : 0;
	if (queue_now(cfd, q, &seq2, &len2)) {
		free(buf);
		return cr_fail_sys(e, "%s queue sequence and length", name);
	}
	if (fake_change) /* fault point tcp-queue-changed */
		seq2++;
	if (seq2 != *seq || len2 != all) {
		free(buf);
		pr_info("the %s queue changed while it was read (seq %u, %d bytes; then %u, %d): again\n",
			name, *seq, all, seq2, len2);
		return 1;
	}
	if (n != len) {
		free(buf);
		return cr_fail_errno(e, err ? err : EIO, "peek the %s queue (%zd of %d bytes)", name, n, len);
	}
	if (len)
		data->data = buf, data->len = (size_t)len;
	return 0;
}

static int dump_conn(int cfd, unsigned state, TcpStreamEntry *t, bool fake_change, struct cr_err *e)
{
	struct tcp_info ti;
	struct tcp_repair_window w;
	socklen_t l = sizeof(ti);
	int mss = 0;
	uint32_t ts = 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(cfd, IPPROTO_TCP, TCP_INFO, &ti, &l))
		return cr_fail_sys(e, "TCP_INFO");
	if (ti.tcpi_state != state)
		return cr_fail_errno(e, EAGAIN, "the connection left state %u during the dump (now %u)",
				     state, ti.tcpi_state);
	t->fin_sent = sk_tcp_fin_sent(state), t->has_fin_sent = t->fin_sent;
	t->fin_rcvd = sk_tcp_fin_rcvd(state), t->has_fin_rcvd = t->fin_rcvd;
	/* SIOCINQ counts no FIN; SIOCOUTQ counts ours until it is acked (all but FIN_WAIT2) */
	bool fin_unacked = t->fin_sent && state != TCP_FIN_WAIT2;
	for (int tries = 0;; tries++) {
		int r = dump_queue(cfd, TCP_RECV_QUEUE, &t->inq_seq, &t->inq_data, NULL, false,
				   fake_change && !tries, e);
		if (!r)
			r = dump_queue(cfd, TCP_SEND_QUEUE, &t->outq_seq, &t->outq_data, &t->unsq_len,
				       fin_unacked, false, e);
		if (r < 0)
			return -1;
		if (!r)
			break;
		free(t->inq_data.data), free(t->outq_data.data);
		t->inq_data = t->outq_data = (ProtobufCBinaryData){0, NULL};
		if (tries == 9)
			return cr_fail_errno(e, EAGAIN,
					     "the connection's queues kept changing while they were read");
		usleep(10000);
	}
	if (t->fin_sent)
		t->unsq_len = 0; /* all restored as sent, then the FIN */
	t->has_inq_seq = t->has_outq_seq = t->has_unsq_len = 1;
	t->has_inq_data = t->inq_data.len > 0;
	t->has_outq_data = t->outq_data.len > 0;
	l = sizeof(mss);
	if (getsockopt(cfd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l))
		return cr_fail_sys(e, "TCP_MAXSEG");
	l = sizeof(ts);
	if (getsockopt(cfd, IPPROTO_TCP, TCP_TIMESTAMP, &ts, &l))
		return cr_fail_sys(e, "TCP_TIMESTAMP");
	l = sizeof(w);
	if (getsockopt(cfd, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, &l))
		return cr_fail_sys(e, "TCP_REPAIR_WINDOW");
	t->mss = (uint32_t)mss, t->has_mss = 1;
	t->opt_mask = ti.tcpi_options, t->has_opt_mask = 1;
	t->snd_wscale = ti.tcpi_snd_wscale, t->has_snd_wscale = 1;
	t->rcv_wscale = ti.tcpi_rcv_wscale, t->has_rcv_wscale = 1;
	t->timestamp = ts, t->has_timestamp = 1;
	t->snd_wl1 = w.snd_wl1, t->has_snd_wl1 = 1;
	t->snd_wnd = w.snd_wnd, t->has_snd_wnd = 1;
	t->max_window = w.max_window, t->has_max_window = 1;
	t->rcv_wnd = w.rcv_wnd, t->has_rcv_wnd = 1;
	t->rcv_wup = w.rcv_wup, t->has_rcv_wup = 1;
	int q = TCP_NO_QUEUE;
	setsockopt(cfd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q));
	pr_info("connection: in seq %u (%zu queued), out seq %u (%zu queued, %u unsent), mss %d, "
		"options %#x\n",
		t->inq_seq, t->inq_data.len, t->outq_seq, t->outq_data.len, t->unsq_len, mss,
		ti.tcpi_options);
	return 0;
}

int tcp_repair_dump(const struct cr_opts *o, int cfd, const InetSkEntry *ie, TcpStreamEntry **out,
		    struct cr_err *e)
{
	if (!ie->has_src_addr || !ie->has_dst_addr)
		return cr_fail(e, "established TCP connection without both addresses");
	TcpStreamEntry *t = calloc(1, sizeof(*t));
	if (!t)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	tcp_stream_entry__init(t);
	*out = t;
	if (net_lock(o, cfd, ie, &t->netlock, e))
		return -1;
	int on = 1;
	if (setsockopt(cfd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)))
		return cr_fail_sys(e, "TCP_REPAIR (needs CAP_NET_ADMIN)");
	if (dump_conn(cfd, ie->state, t, fault_injected(o, FI_TCP_QUEUE_CHANGED), e)) {
		tcp_repair_off(cfd);
		return -1;
	}
	return 0;
}

int tcp_lock_only(const struct cr_opts *o, int cfd, const InetSkEntry *ie, TcpStreamEntry **out,
		  struct cr_err *e)
{
	TcpStreamEntry *t = calloc(1, sizeof(*t));
	if (!t)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	tcp_stream_entry__init(t);
	*out = t;
	return net_lock(o, cfd, ie, &t->netlock, e);
}

/* ---------------------------------------------------------------- restore (child) */

static int set_int(int sk, int name, int v)
{
	return setsockopt(sk, IPPROTO_TCP, name, &v, sizeof(v));
}

/* Write data into the current repair queue (or, with repair off, send it). */
static int put_queue(int sk, const ProtobufCBinaryData *d, size_t off, size_t end, const char *what,
		     char *msg, size_t len)
{
	while (off < end) {
		size_t chunk = end - off > 65536 ? 65536 : end - off;
		ssize_t n = send(sk, d->data + off, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sk_errmsg(msg, len, "restore the %s (%zu of %zu bytes)", what, off, end);
		off += (size_t)n;
	}
	return 0;
}

static int set_seqs(int sk, const TcpStreamEntry *t, char *msg, size_t len)
{
	uint32_t rfin = t->fin_rcvd ? 1 : 0; /* the peer's FIN comes after the data (tcp-fin.c) */
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE) ||
	    set_int(sk, TCP_QUEUE_SEQ, (int)(t->inq_seq - rfin - (uint32_t)t->inq_data.len)))
		return sk_errmsg(msg, len, "receive queue sequence");
	uint32_t fin = t->fin_sent ? 1 : 0;
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE) ||
	    set_int(sk, TCP_QUEUE_SEQ, (int)(t->outq_seq - fin - (uint32_t)t->outq_data.len)))
		return sk_errmsg(msg, len, "send queue sequence");
	if (t->has_timestamp && set_int(sk, TCP_TIMESTAMP, (int)t->timestamp))
		return sk_errmsg(msg, len, "TCP_TIMESTAMP");
	return 0;
}

static int set_options(int sk, const TcpStreamEntry *t, char *msg, size_t len)
{
	struct tcp_repair_opt o[4];
	int n = 0;
	if (t->opt_mask & TCPI_OPT_SACK)
		o[n++] = (struct tcp_repair_opt){TCPOPT_SACK_PERMITTED, 0};
	if (t->opt_mask & TCPI_OPT_WSCALE)
		o[n++] = (struct tcp_repair_opt){TCPOPT_WINDOW, t->snd_wscale | (t->rcv_wscale << 16)};
	if (t->opt_mask & TCPI_OPT_TIMESTAMPS)
		o[n++] = (struct tcp_repair_opt){TCPOPT_TIMESTAMP, 0};
	if (t->mss)
		o[n++] = (struct tcp_repair_opt){TCPOPT_MAXSEG, t->mss};
	if (n && setsockopt(sk, IPPROTO_TCP, TCP_REPAIR_OPTIONS, o, (socklen_t)(n * sizeof(o[0]))))
		return sk_errmsg(msg, len, "TCP_REPAIR_OPTIONS");
	return 0;
}

static int put_queues(int sk, const TcpStreamEntry *t, char *msg, size_t len)
{
	size_t sent = t->outq_data.len - (t->unsq_len <= t->outq_data.len ? t->unsq_len : 0);
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE) ||
	    put_queue(sk, &t->inq_data, 0, t->inq_data.len, "receive queue", msg, len))
		return -1;
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE) ||
	    put_queue(sk, &t->outq_data, 0, sent, "send queue", msg, len))
		return -1;
	struct tcp_repair_window w = {t->snd_wl1, t->snd_wnd, t->max_window, t->rcv_wnd, t->rcv_wup};
	/* until the peer's FIN is in again, rcv_nxt is one before the saved one: rcv_wup may not be after it
	 */
	uint32_t rcv_nxt = t->inq_seq - (t->fin_rcvd ? 1 : 0);
	if (t->fin_rcvd && (int32_t)(w.rcv_wup - rcv_nxt) > 0)
		w.rcv_wup = rcv_nxt;
	if (t->has_snd_wnd && setsockopt(sk, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w)))
		return sk_errmsg(msg, len, "TCP_REPAIR_WINDOW");
	return 0;
}

/* Our FIN, queued on the send queue in repair mode as sent (not transmitted). */
static int our_fin(int sk, char *msg, size_t len)
{
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE) || shutdown(sk, SHUT_WR))
		return sk_errmsg(msg, len, "shut down writing in repair mode (the FIN)");
	return 0;
}

/* The FINs in the order the states took them: FIN_WAIT1/2 ours; CLOSE_WAIT the peer's; LAST_ACK the peer's,
 * then ours; CLOSING ours, then the peer's. */
static int half_close(int sk, const InetSkEntry *ie, char *msg, size_t len)
{
	const TcpStreamEntry *t = ie->tcp;
	if (!t->fin_rcvd)
		return t->fin_sent ? our_fin(sk, msg, len) : 0;
	bool ours_first = t->fin_sent && ie->state != TCP_LAST_ACK;
	if (ours_first && our_fin(sk, msg, len))
		return -1;
	uint32_t wnd = t->snd_wnd >> (t->snd_wscale < 15 ? t->snd_wscale : 14);
	struct tcp_fin f = {
	    .seq = t->inq_seq - 1,
	    .ack = t->outq_seq - (t->fin_sent ? 1 : 0) - (uint32_t)t->outq_data.len, /* snd_una */
	    .win = (uint16_t)(wnd > 65535 ? 65535 : wnd),
	    .want_state = ours_first ? TCP_CLOSING : TCP_CLOSE_WAIT,
	};
	if (tcp_fin_inject(sk, ie, &f, msg, len))
		return -1;
	return t->fin_sent && !ours_first ? our_fin(sk, msg, len) : 0;
}

/* Room for the queues while they are written (the kernel counts more than the bytes): the saved buffer
 * sizes are set again once they are in. */
static int grow_buf(int sk, int name, int force, size_t bytes, int *was)
{
	int cur = 0;
	socklen_t l = sizeof(cur);
	size_t want = bytes * 2 + 65536;
	if (!bytes || getsockopt(sk, SOL_SOCKET, name, &cur, &l) || (size_t)cur >= want || want > 1u << 30)
		return 0;
	*was = cur;
	int v = (int)want;
	if (!sk_priv_setsockopt(sk, SOL_SOCKET, force, &v, sizeof(v)))
		return 0;
	/* a crshim without CAP_NET_ADMIN over the host (a tree born in its user namespace has crshim's server
	 * of the option, sk-priv.c): up to the host's net.core.[rw]mem_max; a dump by such a crshim refused
	 * queues that need more (sk_priv_dump_check) */
	return errno == EPERM ? setsockopt(sk, SOL_SOCKET, name, &v, sizeof(v)) : -1;
}

/* The program set the receive buffer's size (SOCK_RCVBUF_LOCK in SO_BUF_LOCK, which the dump saves wherever
 * the kernel has it, Linux 5.14 on): the kernel does not grow it. Not saved: taken as locked (the room). */
static bool rcvbuf_locked(const InetSkEntry *ie)
{
	for (size_t i = 0; i < ie->n_opts; i++) {
		const SkOptEntry *o = ie->opts[i];
		int v;
		if (o->level == SOL_SOCKET && o->name == SO_BUF_LOCK && o->val.len == sizeof(v)) {
			memcpy(&v, o->val.data, sizeof(v));
			return v & 2; /* SOCK_RCVBUF_LOCK */
		}
	}
	return true;
}

/* The saved SO_SNDBUF and SO_RCVBUF (set with the FORCE options), the receive buffer grown by room bytes:
 * the memory the receive queue put back takes. That queue is packed tighter than the kernel had it (64 KiB
 * pieces against the segments it came in), so the saved size would leave more free space than the original
 * had, which the kernel offers the peer as window; and segments the network lock dropped at dump come again
 * after the ones sent behind them, which wait out of order meanwhile. A receive buffer full of such a queue
 * ran out of memory for data inside the window it had offered (CRIU's zdtm socket-tcpbuf: 3 runs in 7),
 * shrank its window to nothing, then dropped the peer's segments as out of window, acks and window updates
 * with them, and both ends waited for each other for good. With the queue's memory on top of the saved size
 * the socket holds its queue plus as much new data as the original had room for, whatever the packing: once
 * data was queued at dump, getsockopt(SO_RCVBUF) reads larger than saved by that memory (a program that set
 * it sees more than it asked for), the saved value when none was (and larger again at each dump and restore
 * while the data stays unread: the dump cannot tell the room from what the program set). Only a buffer the
 * program locked (SO_RCVBUF set: SOCK_RCVBUF_LOCK) gets that room: the kernel grows one it was left (not
 * locked) to what its queue takes when a segment finds it full (tcp_clamp_window), so that one comes back
 * with the size it had, or the default one when its size was not saved (the raise grow_buf made for the
 * queue taken back: 131072 read 531072 after a queue of 100000 bytes before; the send buffer likewise). On
 * kernel 6.18 the exact size stalls: with it (the queue written with more room, then the saved size set)
 * socket-tcpbuf hung 2 runs of 3, with 128 KiB of room 3 of 4, with 2 MiB 0 of 3: a receive buffer out of
 * memory inside the window it offered closes it under the peer's segments (no collapsing frees much of a
 * queue this tight). Without CAP_NET_ADMIN over the host (SO_RCVBUFFORCE refused to crshim and its server: a
 * crshim in a user namespace; a tree born in its own has the server, sk-priv.c) the room only up to
 * net.core.rmem_max, the plain option's limit (the initial network namespace's, not one per namespace): a
 * saved size already at that limit gets none, and the stall can still come. was[0], was[1]: the send and
 * receive buffers' sizes before grow_buf raised them (0: not raised), set back when no size was saved (the
 * kernel's default: the original read that). */
static int saved_bufs(int sk, const InetSkEntry *ie, uint32_t room, const int was[2], char *msg, size_t len)
{
	bool saved_one[2] = {false, false};
	for (size_t i = 0; i < ie->n_opts; i++) {
		const SkOptEntry *o = ie->opts[i];
		if (o->level != SOL_SOCKET || (o->name != SO_SNDBUFFORCE && o->name != SO_RCVBUFFORCE))
			continue;
		int v, saved, got = 0;
		socklen_t gl = sizeof(got);
		saved_one[o->name == SO_RCVBUFFORCE] = true;
		if (o->name == SO_RCVBUFFORCE && room && o->val.len == sizeof(v)) {
			memcpy(&saved, o->val.data, sizeof(saved));
			int64_t want = (int64_t)saved + room / 2; /* the kernel doubles it */
			v = want > INT32_MAX / 2 ? INT32_MAX / 2 : (int)want;
			if (!sk_priv_setsockopt(sk, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
				continue;
			/* no CAP_NET_ADMIN over the host: the plain option, which the kernel caps at
			 * net.core.rmem_max, as much of the room as that leaves; a saved size above it:
			 * rst_sk_opts says so */
			if (errno == EPERM && !setsockopt(sk, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) &&
			    !getsockopt(sk, SOL_SOCKET, SO_RCVBUF, &got, &gl) && got / 2 >= saved)
				continue;
		}
		if (rst_sk_opts(sk, &ie->opts[i], 1, msg, len))
			return -1;
	}
	for (int k = 0; k < 2; k++) {
		int half = was[k] / 2, force = k ? SO_RCVBUFFORCE : SO_SNDBUFFORCE,
		    plain = k ? SO_RCVBUF : SO_SNDBUF;
		if (!saved_one[k] && was[k] > 0 &&
		    sk_priv_setsockopt(sk, SOL_SOCKET, force, &half, sizeof(half)) &&
		    (errno != EPERM || setsockopt(sk, SOL_SOCKET, plain, &half, sizeof(half))))
			return sk_errmsg(msg, len, "%s back to %d", k ? "SO_RCVBUF" : "SO_SNDBUF", was[k]);
	}
	return 0;
}

int tcp_repair_restore(int sk, const InetSkEntry *ie, const struct sockaddr *src, unsigned slen,
		       const struct sockaddr *dst, unsigned dlen, char *msg, size_t len)
{
	const TcpStreamEntry *t = ie->tcp;
	if (set_seqs(sk, t, msg, len))
		return -1;
	if (bind(sk, src, slen))
		return sk_errmsg(msg, len, "bind to the connection's local address");
	/* the connect in repair mode sizes the segments (mss_cache) by the MSS then known, the default 536
	 * but for a user's TCP_MAXSEG; TCP_REPAIR_OPTIONS sets the peer's MSS after it, which the size of the
	 * segments does not follow (524 with timestamps, until the peer offers a window larger than any
	 * before). So the saved MSS is the user's for the connect (at most 32767, the kernel's limit:
	 * loopback's 65483 is not reached), cleared after it: the original had none, or one the dump of an
	 * established socket does not save. */
	int user_mss = t->mss > 32767 ? 32767 : t->mss < 88 ? 0 : (int)t->mss; /* 88: TCP_MIN_MSS */
	if (user_mss && set_int(sk, TCP_MAXSEG, user_mss))
		return sk_errmsg(msg, len, "TCP_MAXSEG %d", user_mss);
	if (connect(sk, dst, dlen))
		return sk_errmsg(msg, len, "connect in repair mode");
	if (user_mss && set_int(sk, TCP_MAXSEG, 0))
		return sk_errmsg(msg, len, "TCP_MAXSEG back to none");
	int was[2] = {0, 0}; /* the send and receive buffers' sizes grow_buf raised */
	if (grow_buf(sk, SO_SNDBUF, SO_SNDBUFFORCE, t->outq_data.len, &was[0]) ||
	    grow_buf(sk, SO_RCVBUF, SO_RCVBUFFORCE, t->inq_data.len, &was[1]))
		return sk_errmsg(msg, len, "make room for the queues");
	if (set_options(sk, t, msg, len) || put_queues(sk, t, msg, len) || half_close(sk, ie, msg, len))
		return -1;
	/* an unlocked receive buffer needs no room: the kernel grows it to what its queue takes */
	uint32_t room = t->inq_data.len && rcvbuf_locked(ie) ? sk_rmem(sk) : 0;
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_NO_QUEUE) || set_int(sk, TCP_REPAIR, TCP_REPAIR_OFF))
		return sk_errmsg(msg, len, "leave repair mode");
	/* leaving repair mode clears SO_REUSEADDR: set it again */
	for (size_t i = 0; i < ie->n_opts; i++)
		if (ie->opts[i]->level == SOL_SOCKET && ie->opts[i]->name == SO_REUSEADDR &&
		    rst_sk_opts(sk, &ie->opts[i], 1, msg, len))
			return -1;
	size_t sent = t->outq_data.len - (t->unsq_len <= t->outq_data.len ? t->unsq_len : 0);
	if (put_queue(sk, &t->outq_data, sent, t->outq_data.len, "unsent data", msg, len))
		return -1;
	return saved_bufs(sk, ie, room, was, msg, len);
}

int tcp_closed_restore(int sk, const InetSkEntry *ie, const struct sockaddr *src, unsigned slen,
		       const struct sockaddr *dst, unsigned dlen, char *msg, size_t len)
{
	const uint32_t seq = 1; /* any: the connection is over, nothing sees its numbers */
	if (set_int(sk, TCP_REPAIR, TCP_REPAIR_ON))
		return sk_errmsg(msg, len, "TCP_REPAIR (a closed connection; needs CAP_NET_ADMIN)");
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE) || set_int(sk, TCP_QUEUE_SEQ, (int)seq) ||
	    set_int(sk, TCP_REPAIR_QUEUE, TCP_SEND_QUEUE) || set_int(sk, TCP_QUEUE_SEQ, (int)seq))
		return sk_errmsg(msg, len, "queue sequences");
	if (bind(sk, src, slen))
		return sk_errmsg(msg, len, "bind to the connection's local address");
	if (connect(sk, dst, dlen))
		return sk_errmsg(msg, len, "connect in repair mode");
	size_t n = ie->has_closed_rcv ? ie->closed_rcv.len : 0;
	int was[2] = {0, 0};
	if (grow_buf(sk, SO_RCVBUF, SO_RCVBUFFORCE, n, &was[1]) ||
	    set_int(sk, TCP_REPAIR_QUEUE, TCP_RECV_QUEUE))
		return sk_errmsg(msg, len, "receive queue");
	if (put_queue(sk, &ie->closed_rcv, 0, n, "data not read", msg, len))
		return -1;
	if (set_int(sk, TCP_REPAIR_QUEUE, TCP_NO_QUEUE))
		return sk_errmsg(msg, len, "receive queue");
	struct tcp_fin f = {.seq = seq + (uint32_t)n, .ack = seq, .want_state = TCP_CLOSE, .rst = true};
	if (tcp_fin_inject(sk, ie, &f, msg, len))
		return -1;
	if (set_int(sk, TCP_REPAIR, TCP_REPAIR_OFF))
		return sk_errmsg(msg, len, "leave repair mode");
	for (size_t i = 0; i < ie->n_opts; i++) /* leaving repair mode clears SO_REUSEADDR */
		if (ie->opts[i]->level == SOL_SOCKET && ie->opts[i]->name == SO_REUSEADDR &&
		    rst_sk_opts(sk, &ie->opts[i], 1, msg, len))
			return -1;
	int err = 0;
	socklen_t el = sizeof(err);
	if (!ie->closed_err && getsockopt(sk, SOL_SOCKET, SO_ERROR, &err, &el))
		return sk_errmsg(msg, len, "clear the pending error");
	return saved_bufs(sk, ie, 0, was, msg, len); /* closed: no new data to hold */
}
