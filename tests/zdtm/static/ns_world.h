/* Helpers of the namespace tests (netns_*, uts_*, timens_*, ipc_*, cgroup_*): the state is built with the
 * system's own tools (ip, nft), run by the test inside its namespaces, and compared as text before and after.
 */
#ifndef NS_WORLD_H
#define NS_WORLD_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/sockios.h>
#include "zdtmtst.h"

/* Run a shell command (stdout and stderr to /dev/null); its exit status. */
static inline int __attribute__((format(printf, 1, 2))) nsw_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	int st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* The output of a shell command (malloc'd, "" on failure), with lines matching drop (an ERE, or NULL)
 * removed. */
static inline char *nsw_out(const char *cmd, const char *drop)
{
	char full[1200];
	if (drop)
		snprintf(full, sizeof(full), "(%s) 2>&1 | grep -Ev '%s'", cmd, drop);
	else
		snprintf(full, sizeof(full), "(%s) 2>&1", cmd);
	fflush(NULL);
	FILE *f = popen(full, "r");
	size_t cap = 4096, n = 0;
	char *buf = calloc(1, cap);
	if (!f || !buf)
		return buf ? buf : strdup("");
	size_t r;
	while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb, cap *= 2;
		}
	}
	buf[n] = '\0';
	pclose(f);
	return buf;
}

/* The abstract unix address "@name" into a; its length. */
static inline socklen_t nsw_abstract(const char *name, struct sockaddr_un *a)
{
	size_t n = strlen(name);
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* A datagram socket of our network namespace connects to "@name". */
static inline int nsw_reach_abstract(const char *name)
{
	struct sockaddr_un a;
	socklen_t l = nsw_abstract(name, &a);
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	int r = s >= 0 && !connect(s, (struct sockaddr *)&a, l);
	if (s >= 0)
		close(s);
	return r;
}

/* Must hold: a failed setup step ends the test. */
#define nsw_must(...)                                                                                        \
	do {                                                                                                 \
		if (nsw_sh(__VA_ARGS__))                                                                     \
			fail("setup: %s", #__VA_ARGS__);                                                     \
	} while (0)

/* Compare what cmd prints now with before (a snapshot taken at setup). */
static inline void nsw_same(const char *what, const char *before, const char *cmd, const char *drop)
{
	char *after = nsw_out(cmd, drop);
	if (strcmp(before, after))
		fail("%s changed:\n--- before\n%s--- after\n%s", what, before, after);
	free(after);
}

/* The inode of the network namespace of socket fd (SIOCGSKNS; 0: none); with enter, this thread goes there
 * too. */
static inline unsigned long nsw_sk_ns(int fd, int enter)
{
	struct stat st;
	int ns = ioctl(fd, SIOCGSKNS);
	unsigned long ino = ns < 0 || fstat(ns, &st) ? 0 : (unsigned long)st.st_ino;
	if (ino && enter && setns(ns, CLONE_NEWNET))
		ino = 0;
	if (ns >= 0)
		close(ns);
	return ino;
}

/* The whole main of a test whose child does the work: child(ready) sets up, child_ready(ready), waits for
 * SIGTERM and checks, its exit code 0 or what why explains (child_exit_ok). */
static inline int nsw_child_main(int argc, char **argv, int (*child)(int *ready), const char *why)
{
	int p[2];
	test_init(argc, argv);
	if (pipe(p))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0)
		_exit(child(p));
	if (child_started(p))
		fail("child not ready");
	test_daemon();
	test_waitsig();
	kill(ch, SIGTERM);
	child_exit_ok(ch, why);
	return test_pass();
}

static inline unsigned long nsw_ino(const char *kind)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/self/ns/%s", kind);
	return stat(p, &st) ? 0 : (unsigned long)st.st_ino;
}

/* Run a bash command in the host's namespaces, in every mode (modes ns and uns too, where the test has no
 * path to them): the runner's host agent (.desc host-agent: yes) runs it in the runner's namespaces, cwd the
 * test's dir. Its exit status (-1: no agent, or no answer); its output (stdout and stderr, malloc'd) in *out
 * when out is not NULL. */
static inline int __attribute__((format(printf, 2, 3))) nsw_hsh(char **out, const char *fmt, ...)
{
	const char *dir = getenv("ZDTM_HOSTAGENT");
	char cmd[1024], p[4096], q[4096], *rc = NULL;
	va_list ap;
	if (out)
		*out = strdup("");
	if (!dir) {
		fail("no host agent (.desc host-agent: yes)");
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), "%s/host.req.new", dir);
	snprintf(q, sizeof(q), "%s/host.req", dir);
	FILE *f = fopen(p, "w");
	if (!f || fprintf(f, "%s\n", cmd) < 0 || fclose(f) || rename(p, q)) {
		fail("host agent: write %s", q);
		return -1;
	}
	snprintf(p, sizeof(p), "%s/host.rc", dir);
	for (int i = 0; i < 6000 && read_file(p, &rc) < 0; i++) /* 120 s: a loaded machine */
		usleep(20000);
	if (!rc) {
		fail("host agent: no answer to: %s", cmd);
		return -1;
	}
	int st = atoi(rc);
	free(rc);
	unlink(p);
	snprintf(p, sizeof(p), "%s/host.out", dir);
	if (out) {
		free(*out);
		if (read_file(p, out) < 0)
			*out = strdup("");
	}
	unlink(p);
	return st;
}

/* For a host command (nsw_hsh): a shell expression that gives a process of our network namespace, found by
 * its inode (the host moves a device into it with "ip link set DEV netns %s"). Each /proc/PID is looked at
 * on its own: lsns, which reads them all, fails now and then when a process goes away meanwhile (seen:
 * an empty expansion). A static buffer. */
static inline const char *nsw_netns_pid(void)
{
	static char buf[200];
	snprintf(buf, sizeof(buf),
		 "$(for p in /proc/[0-9]*; do [ \"$(stat -Lc %%i $p/ns/net 2>/dev/null)\" = %lu ] && "
		 "{ echo ${p#/proc/}; break; }; done)",
		 nsw_ino("net"));
	return buf;
}

/* A number of `ip -o link show DEV` that sed expression x picks (0: none); the ifindex of DEV's other end in
 * another namespace (a veth's), of DEV. */
static inline unsigned nsw_link_num(const char *dev, const char *x)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "ip -o link show %s | sed -n '%s'", dev, x);
	char *o = nsw_out(cmd, NULL);
	unsigned r = (unsigned)atoi(o);
	free(o);
	return r;
}
#define nsw_peer_of(dev) nsw_link_num(dev, "s/^[0-9]*: [^@]*@if\\([0-9]*\\):.*/\\1/p")
#define nsw_index_of(dev) nsw_link_num(dev, "s/^\\([0-9]*\\): .*/\\1/p")

/* The watcher of the lock of the network namespace the restore makes (lib/nftwatch.c lockwatch_run: a test
 * whose main runs it when given --lockwatch), started by the host agent in the host's namespaces from our
 * own binary (a process of our network namespace, found by its inode). nsw_lockwatch_result, after the
 * checkpoint: its verdict (malloc'd, "" for none; LOCKED, UNLOCKED, LATE, NOTSEEN), the watcher stopped. */
static inline void nsw_lockwatch_start(void)
{
	if (nsw_hsh(NULL,
		    "rm -f lockwatch.res; p=%s; [ -n \"$p\" ] || exit 1; "
		    "setsid /proc/$p/exe --lockwatch </dev/null >lockwatch.log 2>&1 &",
		    nsw_netns_pid()))
		fail("start the watcher");
}

static inline char *nsw_lockwatch_result(void)
{
	char *res = NULL;
	nsw_hsh(&res, "for i in $(seq 100); do [ -e lockwatch.res ] && break; sleep 0.05; done; "
		      "cat lockwatch.res 2>/dev/null; kill $(cat lockwatch.pid) 2>/dev/null; true");
	return res ? res : strdup("");
}

/* A host command (nsw_hsh) that must work: its failure fails the test. */
static inline void nsw_hmust(const char *cmd)
{
	char *o = NULL;
	if (nsw_hsh(&o, "%s", cmd))
		fail("host: %s: %s", cmd, o);
	free(o);
}

/* A datagram the host sends to ip (a UDP socket bound there inside, port chosen by the kernel) arrives. */
static inline void nsw_udp_from_host(const char *ip, const char *what)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	char cmd[128], buf[8];
	inet_pton(AF_INET, ip, &a.sin_addr);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &al)) {
		fail("bind %s", ip);
		return;
	}
	snprintf(cmd, sizeof(cmd), "echo nsw >/dev/udp/%s/%d", ip, ntohs(a.sin_port));
	nsw_hmust(cmd);
	struct pollfd pfd = {.fd = s, .events = POLLIN};
	if (poll(&pfd, 1, 10000) != 1 || recv(s, buf, sizeof(buf), MSG_DONTWAIT) != 4 ||
	    memcmp(buf, "nsw", 3))
		fail("the datagram from the host did not cross %s", what);
	close(s);
}

/* What cmd prints in the host's namespaces (nsw_hsh) does not hold needle: none of our state leaked there. */
static inline void nsw_host_lacks(const char *cmd, const char *needle)
{
	char *h = NULL;
	if (nsw_hsh(&h, "%s", cmd))
		fail("host: %s: %s", cmd, h);
	else if (strstr(h, needle))
		fail("the host has %s (%s):\n%s", needle, cmd, h);
	free(h);
}

/* After a restore: our namespace of this kind is still one of our own, not crshim's / the host's. */
static inline void nsw_own(const char *kind, unsigned long host)
{
	/* a host agent (in every mode): the host's is the agent's */
	if (getenv("ZDTM_HOSTAGENT")) {
		char *h = NULL;
		if (nsw_hsh(&h, "stat -Lc %%i /proc/self/ns/%s", kind))
			fail("host agent: the inode of its %s namespace: %s", kind, h);
		else if (strtoul(h, NULL, 10) == nsw_ino(kind))
			fail("%s namespace: the host's (inode %lu) after restore", kind, nsw_ino(kind));
		free(h);
		return;
	}
	/* modes ns and uns (we are PID 1 of a PID namespace, our parent outside it): the namespace we left
	 * had no other process, it is gone and its inode number free for the restore's new namespaces */
	if (!getppid())
		return;
	if (nsw_ino(kind) == host)
		fail("%s namespace: the host's (inode %lu) after restore", kind, host);
}

/* The namespace file of the host's namespace of this kind: our parent's now (the starter during setup, the
 * runner's reaper or crshim after a restore). A static buffer: call it again after a restore. */
static inline const char *nsw_host(const char *kind)
{
	static char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/%s", getppid(), kind);
	return p;
}

/* A namespace of its own of kind (unshare(flag); the test is skipped when refused); the inode of the host's
 * one, for nsw_own after the restore. */
static inline unsigned long nsw_new(int flag, const char *kind)
{
	unsigned long host = nsw_ino(kind);
	if (unshare(flag))
		test_skip("unshare of the %s namespace: %m", kind);
	return host;
}

/* test_init, then nsw_new. */
static inline unsigned long nsw_init(int argc, char **argv, int flag, const char *kind)
{
	test_init(argc, argv);
	return nsw_new(flag, kind);
}

/* A test of the lock of the network namespace the restore makes (netns_lock_new, netns_lock_none): run with
 * --lockwatch it is the watcher (exits with it); else test_init, a network namespace of its own with lo up,
 * NSW_LOCK_MEM bytes of data (seed) for the restore to take a while (returned), no crshim table there yet,
 * and the watcher started. nsw_lock_after, after the checkpoint: the data and no crshim table left (the lock
 * removed); the watcher's verdict (nsw_lockwatch_result). */
#define NSW_LOCK_MEM (32u << 20)
static inline uint8_t *nsw_lock_setup(int argc, char **argv, uint64_t seed)
{
	if (argc > 1 && !strcmp(argv[1], "--lockwatch"))
		exit(lockwatch_run());
	test_init(argc, argv);
	nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	uint8_t *mem = mmap(NULL, NSW_LOCK_MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		fail("mmap");
	else
		datagen(mem, NSW_LOCK_MEM, seed);
	if (nft_has_table("crshim_", 1) != 0)
		fail("setup: a crshim table in our new network namespace, or nfnetlink refused");
	nsw_lockwatch_start();
	return mem;
}

static inline char *nsw_lock_after(const uint8_t *mem, uint64_t seed)
{
	if (mem == MAP_FAILED || datachk(mem, NSW_LOCK_MEM, seed, NULL))
		fail("memory changed");
	int left = nft_has_table("crshim_", 1);
	if (left)
		fail("%s", left > 0 ? "a crshim_* nftables table left in the restored network namespace"
				    : "nfnetlink refused after the restore");
	return nsw_lockwatch_result();
}

/* What a namespace test compares before and after the checkpoint: what cmd prints (lines matching drop, an
 * ERE or NULL, removed). nsw_look: each view's before, which must hold want (unless NULL: the setup did
 * what it should). nsw_cr: test_daemon, test_waitsig (the checkpoint), then our namespace of kind is still
 * our own (not host) and each view prints what it did. */
struct nsw_view {
	const char *what, *cmd, *drop;
	char *before;
	const char *want;
};

/* Wait (up to 60 s: a loaded machine) until every link of ours that is up with a carrier has its IPv6
 * link-local address: the kernel adds it only when the link watcher has seen the carrier, later than `ip
 * link set up` returns (seen: a before view without the fe80 addresses, an after view with them). Links
 * that get none (lo, IPv6 off, addr_gen_mode none, MTU below 1280) are not waited for. */
static inline void nsw_settle(void)
{
	for (int i = 0; i < 3000; i++) {
		if (!nsw_sh("for l in $(ip -o link | awk -F': ' '$3 ~ /[<,]UP[,>]/ && $3 ~ /LOWER_UP/ && "
			    "$3 !~ /LOOPBACK/ {m = $3; sub(/.* mtu /, \"\", m); sub(/ .*/, \"\", m); "
			    "if (m + 0 >= 1280) {sub(/@.*/, \"\", $2); print $2}}'); do "
			    "c=/proc/sys/net/ipv6/conf/$l; [ \"$(cat $c/disable_ipv6 2>/dev/null)\" = 0 ] || "
			    "continue; "
			    "[ \"$(cat $c/addr_gen_mode 2>/dev/null)\" = 1 ] && continue; "
			    "ip -o -6 addr show dev $l scope link | grep -q . || exit 1; done"))
			return;
		usleep(20000);
	}
}

static inline void nsw_look(struct nsw_view *v, int n)
{
	nsw_settle();
	for (int i = 0; i < n; i++) {
		v[i].before = nsw_out(v[i].cmd, v[i].drop);
		if (v[i].want && !strstr(v[i].before, v[i].want))
			fail("setup: %s have no '%s':\n%s", v[i].what, v[i].want, v[i].before);
	}
}

static inline void nsw_cr(const struct nsw_view *v, int n, const char *kind, unsigned long host)
{
	test_daemon();
	test_waitsig();
	nsw_own(kind, host);
	nsw_settle();
	for (int i = 0; i < n; i++)
		nsw_same(v[i].what, v[i].before, v[i].cmd, v[i].drop);
}

#endif
