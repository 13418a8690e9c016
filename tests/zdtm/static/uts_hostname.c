/* A UTS namespace of its own with a host name and a NIS domain name set. After the restore both are the
 * same, the namespace is not the host's, and the host's names are untouched. */
#include <sys/utsname.h>
#include "ns_world.h"

int main(int argc, char **argv)
{
	struct utsname h0, u;
	test_init(argc, argv);
	uname(&h0);
	unsigned long host = nsw_new(CLONE_NEWUTS, "uts");
	if (sethostname("nsworld-uts-host", 16) || setdomainname("nsworld.example", 15))
		fail("setup: set names");
	test_daemon();
	test_waitsig();
	nsw_own("uts", host);
	if (uname(&u) || strcmp(u.nodename, "nsworld-uts-host") || strcmp(u.domainname, "nsworld.example"))
		fail("names after restore: %s %s", u.nodename, u.domainname);
	/* the host's names (not visible in modes ns and uns: our parent is outside our PID namespace) */
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "nsenter --uts=%s hostname", nsw_host("uts"));
	static char *h;
	h = getppid() ? nsw_out(cmd, NULL) : strdup(h0.nodename);
	h[strcspn(h, "\n")] = '\0';
	if (strcmp(h, h0.nodename))
		fail("host name: %s, was %s", h, h0.nodename);
	return test_pass();
}
