/* A child in a mount namespace of its own binds unix sockets on a tmpfs of its own (/nsmnt_cd) and then
 * removes their files: a dgram socket with a connected client and a message queued, a stream listener with an
 * accepted connection (its directory removed too), and one bound to a relative name in its cwd there. After
 * restore each keeps its name (getsockname), its file is the removed one on the child's tmpfs (SIOCUNIXFILE:
 * st_nlink 0, st_dev the tmpfs's), no file is left at the paths in either namespace, and the message and the
 * connections are there. Before, crshim bound them in the test's mount namespace (the files then on its
 * root's filesystem: a silent wrong state). */
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/sockios.h>
#include "nsmnt.h"
#include "sk_unix_at.h"

#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE (SIOCPROTOPRIVATE + 0)
#endif

static int sk = -1, csk = -1, lsk = -1, acc = -1, cli = -1, rel = -1;

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_cd", "tmpfs", 0, "size=1m") || mkdir("/nsmnt_cd/d", 0755))
		return -1;
	sk = sock_at(SOCK_DGRAM, "/nsmnt_cd/sk", 1);
	csk = sock_at(SOCK_DGRAM, "/nsmnt_cd/sk", 0);
	lsk = sock_at(SOCK_STREAM, "/nsmnt_cd/d/l", 1);
	if (sk < 0 || csk < 0 || lsk < 0 || listen(lsk, 8) || send(csk, "before", 6, 0) != 6)
		return -1;
	cli = sock_at(SOCK_STREAM, "/nsmnt_cd/d/l", 0);
	acc = cli < 0 ? -1 : accept(lsk, NULL, NULL);
	if (acc < 0 || chdir("/nsmnt_cd") || (rel = sock_at(SOCK_DGRAM, "rel", 1)) < 0)
		return -1;
	return unlink("/nsmnt_cd/sk") || unlink("/nsmnt_cd/d/l") || rmdir("/nsmnt_cd/d") || unlink("rel");
}

/* fd is named path, its file removed, on the child's tmpfs */
static int removed_here(int fd, const char *path)
{
	struct sockaddr_un a;
	socklen_t l = sizeof(a);
	struct stat fs, ts;
	int f = ioctl(fd, SIOCUNIXFILE);
	int ok = !getsockname(fd, (struct sockaddr *)&a, &l) && !strcmp(a.sun_path, path) && f >= 0 &&
		 !fstat(f, &fs) && S_ISSOCK(fs.st_mode) && fs.st_nlink == 0 && !stat("/nsmnt_cd", &ts) &&
		 fs.st_dev == ts.st_dev;
	if (f >= 0)
		close(f);
	return ok;
}

static int check(void)
{
	int bad = 0;
	if (!removed_here(sk, "/nsmnt_cd/sk"))
		bad |= 1;
	if (!removed_here(lsk, "/nsmnt_cd/d/l"))
		bad |= 2;
	if (!removed_here(rel, "rel"))
		bad |= 4;
	if (access("/nsmnt_cd/sk", F_OK) == 0 || access("/nsmnt_cd/d", F_OK) == 0 ||
	    access("/nsmnt_cd/rel", F_OK) == 0)
		bad |= 8;
	if (!got(sk, "before") || send(csk, "after", 5, 0) != 5 || !got(sk, "after"))
		bad |= 16;
	if (write(cli, "c", 1) != 1 || !got(acc, "c") || write(acc, "a", 1) != 1 || !got(cli, "a"))
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cd");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	DIR *d = opendir("/nsmnt_cd");
	struct dirent *de;
	int left = 0;
	while (d && (de = readdir(d)))
		left += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	CHECK(d && !left, "files left in /nsmnt_cd of the test's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: the dgram socket, 2: the listener, 4: the relative one (not named so, or not "
			  "their removed file on its tmpfs), 8: a file left at their paths in its namespace, "
			  "16: the queued message, 32: the stream connection");
	return test_pass();
}
