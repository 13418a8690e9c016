/* A mount tree without /proc (as CRIU's clean_mntns leaves it) whose fds need crshim's restore to open
 * things through /proc/self: two open file descriptions of a pipe's read end (the second a reopen through
 * /proc/self/fd made before /proc went, O_NONBLOCK), data in the pipe, and a namespace file (its UTS
 * namespace). After restore the two read ends are still two descriptions of one pipe (kcmp) with their
 * flags, the data comes through the second, and the namespace file is the task's UTS namespace (setns
 * to it keeps the hostname just set). Before, the restore failed "open /proc/self/fd/N: No such file or
 * directory". */
#include <linux/kcmp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include "nsmnt.h"

#define R2 40  /* the second description of the read end */
#define NSF 41 /* /proc/self/ns/uts */

int main(int argc, char **argv)
{
	int p[2];
	char buf[16] = "", path[64];
	struct stat b;
	test_init(argc, argv);
	CHECK(!pipe(p) && write(p[1], "through", 7) == 7, "pipe");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	open_at(R2, path, O_RDONLY | O_NONBLOCK, "reopen the read end");
	open_at(NSF, "/proc/self/ns/uts", O_RDONLY, "open /proc/self/ns/uts");
	CHECK(!umount2("/proc", MNT_DETACH), "umount /proc");
	umount2("/dev/pts", MNT_DETACH); /* not every root has one */
	CHECK(access("/proc/self", F_OK), "/proc/self still there");
	test_daemon();
	test_waitsig();

	pid_t me = getpid();
	CHECK(syscall(SYS_kcmp, me, me, KCMP_FILE, p[0], R2) > 0, "the two read ends are one description");
	CHECK((fcntl(R2, F_GETFL) & O_NONBLOCK) && !(fcntl(p[0], F_GETFL) & O_NONBLOCK), "flags of the ends");
	CHECK(read(R2, buf, sizeof(buf) - 1) == 7 && !strcmp(buf, "through"), "read '%s' through fd %d", buf,
	      R2);
	char host[64] = "";
	CHECK(!fstat(NSF, &b) && !sethostname("nsfile-check", 12) && !setns(NSF, CLONE_NEWUTS) &&
		  !gethostname(host, sizeof(host)) && !strcmp(host, "nsfile-check"),
	      "the namespace file is not the task's UTS namespace (hostname '%s')", host);
	pass();
	return 0;
}
