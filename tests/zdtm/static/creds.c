/* Non-root credentials: setgroups, setresgid, setresuid (with KEEPCAPS), a
 * reduced capability set (permitted/effective/inheritable/ambient), a smaller
 * bounding set and securebits. All survive and still apply. */
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

struct caps {
	struct __user_cap_data_struct d[2];
};

static int capget_self(struct caps *c)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	memset(c, 0, sizeof(*c));
	return syscall(SYS_capget, &h, c->d);
}

static int capset_self(struct caps *c)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	return syscall(SYS_capset, &h, c->d);
}

#define BIT(c) (1u << ((c)&31))

int main(int argc, char **argv)
{
	gid_t groups[] = {1001, 1002, 2005}, g[16];
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	struct caps c, c0;
	int ng, amb0[64], bnd0[64], sb0, kc0, i, last_cap = 40;

	test_init(argc, argv);
	if (geteuid() != 0)
		test_skip("needs root to set up");
	char *lc;
	if (read_file("/proc/sys/kernel/cap_last_cap", &lc) > 0)
		last_cap = atoi(lc);
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_BOOT) || prctl(PR_CAPBSET_DROP, CAP_MKNOD))
		fail("capbset drop");
	if (prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP | SECBIT_KEEP_CAPS))
		fail("securebits");
	if (setgroups(ARRAY_SIZE(groups), groups))
		fail("setgroups");
	if (setresgid(1000, 1001, 1002))
		fail("setresgid");
	prctl(PR_SET_KEEPCAPS, 1);
	if (setresuid(2000, 2001, 2002))
		fail("setresuid");
	/* keep a few caps: CHOWN, KILL, NET_BIND_SERVICE, SETUID (e), DAC_OVERRIDE (p only) */
	memset(&c, 0, sizeof(c));
	c.d[0].permitted = BIT(CAP_CHOWN) | BIT(CAP_KILL) | BIT(CAP_NET_BIND_SERVICE) | BIT(CAP_SETUID) |
			   BIT(CAP_DAC_OVERRIDE);
	c.d[0].effective = c.d[0].permitted & ~BIT(CAP_DAC_OVERRIDE);
	c.d[0].inheritable = BIT(CAP_NET_BIND_SERVICE) | BIT(CAP_KILL);
	if (capset_self(&c))
		fail("capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0))
		fail("ambient raise");
	capget_self(&c0);
	for (i = 0; i <= last_cap && i < 64; i++) {
		amb0[i] = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0);
		bnd0[i] = prctl(PR_CAPBSET_READ, i);
	}
	sb0 = prctl(PR_GET_SECUREBITS);
	kc0 = prctl(PR_GET_KEEPCAPS);
	test_daemon();
	test_waitsig();

	if (getresuid(&ru, &eu, &su) || ru != 2000 || eu != 2001 || su != 2002)
		fail("uids %d/%d/%d, want 2000/2001/2002", ru, eu, su);
	if (getresgid(&rg, &eg, &sg) || rg != 1000 || eg != 1001 || sg != 1002)
		fail("gids %d/%d/%d, want 1000/1001/1002", rg, eg, sg);
	if (setfsuid(-1) != 2001 || setfsgid(-1) != 1001)
		fail("fsuid %d fsgid %d", setfsuid(-1), setfsgid(-1));
	ng = getgroups(16, g);
	if (ng != ARRAY_SIZE(groups) || memcmp(g, groups, sizeof(groups)))
		fail("groups: %d entries", ng);
	capget_self(&c);
	if (memcmp(&c, &c0, sizeof(c)))
		fail("caps e/p/i %#x/%#x/%#x, want %#x/%#x/%#x", c.d[0].effective, c.d[0].permitted,
		     c.d[0].inheritable, c0.d[0].effective, c0.d[0].permitted, c0.d[0].inheritable);
	for (i = 0; i <= last_cap && i < 64; i++) {
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0) != amb0[i])
			fail("ambient cap %d", i);
		if (prctl(PR_CAPBSET_READ, i) != bnd0[i])
			fail("bounding cap %d: %d, want %d", i, prctl(PR_CAPBSET_READ, i), bnd0[i]);
	}
	if (prctl(PR_GET_SECUREBITS) != sb0)
		fail("securebits %#x, want %#x", prctl(PR_GET_SECUREBITS), sb0);
	if (prctl(PR_GET_KEEPCAPS) != kc0)
		fail("keepcaps %d, want %d", prctl(PR_GET_KEEPCAPS), kc0);
	/* they apply: no CAP_SYS_PTRACE, other uid -> pid 1's environ is closed to us */
	int fd = open("/proc/1/environ", O_RDONLY);
	if (fd >= 0)
		fail("could read pid 1's environ without privileges");
	/* CAP_SETUID is effective: switching among our own ids to another works */
	if (setresuid(2000, 2001, 2002))
		fail("setresuid with CAP_SETUID");
	pass();
	return 0;
}
