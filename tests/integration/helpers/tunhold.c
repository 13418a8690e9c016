/* tunhold NAME tun|tap UID GID READY [shared]: open /dev/net/tun, attach it to a new tun or tap device NAME
 * (no packet info), owned by UID and GID (-1: none), on fd 9 (the device lives as long as a process holds it:
 * not persistent); with "shared" fork a child that holds it too; create file READY, then wait for a signal.
 * For nested.bats: a tun held in a container. */
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: tunhold NAME tun|tap UID GID READY [shared]\n");
		return 2;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	ifr.ifr_flags = (short)((strcmp(argv[2], "tap") ? IFF_TUN : IFF_TAP) | IFF_NO_PI);
	long uid = strtol(argv[3], NULL, 10), gid = strtol(argv[4], NULL, 10);
	int fd = open("/dev/net/tun", O_RDWR);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) || (uid >= 0 && ioctl(fd, TUNSETOWNER, uid)) ||
	    (gid >= 0 && ioctl(fd, TUNSETGROUP, gid)) || dup2(fd, 9) != 9) {
		perror(argv[1]);
		return 1;
	}
	if (fd != 9)
		close(fd);
	pid_t child = argc > 6 && !strcmp(argv[6], "shared") ? fork() : 1;
	if (child < 0) {
		perror("fork");
		return 1;
	}
	int r = child ? open(argv[5], O_WRONLY | O_CREAT, 0644) : 0;
	if (r < 0) {
		perror(argv[5]);
		return 1;
	}
	for (;;)
		pause();
}
