/* An fsgid different from the egid (setfsgid, then a non-root euid) comes back after restore. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <unistd.h>
#include "zdtmtst.h"

static void ids(const char *key, unsigned v[4])
{
	const char *s = proc_status(key);
	if (!s || sscanf(s, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) != 4)
		fail("%s: %s", key, s ? s : "(none)");
}

int main(int argc, char **argv)
{
	unsigned g0[4] = {0}, u0[4] = {0}, g1[4] = {0}, u1[4] = {0};
	test_init(argc, argv);
	if (getuid() != 0)
		test_skip("needs root");
	setfsgid(4321);
	if (setresuid(0, 1234, 0))
		fail("setresuid");
	ids("Gid", g0);
	ids("Uid", u0);
	if (g0[3] != 4321 || g0[1] == 4321 || u0[1] != 1234)
		fail("setup: Gid %u %u %u %u", g0[0], g0[1], g0[2], g0[3]);
	test_daemon();
	test_waitsig();
	ids("Gid", g1);
	ids("Uid", u1);
	if (memcmp(g0, g1, sizeof(g0)))
		fail("Gid %u %u %u %u after restore, want %u %u %u %u", g1[0], g1[1], g1[2], g1[3], g0[0],
		     g0[1], g0[2], g0[3]);
	if (memcmp(u0, u1, sizeof(u0)))
		fail("Uid %u %u %u %u after restore", u1[0], u1[1], u1[2], u1[3]);
	return test_pass();
}
