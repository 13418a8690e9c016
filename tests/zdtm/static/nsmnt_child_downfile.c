/* A process holds a file through a bind mount that only its child's mount namespace has (opened through
 * /proc/CHILD/root: CRIU's inotify01 holds one so), its own namespace a bind of the same directory at the
 * same place; built with NSMNT_DOWN_WATCH, it watches the directory of a tmpfs only its child's namespace has
 * instead. Not restored yet (the file would be opened on its own bind, silently): the dump refuses it with
 * one line (.desc dump-expect), the tree keeps running. */
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
	return file_is("/nsmnt_dn/f", "down") ? 0 : 1;
}

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
	if (in < 0 || inotify_add_watch(in, p, IN_CREATE | IN_DELETE) < 0)
		fail("inotify watch of %s", p);
#else
	snprintf(p, sizeof(p), "/proc/%d/root/nsmnt_dn/f", (int)ch);
	open_at(DOWNFD, p, O_RDONLY, "open the child's file");
#endif
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: the child's file lost");
	return test_pass();
}
