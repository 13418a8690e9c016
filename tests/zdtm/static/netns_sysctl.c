/* Per-namespace network sysctls of the tree's own network namespace set away from their defaults
 * (forwarding, somaxconn, local port range, ping group range, keepalive time, unprivileged port start,
 * IPv6 forwarding, a unix datagram queue length). After the restore each reads the same, and the host's
 * (read by the runner's host agent, in every mode) are not touched. */
#include "ns_world.h"

static const char *const names[][2] = {
    {"ipv4/ip_forward", "1"},
    {"core/somaxconn", "777"},
    {"ipv4/ip_local_port_range", "20000\t30000"},
    {"ipv4/ping_group_range", "0\t1000"},
    {"ipv4/tcp_keepalive_time", "1234"},
    {"ipv4/ip_unprivileged_port_start", "999"},
    {"ipv6/conf/all/forwarding", "1"},
    {"unix/max_dgram_qlen", "77"},
};
#define N (sizeof(names) / sizeof(names[0]))

static char *get(const char *name)
{
	char p[128], *v = NULL;
	snprintf(p, sizeof(p), "/proc/sys/net/%s", name);
	if (read_file(p, &v) < 0)
		return strdup("?");
	v[strcspn(v, "\n")] = '\0';
	return v;
}

/* The host's values, one a line (the host agent: modes ns and uns have no path to the host's namespace). */
static char *host_values(void)
{
	char cmd[512] = "cd /proc/sys/net && cat", *v = NULL;
	for (size_t i = 0; i < N; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", names[i][0]);
	if (nsw_hsh(&v, "%s", cmd))
		fail("host agent: %s: %s", cmd, v);
	return v;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	char *hostv = host_values();
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	for (size_t i = 0; i < N; i++) {
		char p[128];
		snprintf(p, sizeof(p), "/proc/sys/net/%s", names[i][0]);
		FILE *f = fopen(p, "w");
		if (!f || fprintf(f, "%s\n", names[i][1]) < 0 || fclose(f))
			fail("setup: %s = %s", p, names[i][1]);
		char *v = get(names[i][0]);
		if (strcmp(v, names[i][1]))
			fail("setup: %s is %s", names[i][0], v);
		free(v);
	}
	test_daemon();
	test_waitsig();
	nsw_own("net", host);
	for (size_t i = 0; i < N; i++) {
		char *v = get(names[i][0]);
		if (strcmp(v, names[i][1]))
			fail("net.%s: %s, want %s", names[i][0], v, names[i][1]);
		free(v);
	}
	char *now = host_values(); /* the host's are untouched */
	if (strcmp(now, hostv))
		fail("the host's net sysctls changed:\n--- before\n%s--- after\n%s", hostv, now);
	free(now);
	free(hostv);
	return test_pass();
}
