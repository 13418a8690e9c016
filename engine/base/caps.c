/* Capabilities crshim holds. */
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/caps.h"

bool cr_has_cap(int cap)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* A crshim that gained capabilities from its file (an unprivileged user's) is not dumpable: its /proc/PID and
 * its children's belong to root, so the tree it restores cannot reopen the files crshim holds for it through
 * /proc/CRSHIM/fd (ghost files). Dumpable again, /proc is the user's; ptrace of crshim by the user stays
 * refused (the kernel wants the tracer to hold the capabilities crshim holds). */
void cr_caps_user_dumpable(void)
{
	if (geteuid() != 0 && prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* Drop every capability (effective, permitted, inheritable) of this process. */
int cr_caps_drop_all(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	return (int)syscall(SYS_capset, &h, d);
}

/* Effective = permitted (setfsuid to a uid other than 0 drops the file capabilities from the effective set).
 */
int cr_caps_effective_all(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective = d[0].permitted, d[1].effective = d[1].permitted;
	return (int)syscall(SYS_capset, &h, d);
}
