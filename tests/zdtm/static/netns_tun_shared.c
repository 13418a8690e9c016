/* A tun device that only fds keep (not persistent), in the test's network namespace of its own, whose one
 * open file description the test and its child share (the child forked after TUNSETIFF). After C/R both fds
 * are attached to nswtunsh0 (TUNGETIFF), still one description (kcmp), and the device is not persistent:
 * gone once both processes closed them. Before: crshim opened /dev/net/tun once for both (a description
 * of several processes) without attaching it to the device, which the restore had made persistent. */
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/if_tun.h>
#include <linux/kcmp.h>
#include "ns_world.h"

#define DEV "nswtunsh0"

/* fd attached to DEV, not persistent: 0 */
static int attached(int fd)
{
	struct ifreq ifr = {0};
	if (ioctl(fd, TUNGETIFF, &ifr) || strcmp(ifr.ifr_name, DEV))
		return 1;
	return (ifr.ifr_flags & (IFF_TUN | IFF_NO_PI | IFF_PERSIST)) != (IFF_TUN | IFF_NO_PI) ? 2 : 0;
}

/* The child: holds fd (ready on p), then checks it. */
static int child(int fd, const int *p)
{
	close(p[0]);
	if (write(p[1], "r", 1) != 1)
		return 64;
	close(p[1]);
	test_waitsig();
	int r = attached(fd);
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	struct ifreq ifr = {.ifr_flags = IFF_TUN | IFF_NO_PI};
	int fd = open("/dev/net/tun", O_RDWR), pfd[2];
	strcpy(ifr.ifr_name, DEV);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0)
		fail("make " DEV);
	nsw_must("ip link set lo up && ip link set " DEV " up");
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0)
		_exit(child(fd, pfd));
	char c;
	close(pfd[1]);
	if (ch < 0 || read(pfd[0], &c, 1) != 1)
		fail("child not ready");
	close(pfd[0]);
	static struct nsw_view v[] = {
	    {"tun", "ip -d -o link show " DEV " | grep -o 'tun type.* persist [a-z]*'", NULL, NULL, NULL}};
	nsw_look(v, 1);
	nsw_cr(v, 1, "net", host);
	int r = attached(fd);
	if (r)
		fail("the test's fd is not attached to " DEV " as before (%d: 1 not attached, 2 flags)", r);
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, fd, fd))
		fail("the test's and the child's fds are not one description any more");
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: its fd is not attached to " DEV " as before (status 0x%x)", st);
	close(fd);
	if (if_nametoindex(DEV))
		fail(DEV " outlived its fds: made persistent by the restore");
	return test_pass();
}
