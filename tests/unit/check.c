/* Unit tests of eng_check (engine/check.c): the report, one feature, unknown names, no leftovers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crshim.h"
#include "tap.h"

static char *run(const char *feature, int *ret, struct cr_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_err_clear(e);
	*ret = eng_check(feature, f, e);
	fclose(f);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	struct cr_err e;
	int ret;
	char *out = run(NULL, &ret, &e);
	ok(ret == 0 || (ret < 0 && strstr(e.msg, "missing")), "full check returns (%s)",
	   ret ? e.msg : "all good");
	is_int(count_lines(out), 20, "one line per feature");
	like(out, "external_net_ns", "reports external_net_ns");
	like(out, "ptrace_seize", "reports ptrace_seize");
	like(out, "mem_dirty_track", "reports mem_dirty_track");
	like(out, "soft_dirty", "reports soft_dirty");
	like(out, "tcp_half_closed", "reports tcp_half_closed");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left behind");
	free(out);

	out = run("vdso_layout", &ret, &e);
	ok(ret == 0 && !strcmp(out, "vdso_layout is supported\n"),
	   "--feature vdso_layout prints 'is supported'");
	free(out);
	out = run("ptrace_seize", &ret, &e);
	ok(ret == 0 || strstr(e.msg, "ptrace_seize is not supported"), "--feature ptrace_seize: %s",
	   ret ? e.msg : "supported");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "... no child left behind");
	free(out);
	if (geteuid() == 0) {
		out = run("clone3_set_tid", &ret, &e);
		ok(ret == 0, "--feature clone3_set_tid as root: %s", ret ? e.msg : "supported");
		ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "... no child left behind");
		free(out);
	}
	/* CRIU 4.2's names (criu/cr-check.c): each is known (zdtm.py skips a test whose feature is denied) */
	static const char *const criu[] = {"mnt_id",
					   "mem_dirty_track",
					   "aio_remap",
					   "timerfd",
					   "tun",
					   "tun_ns",
					   "userns",
					   "fdinfo_lock",
					   "seccomp_suspend",
					   "seccomp_filters",
					   "loginuid",
					   "cgroupns",
					   "autofs",
					   "tcp_half_closed",
					   "compat_cr",
					   "uffd",
					   "uffd-noncoop",
					   "can_map_vdso",
					   "sk_ns",
					   "sk_unix_file",
					   "net_diag_raw",
					   "nsid",
					   "link_nsid",
					   "kcmp_epoll",
					   "timens",
					   "external_net_ns",
					   "clone3_set_tid",
					   "newifindex",
					   "nftables",
					   "has_ipt_legacy",
					   "pidfd_store",
					   "ns_pid",
					   "apparmor_stacking",
					   "network_lock_nftables",
					   "sockopt_buf_lock",
					   "memfd_hugetlb",
					   "move_mount_set_group",
					   "openat2",
					   "get_rseq_conf",
					   "ipv6_freebind",
					   "pagemap_scan",
					   "timer_cr_ids",
					   "overlayfs_maps",
					   "breakpoints",
					   "pagemap_scan_guard_pages"};
	int unknown = 0;
	for (size_t i = 0; i < sizeof(criu) / sizeof(criu[0]); i++) {
		free(run(criu[i], &ret, &e));
		if (ret < 0 && strstr(e.msg, "unknown feature"))
			unknown++, diag("unknown: %s", criu[i]);
	}
	ok(unknown == 0, "every one of CRIU 4.2's %zu feature names is known",
	   sizeof(criu) / sizeof(criu[0]));
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "... no child left behind");
	/* state crshim does not save: denied whatever the kernel has, with the reason */
	static const char *const no[] = {"autofs",	"compat_cr",	 "nsid", "apparmor_stacking",
					 "breakpoints", "overlayfs_maps"};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		out = run(no[i], &ret, &e);
		char want[80];
		snprintf(want, sizeof(want), "%s is not supported: ", no[i]);
		ok(ret < 0 && out[0] == '\0' && !strncmp(e.msg, want, strlen(want)) &&
		       strlen(e.msg) > strlen(want) + 10,
		   "--feature %s: no (%s)", no[i], e.msg);
		free(out);
	}
	/* raw sockets are dumped also when the kernel's sock_diag has no raw part (this machine's) */
	if (geteuid() == 0) {
		out = run("net_diag_raw", &ret, &e);
		ok(ret == 0 && !strcmp(out, "net_diag_raw is supported\n"),
		   "--feature net_diag_raw as root: %s", ret ? e.msg : "yes");
		free(out);
	}
	/* iptables: yes when iptables-restore is iptables-nft (its rules are the nftables ones the dump
	 * saves), as `iptables-restore -V` tells */
	FILE *v = popen(
	    "PATH=/usr/sbin:/sbin:$PATH; iptables-restore -V 2>/dev/null; ip6tables-restore -V 2>/dev/null",
	    "r");
	char vl[2][160] = {"", ""};
	for (int i = 0; v && i < 2 && fgets(vl[i], sizeof(vl[i]), v); i++)
		;
	if (v)
		pclose(v);
	int nft = strstr(vl[0], "(nf_tables)") && strstr(vl[1], "(nf_tables)");
	out = run("has_ipt_legacy", &ret, &e);
	ok(nft ? ret == 0 && !strcmp(out, "has_ipt_legacy is supported\n")
	       : ret < 0 && out[0] == '\0' && strstr(e.msg, "has_ipt_legacy is not supported: "),
	   "--feature has_ipt_legacy: %s (iptables-restore -V: %.*s)", ret ? e.msg : "yes",
	   (int)strcspn(vl[0], "\n"), vl[0]);
	free(out);
	/* a unix socket bound in another mount namespace of the tree is bound there again (SIOCUNIXFILE) */
	out = run("sk_unix_file", &ret, &e);
	ok(ret == 0 && !strcmp(out, "sk_unix_file is supported\n"), "--feature sk_unix_file: yes");
	free(out);
	int vdso_ret;
	free(run("vdso_layout", &vdso_ret, &e));
	out = run("can_map_vdso", &ret, &e);
	ok(ret == vdso_ret && (ret || !strcmp(out, "can_map_vdso is supported\n")),
	   "can_map_vdso answers as vdso_layout, under its own name");
	free(out);
	out = run("no_such_feature", &ret, &e);
	ok(ret < 0 && out[0] == '\0', "unknown feature: error, no output");
	like(e.msg, "unknown feature 'no_such_feature'", "... names it");
	like(e.msg, "mem_dirty_track", "... and lists the known ones");
	free(out);
	return done_testing();
}
