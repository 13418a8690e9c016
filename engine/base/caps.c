/* Capabilities crshim holds. */
#include <linux/capability.h>
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
