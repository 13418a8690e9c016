/* The interface settings of the tree's own network namespace (net.ipv4.conf.*, net.ipv6.conf.*) of "all",
 * "default", lo and a veth pair made inside, set away from their defaults in the ways the kernel makes
 * order matter: all.forwarding (which sets every link's and default's too, and all.accept_redirects to its
 * opposite: set back to 1) with lo's own put back to 0,
 * default.rp_filter (copied to links that never had theirs written) with va's own written first, IPv6
 * default.hop_limit changed after the pair was made (a new link starts with default's), IPv6 stable_secret
 * of default and lo (readable only once set), and a few plain ones (all.arp_accept, default.accept_dad, lo's
 * IPv6 mtu). After the restore every readable setting under /proc/sys/net/ipv{4,6}/conf reads the same (each
 * line that changed is named). */
#include "ns_world.h"

static const char *const sets[] = {
    "ipv4/conf/all/arp_accept=1",
    "ipv4/conf/all/forwarding=1",
    "ipv4/conf/all/accept_redirects=1",
    "ipv4/conf/lo/forwarding=0",
    "ipv4/conf/va/rp_filter=1",
    "ipv4/conf/default/rp_filter=2",
    "ipv4/conf/default/arp_ignore=2",
    "ipv4/conf/vb/arp_announce=2",
    "ipv6/conf/default/hop_limit=77",
    "ipv6/conf/va/hop_limit=66",
    "ipv6/conf/default/accept_dad=2",
    "ipv6/conf/lo/mtu=1300",
    "ipv6/conf/default/stable_secret=2607:f0d0:1002:51::4",
    "ipv6/conf/lo/stable_secret=2607:f0d0:1002:51::5",
};

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must(
	    "ip link set lo up && ip link add va type veth peer name vb && ip link set va up && ip link set "
	    "vb up");
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		char p[128];
		const char *eq = strchr(sets[i], '=');
		snprintf(p, sizeof(p), "/proc/sys/net/%.*s", (int)(eq - sets[i]), sets[i]);
		FILE *f = fopen(p, "w");
		if (!f || fprintf(f, "%s\n", eq + 1) < 0 || fclose(f))
			fail("setup: %s", sets[i]);
	}
	static struct nsw_view v[] = {
	    {"interface settings", "cd /proc/sys/net && grep -r . ipv4/conf ipv6/conf 2>/dev/null | sort",
	     NULL, NULL, "ipv6/conf/va/hop_limit:66"},
	};
	nsw_look(v, 1);
	if (!strstr(v[0].before, "ipv4/conf/lo/forwarding:0") ||
	    !strstr(v[0].before, "ipv4/conf/vb/forwarding:1") ||
	    !strstr(v[0].before, "ipv4/conf/va/rp_filter:1") ||
	    !strstr(v[0].before, "ipv4/conf/vb/rp_filter:2") ||
	    !strstr(v[0].before, "ipv6/conf/vb/hop_limit:64") ||
	    !strstr(v[0].before, "ipv6/conf/lo/stable_secret:2607:f0d0:1002:0051:0000:0000:0000:0005"))
		fail("setup: the settings are not as the kernel should have made them:\n%s", v[0].before);
	test_daemon();
	test_waitsig();
	nsw_own("net", host);
	char *after = nsw_out(v[0].cmd, NULL), *save = NULL;
	for (char *l = strtok_r(v[0].before, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(after, l);
		if (!at || (at != after && at[-1] != '\n') || (at[strlen(l)] && at[strlen(l)] != '\n'))
			fail("%s changed (was so before the checkpoint)", l);
	}
	free(after);
	return test_pass();
}
