/* An fd of /dev/net/tun attached to a tap (nswtapfd0) of a network namespace that no process of the tree
 * is in (made by a first unshare, left by a second; the fd keeps it): crshim does not save it, so the dump
 * must fail with one line naming the device (.desc dump-expect) and the test keeps running, its fd still
 * attached. */
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	test_init(argc, argv);
	strcpy(ifr.ifr_name, "nswtapfd0");
	int fd = unshare(CLONE_NEWNET) ? -1 : open("/dev/net/tun", O_RDWR);
	if (fd < 0 || unshare(CLONE_NEWNET) || ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETPERSIST, 1)) {
		fail("make the persistent tap nswtapfd0");
		return 1;
	}
	test_daemon();
	test_waitsig();
	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) || strcmp(ifr.ifr_name, "nswtapfd0") || !(ifr.ifr_flags & IFF_TAP))
		fail("the fd is no longer attached to nswtapfd0");
	return test_pass();
}
