/* A process holds a file through a bind mount that only its child's mount namespace has (opened through
 * /proc/CHILD/root: CRIU's inotify01 holds one so), its own namespace a bind of the same directory at the
 * same place; built with NSMNT_DOWN_WATCH, it watches the root of a tmpfs only its child's namespace has
 * instead. After restore the fd is on the child's mount again (its mount id is that of the child's
 * /nsmnt_dn, not its own's), the watch sees a file the child makes there. Before, the fd came back silently
 * on the process's own bind, and the watch was refused at dump. */
#include <sys/inotify.h>
#include "nsmnt.h"

#define DOWNFD 7

static int setup(void)
{
#ifdef NSMNT_DOWN_WATCH
	if (mount("nsmnt", "/nsmnt_dn", "tmpfs", 0, "size=1m"))
		return 1;
	write_file("/nsmnt_dn/f", "down");
#else
	if (umount("/nsmnt_dn") || mount("/nsmnt_dn_src", "/nsmnt_dn", NULL, MS_BIND, NULL))
		return 1;
#endif
	return 0;
}

static int check(void)
{
	if (!file_is("/nsmnt_dn/f", "down"))
		return 1;
#ifdef NSMNT_DOWN_WATCH
	write_file("/nsmnt_dn/new", "x"); /* (its parent's watch sees it) */
#endif
	return 0;
}

#ifndef NSMNT_DOWN_WATCH
/* the id of the mount at mp in task pid's mountinfo, -1 */
static int mnt_id_of(pid_t pid, const char *mp)
{
	char p[64], l[4096], m[512];
	int id, found = -1;
	snprintf(p, sizeof(p), "/proc/%d/mountinfo", (int)pid);
	FILE *f = fopen(p, "r");
	while (f && fgets(l, sizeof(l), f))
		if (sscanf(l, "%d %*d %*s %*s %511s", &id, m) == 2 && !strcmp(m, mp))
			found = id;
	if (f)
		fclose(f);
	return found;
}
#endif

int main(int argc, char **argv)
{
	char p[64];
	test_init(argc, argv);
	mkdirs("/nsmnt_dn");
#ifndef NSMNT_DOWN_WATCH
	must_mount("nsmnt", "/nsmnt_dn_src", "tmpfs", 0, "size=1m");
	write_file("/nsmnt_dn_src/f", "down");
	must_mount("/nsmnt_dn_src", "/nsmnt_dn", NULL, MS_BIND, NULL);
#endif
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
#ifdef NSMNT_DOWN_WATCH
	int in = inotify_init1(IN_NONBLOCK);
	snprintf(p, sizeof(p), "/proc/%d/root/nsmnt_dn", (int)ch);
	if (in < 0 || inotify_add_watch(in, p, IN_CREATE) < 0)
		fail("inotify watch of %s", p);
#else
	snprintf(p, sizeof(p), "/proc/%d/root/nsmnt_dn/f", (int)ch);
	open_at(DOWNFD, p, O_RDONLY, "open the child's file");
#endif
	test_daemon();
	test_waitsig();
#ifndef NSMNT_DOWN_WATCH
	int id = fd_mnt_id(DOWNFD);
	CHECK(id >= 0 && id == mnt_id_of(ch, "/nsmnt_dn") && id != mnt_id_of(getpid(), "/nsmnt_dn"),
	      "fd 7 on mount %d: not the child's /nsmnt_dn (%d)", id, mnt_id_of(ch, "/nsmnt_dn"));
#endif
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: the child's file lost");
#ifdef NSMNT_DOWN_WATCH
	char ev[512];
	ssize_t r = read(in, ev, sizeof(ev));
	const struct inotify_event *e = (const void *)ev;
	CHECK(r >= (ssize_t)sizeof(*e) && (e->mask & IN_CREATE) && e->len && !strcmp(e->name, "new"),
	      "no IN_CREATE of new through the watch (read %zd)", r);
#endif
	return test_pass();
}
