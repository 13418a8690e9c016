/* Per-namespace network sysctls, the nftables ruleset and the iptables-legacy tables of the tree's network
 * namespace (net.img). All run with crshim inside the namespace: /proc/sys/net shows the opener's network
 * namespace, and nft and ip(6)tables-legacy-save/-restore talk to the namespace they run in. The interface
 * settings (net.ipv4.conf.*, net.ipv6.conf.*: every writable one of "all", "default" and each link) go in the
 * order the kernel needs: "all" first (writing all.forwarding, all.disable_ipv6 sets default's and every
 * link's too), then "default" (IPv4: copied to the links that never had theirs written; both: new links start
 * with it), both before the links are made; each link's own once it is made, its IPv6 MTU once it is up. */
#include <dirent.h>
#define LOG_PREFIX "ns-net: "
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "ns-int.h"

extern char **environ;

/* The namespace's own sysctls a container or its runtime sets (under /proc/sys/net). */
static const char *const sysctls[] = {
    "core/somaxconn",
    "ipv4/ip_forward",
    "ipv4/ip_local_port_range",
    "ipv4/ip_local_reserved_ports",
    "ipv4/ip_unprivileged_port_start",
    "ipv4/ping_group_range",
    "ipv4/ip_default_ttl",
    "ipv4/ip_no_pmtu_disc",
    "ipv4/tcp_keepalive_time",
    "ipv4/tcp_keepalive_intvl",
    "ipv4/tcp_keepalive_probes",
    "ipv4/tcp_fin_timeout",
    "ipv4/tcp_syncookies",
    "ipv4/tcp_timestamps",
    "ipv4/tcp_sack",
    "ipv4/tcp_window_scaling",
    "ipv4/tcp_tw_reuse",
    "ipv4/tcp_max_syn_backlog",
    "ipv4/icmp_echo_ignore_all",
    "ipv4/icmp_echo_ignore_broadcasts",
    "unix/max_dgram_qlen",
};

static int add(NetEntry *ne, const char *name, const char *val, struct cr_err *e)
{
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	NetSysctlEntry **n = realloc(ne->sysctls, (ne->n_sysctls + 1) * sizeof(*n));
	if (!n)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	ne->sysctls = n;
	NetSysctlEntry *se = malloc(sizeof(*se));
	if (!se)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	net_sysctl_entry__init(se);
	se->name = strdup(name);
	se->value = strdup(val);
	ne->sysctls[ne->n_sysctls++] = se;
	if (!se->name || !se->value)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	return 0;
}

/* Every writable and readable setting of /proc/sys/net/FAM/conf/DEV (stable_secret reads only once set;
 * mc_forwarding is read-only). */
static int dump_conf(NetEntry *ne, const char *fam, const char *dev, struct cr_err *e)
{
	char dir[96];
	snprintf(dir, sizeof(dir), "/proc/sys/net/%s/conf/%s", fam, dev);
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* no IPv6 in this kernel, or on this link */
	int ret = 0;
	for (struct dirent *de; !ret && (de = readdir(d));) {
		char path[384], name[320], val[256];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || stat(path, &st) || !(st.st_mode & S_IWUSR) ||
		    proc_read_value(path, val, sizeof(val)))
			continue;
		snprintf(name, sizeof(name), "%s/conf/%s/%s", fam, dev, de->d_name);
		ret = add(ne, name, val, e);
	}
	closedir(d);
	return ret;
}

int ns_net_sysctl_dump(NetEntry *ne, struct cr_err *e)
{
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++) {
		char path[128], val[256];
		snprintf(path, sizeof(path), "/proc/sys/net/%s", sysctls[i]);
		if (proc_read_value(path, val, sizeof(val)))
			continue; /* not in this kernel, or not per namespace */
		if (add(ne, sysctls[i], val, e))
			return -1;
	}
	static const char *const fams[] = {"ipv4", "ipv6"};
	for (size_t f = 0; f < 2; f++) /* all, then default, then the links: the order of the restore */
		if (dump_conf(ne, fams[f], "all", e) || dump_conf(ne, fams[f], "default", e))
			return -1;
	for (size_t i = 0; i < ne->n_links; i++)
		for (size_t f = 0; f < 2; f++)
			if (ne->links[i]->name && dump_conf(ne, fams[f], ne->links[i]->name, e))
				return -1;
	return 0;
}

/* ipv4/conf/DEV/KEY or ipv6/conf/DEV/KEY (DEV all, default or a link's name): the phase of the restore it
 * is written in (-1: not one of them). */
static int conf_name(const char *name)
{
	if (strncmp(name, "ipv4/conf/", 10) && strncmp(name, "ipv6/conf/", 10))
		return -1;
	const char *dev = name + 10, *key = strchr(dev, '/');
	if (!key || key == dev || key - dev >= 16 || dev[0] == '.' || !key[1] || key[1] == '.' ||
	    strchr(key + 1, '/'))
		return -1;
	if (!strncmp(dev, "all/", 4) || !strncmp(dev, "default/", 8))
		return NS_SYSCTL_DFLT;
	/* a link going up takes its MTU as its IPv6 MTU */
	return !strncmp(name, "ipv6/", 5) && !strcmp(key, "/mtu") ? NS_SYSCTL_UP : NS_SYSCTL_LINKS;
}

static bool known(const char *name)
{
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++)
		if (!strcmp(sysctls[i], name))
			return true;
	return conf_name(name) >= 0;
}

/* The settings written first: forwarding (IPv4: writing all.forwarding sets all.accept_redirects to its
 * opposite) and IPv6 stable_secret (writing it sets the link's addr_gen_mode to stable privacy, which a
 * link of no hardware address that the kernel gave random had not: addr_gen_mode, written after, fixes it).
 */
static bool first(const char *name)
{
	size_t l = name ? strlen(name) : 0;
	return (l > 11 && !strcmp(name + l - 11, "/forwarding")) ||
	       (l > 14 && !strcmp(name + l - 14, "/stable_secret"));
}

/* the settings first() names first, then the rest */
int ns_net_sysctl_restore(const NetEntry *ne, int phase, struct cr_err *e)
{
	if (!ne->n_sysctls)
		return 0;
	for (size_t k = 0; k < 2 * ne->n_sysctls; k++) {
		size_t i = k % ne->n_sysctls;
		const NetSysctlEntry *se = ne->sysctls[i];
		if ((k < ne->n_sysctls) != first(se->name))
			continue;
		char path[384], cur[256];
		if (!se->name || !se->value || !known(se->name))
			return cr_fail_errno(e, EBADMSG, "net.img: sysctl %s is not one crshim restores",
					     se->name ? se->name : "?");
		int ph = conf_name(se->name);
		if ((ph < 0 ? NS_SYSCTL_LINKS : ph) != phase)
			continue;
		snprintf(path, sizeof(path), "/proc/sys/net/%s", se->name);
		if (!proc_read_value(path, cur, sizeof(cur)) && !strcmp(cur, se->value))
			continue;
		__cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && conf_name(se->name) >= 0) {
			pr_warn("sysctl net.%s: not in this kernel, left out\n", se->name);
			continue;
		}
		if (fd < 0 || write(fd, se->value, strlen(se->value)) != (ssize_t)strlen(se->value))
			return cr_fail_sys(e, "sysctl net.%s = %s", se->name, se->value);
		pr_debug("sysctl net.%s = %s\n", se->name, se->value);
	}
	return 0;
}

/* Run argv[0] (found in PATH; pkg: the package that has it) with in (may be -1) as stdin; its stdout into
 * *out (NULL: discarded). */
static int run_prog(const char *const argv[], const char *pkg, int in, char **out, struct cr_err *e)
{
	__cleanup_close int o = memfd_create("crshim-nft-out", MFD_CLOEXEC);
	__cleanup_close int err = memfd_create("crshim-nft-err", MFD_CLOEXEC);
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, rc;
	if (o < 0 || err < 0)
		return cr_fail_sys(e, "memfd");
	posix_spawn_file_actions_init(&fa);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, o, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return cr_fail_errno(e, rc, "run %s (install %s)", argv[0], pkg);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char msg[256] = "";
		ssize_t n = pread(err, msg, sizeof(msg) - 1, 0);
		msg[n > 0 ? n : 0] = '\0';
		char *nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		return cr_fail_errno(e, EIO, "%s %s: %s", argv[0], argv[1] ? argv[1] : "", msg);
	}
	if (!out)
		return 0;
	struct stat sb;
	if (fstat(o, &sb))
		return cr_fail_sys(e, "%s output", argv[0]);
	*out = calloc(1, (size_t)sb.st_size + 1);
	if (!*out)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (pread(o, *out, (size_t)sb.st_size, 0) != sb.st_size)
		return cr_fail_sys(e, "read %s output", argv[0]);
	return 0;
}

/* run_prog with text as stdin, its stdout discarded. */
static int run_prog_text(const char *const argv[], const char *pkg, const char *text, struct cr_err *e)
{
	__cleanup_close int in = memfd_create("crshim-tool-in", MFD_CLOEXEC);
	size_t len = strlen(text);
	if (in < 0 || write(in, text, len) != (ssize_t)len || lseek(in, 0, SEEK_SET))
		return cr_fail_sys(e, "%s input", argv[0]);
	return run_prog(argv, pkg, in, NULL, e);
}

/* How many nftables tables the current network namespace has, asked through nfnetlink (-1: could not ask).
 * Most containers have none: then nft (tens of milliseconds to start) need not run. */
static int nft_tables(void)
{
	__cleanup_close int sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	struct {
		struct nlmsghdr nh;
		struct nfgenmsg g;
	} req = {.nh = {.nlmsg_len = sizeof(req),
			.nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1},
		 .g = {.nfgen_family = AF_UNSPEC, .version = NFNETLINK_V0}};
	static char buf[32768];
	int n = 0;
	if (sk < 0 || send(sk, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		return -1;
	for (;;) {
		ssize_t len = recv(sk, buf, sizeof(buf), 0);
		if (len <= 0)
			return -1;
		for (size_t off = 0; off + sizeof(struct nlmsghdr) <= (size_t)len;) {
			const struct nlmsghdr *h = (const struct nlmsghdr *)(buf + off);
			if (h->nlmsg_len < sizeof(*h) || off + h->nlmsg_len > (size_t)len)
				return -1;
			if (h->nlmsg_type == NLMSG_DONE)
				return n;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			n++;
			off += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
}

/* The ruleset as JSON, without crshim's own network-lock tables (crshim_*); NULL when it has no table. */
int ns_nft_dump(char **out, struct cr_err *e)
{
	static const char *const argv[] = {"nft", "-j", "list", "ruleset", NULL};
	char *js = NULL;
	*out = NULL;
	if (nft_tables() == 0)
		return 0;
	if (run_prog(argv, "nftables", -1, &js, e))
		return -1;
	if (!strstr(js, "\"table\"")) {
		free(js);
		return 0;
	}
	if (strstr(js, "\"name\": \"crshim_")) {
		free(js);
		return cr_fail(
		    e, "not supported yet: a crshim network lock table in the tree's network namespace");
	}
	*out = js;
	pr_info("nftables ruleset: %zu bytes of JSON\n", strlen(js));
	return 0;
}

int ns_nft_restore(const char *js, struct cr_err *e)
{
	static const char *const argv[] = {"nft", "-j", "-f", "-", NULL};
	if (run_prog_text(argv, "nftables", js, e))
		return cr_wrap(e, "restore the nftables ruleset");
	pr_info("nftables ruleset restored (%zu bytes of JSON)\n", strlen(js));
	return 0;
}

/* The legacy x_tables of iptables (v6: ip6tables): /proc/net/ip_tables_names lists the tables the current
 * network namespace has (the file is missing when the module is not loaded: none). */
static const struct {
	const char *names, *save, *restore;
} ipt_fam[2] = {
    {"/proc/thread-self/net/ip_tables_names", "iptables-legacy-save", "iptables-legacy-restore"},
    {"/proc/thread-self/net/ip6_tables_names", "ip6tables-legacy-save", "ip6tables-legacy-restore"},
};

/* The names of the legacy tables in the namespace, space separated, into buf ("" when none). */
static int ipt_tables(int v6, char *buf, size_t len, struct cr_err *e)
{
	__cleanup_fclose FILE *f = fopen(ipt_fam[v6].names, "re");
	char line[64];
	size_t n = 0;
	buf[0] = '\0';
	if (!f)
		return errno == ENOENT ? 0 : cr_fail_sys(e, "%s", ipt_fam[v6].names);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		int w = snprintf(buf + n, len - n, "%s%s", n ? " " : "", line);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return 0;
}

/* iptables-legacy-save and ip6tables-legacy-save of the namespace (net:[ino]), when it has legacy tables:
 * into ne->ipt, ne->ip6t. Without them no tool is needed. */
int ns_ipt_dump(NetEntry *ne, unsigned long long ino, struct cr_err *e)
{
	for (int v6 = 0; v6 < 2; v6++) {
		const char *argv[] = {ipt_fam[v6].save, NULL};
		char **out = v6 ? &ne->ip6t : &ne->ipt;
		char names[256];
		if (ipt_tables(v6, names, sizeof(names), e))
			return -1;
		if (!names[0])
			continue;
		if (run_prog(argv, "iptables", -1, out, e))
			return cr_wrap(e, "network namespace net:[%llu] has iptables-legacy tables (%s)", ino,
				       names);
		if (strstr(*out, "CRSHIM_"))
			return cr_fail(
			    e,
			    "not supported yet: a crshim network lock chain in the iptables-legacy "
			    "tables of network namespace net:[%llu]",
			    ino);
		pr_info("%s: tables %s, %zu bytes\n", argv[0], names, strlen(*out));
	}
	return 0;
}

int ns_ipt_restore(const NetEntry *ne, struct cr_err *e)
{
	for (int v6 = 0; v6 < 2; v6++) {
		const char *text = v6 ? ne->ip6t : ne->ipt;
		const char *argv[] = {ipt_fam[v6].restore, "-w", NULL};
		if (!text)
			continue;
		if (run_prog_text(argv, "iptables", text, e))
			return cr_wrap(e, "restore the iptables-legacy tables");
		pr_info("%s: %zu bytes restored\n", argv[0], strlen(text));
	}
	return 0;
}
