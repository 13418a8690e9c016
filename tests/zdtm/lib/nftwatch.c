/* nftables for the tests: is there a table (nfnetlink, as ns/net-sysctl.c nft_tables asks), and the watcher
 * of the lock of a network namespace a restore makes (zdtmtst.h; static/netns_lock_new, netns_lock_none). */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include "zdtmtst.h"

/* Does the current network namespace have an nftables table named name (prefix: one starting with it)? 1,
 * 0, -1: could not ask. */
int nft_has_table(const char *name, int prefix)
{
	int sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	struct {
		struct nlmsghdr nh;
		struct nfgenmsg g;
	} req = {.nh = {.nlmsg_len = sizeof(req),
			.nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1},
		 .g = {.nfgen_family = AF_UNSPEC, .version = NFNETLINK_V0}};
	static char buf[65536];
	int found = 0;
	if (sk < 0 || send(sk, &req, sizeof(req), 0) != (ssize_t)sizeof(req)) {
		if (sk >= 0)
			close(sk);
		return -1;
	}
	for (;;) {
		ssize_t len = recv(sk, buf, sizeof(buf), 0);
		if (len <= 0)
			break;
		for (size_t off = 0; off + sizeof(struct nlmsghdr) <= (size_t)len;) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)(buf + off);
			if (h->nlmsg_len < sizeof(*h) || off + h->nlmsg_len > (size_t)len)
				goto out;
			if (h->nlmsg_type == NLMSG_DONE) {
				close(sk);
				return found;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				goto out;
			size_t a = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg));
			while (a + sizeof(struct nlattr) <= h->nlmsg_len) {
				const struct nlattr *at = (const struct nlattr *)((const char *)h + a);
				if (at->nla_len < sizeof(*at) || a + at->nla_len > h->nlmsg_len)
					break;
				const char *v = (const char *)at + NLA_HDRLEN;
				size_t vl = at->nla_len - NLA_HDRLEN;
				if ((at->nla_type & NLA_TYPE_MASK) == NFTA_TABLE_NAME &&
				    (prefix ? strncmp(v, name, strlen(name)) == 0
					    : vl == strlen(name) + 1 && !strcmp(v, name)))
					found = 1;
				a += NLA_ALIGN(at->nla_len);
			}
			off += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
out:
	close(sk);
	return -1;
}

static void free_ptr(char **p)
{
	free(*p);
}

static uint64_t ino_of(const char *p)
{
	struct stat st;
	return stat(p, &st) ? 0 : (uint64_t)st.st_ino;
}

/* /proc/PID/what into *b (malloc'd, NUL-terminated): its length, -1. */
static ssize_t proc_read(const char *pid, const char *what, char **b)
{
	char p[300];
	snprintf(p, sizeof(p), "/proc/%s/%s", pid, what);
	*b = NULL;
	return read_file(p, b);
}

static bool is_crshim(const char *pid)
{
	char *b;
	bool r = proc_read(pid, "comm", &b) == 7 && !strcmp(b, "crshim\n");
	free(b);
	return r;
}

/* Is pid a `crshim restore` (not --check-only) of images under dir? */
static bool restore_of(const char *pid, const char *dir)
{
	__attribute__((cleanup(free_ptr))) char *b = NULL;
	ssize_t n = proc_read(pid, "cmdline", &b);
	if (n <= 0)
		return false;
	bool restore = false, ours = false;
	size_t dl = strlen(dir);
	for (char *a = b, *prev = NULL; a < b + n; prev = a, a += strlen(a) + 1) {
		if (!strcmp(a, "--check-only"))
			return false;
		if (!strcmp(a, "restore"))
			restore = true;
		if (prev && !strcmp(prev, "-D") && !strncmp(a, dir, dl) && a[dl] == '/')
			ours = true;
	}
	if (!restore || !ours || !strstr(b, "crshim"))
		return false;
	/* crshim itself, not one of its children (helpers, the tree's processes before they are theirs) */
	char *st = NULL, ppid[32];
	if (proc_read(pid, "stat", &st) < 0) {
		free(st);
		return false;
	}
	const char *e = strrchr(st, ')');
	int pp = e ? atoi(e + 4) : 0;
	free(st);
	snprintf(ppid, sizeof(ppid), "%d", pp);
	return pp > 0 && !is_crshim(ppid);
}

static void result(const char *r)
{
	int fd = open("lockwatch.res.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dprintf(fd, "%s\n", r);
	close(fd);
	rename("lockwatch.res.tmp", "lockwatch.res");
}

static unsigned char checked[(4u << 20) / 8]; /* pids looked at */

/* A `crshim restore` of our dir not yet watched: "/proc/PID" in crp (empty: none now). */
static void find_restore(const char *dir, char *crp, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	crp[0] = '\0';
	while (d && (de = readdir(d)) && !crp[0]) {
		long pid = atol(de->d_name);
		if (pid <= 0 || pid >= (4l << 20) || (checked[pid / 8] & (1u << (pid % 8))) ||
		    !is_crshim(de->d_name))
			continue; /* (not yet: the runner's fork becomes crshim only at its exec) */
		if (restore_of(de->d_name, dir))
			snprintf(crp, len, "/proc/%ld", pid);
		checked[pid / 8] |= (unsigned char)(1u << (pid % 8));
	}
	if (d)
		closedir(d);
}

/* Watch restore crp until it ends or the lock is seen: its verdict. */
static const char *watch_one(const char *crp, int host, uint64_t host_ino)
{
	char nsp[80];
	snprintf(nsp, sizeof(nsp), "%s/ns/net", crp);
	bool seen = false, early = false;
	while (!access(crp, F_OK)) {
		uint64_t ino = ino_of(nsp);
		if (ino == host_ino)
			early = true; /* found before it entered the new one: we see it all along */
		int ns = ino && ino != host_ino ? open(nsp, O_RDONLY | O_CLOEXEC) : -1;
		if (ns >= 0 && !setns(ns, CLONE_NEWNET)) {
			seen = true;
			int has = nft_has_table("crshim_netns", false);
			if (setns(host, CLONE_NEWNET))
				exit(1);
			if (has == 1) {
				close(ns);
				return "LOCKED";
			}
		}
		if (ns >= 0)
			close(ns);
		usleep(200);
	}
	/* found only in the new namespace: maybe after the lock went (no verdict) */
	return seen && early ? "UNLOCKED" : seen ? "LATE" : "NOTSEEN";
}

int lockwatch_run(void)
{
	char dir[4096], crp[64];
	if (!getcwd(dir, sizeof(dir)))
		return 1;
	int fd = open("lockwatch.pid", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dprintf(fd, "%d\n", (int)getpid());
	close(fd);
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	uint64_t host_ino = ino_of("/proc/self/ns/net");
	for (time_t end = time(NULL) + 120; time(NULL) < end;) {
		find_restore(dir, crp, sizeof(crp));
		if (!crp[0]) {
			usleep(2000);
			continue;
		}
		unlink("lockwatch.res");
		result(watch_one(crp, host, host_ino));
	}
	return 0;
}
