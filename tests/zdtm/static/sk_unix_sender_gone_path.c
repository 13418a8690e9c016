/* A unix dgram socket with messages queued from two clients bound to absolute path names and closed since:
 * the first client's socket file is still there (a closed socket leaves it behind), the second one's was
 * removed. After restore each message comes back with its sender's path as recvfrom() gave it before; the
 * first socket file is still there, the same inode, the second path is still free. Before: both messages
 * came from an unnamed socket (a warning "the sender ... is gone"), an address of 2 bytes. */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include "sk_unix.h"

enum { S = 60 };

int main(int argc, char **argv)
{
	char dir[PATH_MAX], sn[64], an[128], bn[128];
	struct sockaddr_un sa;
	struct stat st0, st1;

	test_init(argc, argv);
	if (!getcwd(dir, sizeof(dir)) || strlen(dir) > 60)
		fail("cwd %s too long for a socket path", dir);
	snprintf(sn, sizeof(sn), "@zdtm-sk-gone-path-%d", getpid());
	snprintf(an, sizeof(an), "%s/gone-a.%d", dir, getpid());
	snprintf(bn, sizeof(bn), "%s/gone-b.%d", dir, getpid());
	unlink(an);
	unlink(bn);
	socklen_t sal = sk_bound(S, SOCK_DGRAM, sn, 0, &sa);
	sk_dgram_from(an, &sa, sal, "one");
	sk_dgram_from(bn, &sa, sal, "two");
	if (unlink(bn) || lstat(an, &st0) || !S_ISSOCK(st0.st_mode))
		fail("socket files");
	test_daemon();
	test_waitsig();

	sk_expect_from(S, "one", an);
	sk_expect_from(S, "two", bn);
	char buf[4];
	if (recv(S, buf, sizeof(buf), MSG_DONTWAIT) != -1 || errno != EAGAIN)
		fail("more messages than sent");
	if (lstat(an, &st1) || !S_ISSOCK(st1.st_mode) || st1.st_ino != st0.st_ino)
		fail("%s: not the socket file it was (inode %lu, was %lu): %m", an, (unsigned long)st1.st_ino,
		     (unsigned long)st0.st_ino);
	if (!lstat(bn, &st1) || errno != ENOENT)
		fail("%s is there: %m", bn);
	unlink(an);
	pass();
	return 0;
}
