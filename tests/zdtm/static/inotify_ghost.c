/* inotify watches of removed files (CRIU's inotify00): a file held open read-write and watched
 * (IN_CLOSE_WRITE|IN_ATTRIB), its directory watched (IN_CREATE), and a file with data watched after its
 * fd was closed, both files removed before the dump (only the watch holds the second). After restore the
 * watch list has the same wds and masks, the first watch is on the inode of the open fd again (its
 * fchmod and close come as IN_ATTRIB and IN_CLOSE_WRITE with its wd), and a file made again in the
 * directory comes as IN_CREATE. Before, the dump refused "the watched file ... is deleted". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

/* the next event (waits up to 2 s); 0 if none */
static int next_event(int in, int *wd, uint32_t *mask, char *name, size_t nlen)
{
	static char buf[4096] __attribute__((aligned(8)));
	static ssize_t have, at;
	for (int i = 0; i < 200 && at >= have; i++) {
		have = read(in, buf, sizeof(buf)), at = 0;
		if (have < 0 && errno == EAGAIN)
			usleep(10000);
	}
	if (at >= have)
		return 0;
	struct inotify_event *ev = (struct inotify_event *)(buf + at);
	*wd = ev->wd, *mask = ev->mask;
	snprintf(name, nlen, "%s", ev->len ? ev->name : "");
	at += (ssize_t)(sizeof(*ev) + ev->len);
	return 1;
}

static void drain(int in)
{
	int wd;
	uint32_t m;
	char n[256];
	while (next_event(in, &wd, &m, n, sizeof(n)))
		;
}

/* an event with wd and mask bits want (others skipped) */
static int expect(int in, int want_wd, uint32_t want, const char *name)
{
	int wd;
	uint32_t m;
	char n[256];
	while (next_event(in, &wd, &m, n, sizeof(n)))
		if (wd == want_wd && (m & want) && (!name || !strcmp(n, name)))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	char before[256], after[256];
	test_init(argc, argv);
	if (mkdir("d", 0700))
		fail("mkdir d");
	int in = inotify_init1(IN_NONBLOCK);
	int fd = open("d/held", O_RDWR | O_CREAT, 0644), g = open("d/gone", O_RDWR | O_CREAT, 0600);
	if (in < 0 || fd < 0 || g < 0 || write(fd, "held", 4) != 4 || write(g, "gone-data", 9) != 9 ||
	    close(g))
		fail("setup");
	int dwd = inotify_add_watch(in, "d", IN_CREATE);
	int hwd = inotify_add_watch(in, "d/held", IN_CLOSE_WRITE | IN_ATTRIB);
	int gwd = inotify_add_watch(in, "d/gone", IN_DELETE_SELF | IN_MODIFY);
	if (dwd < 0 || hwd < 0 || gwd < 0 || unlink("d/held") || unlink("d/gone"))
		fail("watch and unlink");
	drain(in);
	inotify_watch_list(in, 0, before, sizeof(before)); /* (inodes change) */
	test_daemon();
	test_waitsig();

	inotify_watch_list(in, 0, after, sizeof(after));
	if (strcmp(before, after))
		fail("watches '%s', want '%s'", after, before);
	if (fchmod(fd, 0600) || !expect(in, hwd, IN_ATTRIB, NULL))
		fail("no IN_ATTRIB on wd %d after fchmod of the held file", hwd);
	if (close(fd) || !expect(in, hwd, IN_CLOSE_WRITE, NULL))
		fail("no IN_CLOSE_WRITE on wd %d after close of the held file", hwd);
	int n = open("d/new", O_RDWR | O_CREAT, 0600);
	if (n < 0 || close(n) || !expect(in, dwd, IN_CREATE, "new"))
		fail("no IN_CREATE of d/new on wd %d", dwd);
	pass();
	return 0;
}
