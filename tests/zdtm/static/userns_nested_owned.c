/* A root two levels down, owning namespaces: the test enters a user namespace A of its own ("0 0 2000"),
 * then B nested in A ("0 1000 100", setgroups denied; both maps written from outside), and makes in B its
 * UTS (hostname "nested-b"), IPC (a message queue with one message) and network (loopback up) namespaces.
 * After C/R: the three namespaces owned by our user namespace, their contents back; its maps (as A sees
 * them) and setgroups, our uid 0 in it; the runner compares our ids as the host sees them (1000 in mode cr:
 * through A's map too). (Modes uns and cuns: three levels.) B's ancestors are out of our reach
 * (NS_GET_PARENT: EPERM); userns_nested checks a parent from the parent's side. */
#include <linux/nsfs.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "userns_nested.h"

/* The inode of namespace file path. */
static unsigned long ino(const char *path)
{
	struct stat st;
	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

static unsigned long ino_fd(int fd)
{
	struct stat st;
	return fd < 0 || fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

/* The inode of the user namespace owning namespace fd (req NS_GET_USERNS); fd closed. */
static unsigned long up(int fd, unsigned long req)
{
	int u = fd < 0 ? -1 : ioctl(fd, req);
	unsigned long i = ino_fd(u);
	if (u >= 0)
		close(u);
	if (fd >= 0)
		close(fd);
	return i;
}

static int lo_flags(void)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	strcpy(ifr.ifr_name, "lo");
	int r = s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) ? -1 : ifr.ifr_flags;
	if (s >= 0)
		close(s);
	return r;
}

struct qmsg {
	long type;
	char text[16];
};

int main(int argc, char **argv)
{
	struct qmsg m = {7, "hello"};
	char host[64] = "";
	test_init(argc, argv);
	unest_enter("0 0 2000", NULL);
	unest_enter("0 1000 100", "deny");
	if (setresgid(0, 0, 0) ||
	    setresuid(0, 0, 0)) /* B's 0 (A's 1000), not our ids outside, unmapped in B */
		fail("setup: uid and gid 0 in B: %m");
	if (unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) || sethostname("nested-b", 8))
		fail("setup: UTS, IPC and network namespaces in B: %m");
	int q = msgget(0x4e53, IPC_CREAT | 0600);
	if (q < 0 || msgsnd(q, &m, 6, IPC_NOWAIT))
		fail("setup: message queue: %m");
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	strcpy(ifr.ifr_name, "lo");
	ifr.ifr_flags = IFF_UP;
	if (s < 0 || ioctl(s, SIOCSIFFLAGS, &ifr))
		fail("setup: lo up: %m");
	if (s >= 0)
		close(s);
	test_daemon();
	test_waitsig();

	static const char *const kinds[] = {"uts", "ipc", "net"};
	for (int i = 0; i < 3; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/ns/%s", kinds[i]);
		if (up(open(path, O_RDONLY | O_CLOEXEC), NS_GET_USERNS) != ino("/proc/self/ns/user"))
			fail("our %s namespace is not owned by B", kinds[i]);
	}
	if (gethostname(host, sizeof(host)) || strcmp(host, "nested-b"))
		fail("hostname %s", host);
	struct qmsg got = {0};
	if (msgrcv(q, &got, sizeof(got.text), 0, IPC_NOWAIT) != 6 || got.type != 7 ||
	    strcmp(got.text, "hello"))
		fail("the message: type %ld %s", got.type, got.text);
	if (lo_flags() < 0 || !(lo_flags() & IFF_UP))
		fail("lo is not up");
	if (getuid() != 0 || getgid() != 0)
		fail("uid %u gid %u in B", getuid(), getgid());
	if (!unest_same("/proc/self/uid_map", "0 1000 100\n") ||
	    !unest_same("/proc/self/setgroups", "deny\n"))
		fail("B's maps or setgroups");
	msgctl(q, IPC_RMID, NULL);
	if (!test_failures)
		pass();
	return 0;
}
