/* inotify: watches on a directory (IN_CREATE|IN_DELETE), on a file (IN_MODIFY|IN_CLOSE_WRITE) and, after
 * a watch was added and removed (so wd 3 is unused), on a second file (wd 4, IN_ATTRIB|IN_ONESHOT).
 * After restore the watch list is the same (fdinfo: wd, inode, mask), new events come with the right
 * wds, and inotify_rm_watch by the old wds works. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

static void watches(int fd, char *out, size_t len)
{
	inotify_watch_list(fd, 1, out, len);
}

int main(int argc, char **argv)
{
	int fd, w1, w2, w3, w4, f;

	test_init(argc, argv);
	if (mkdir("inotify.d", 0755) || close(open("inotify.d/a", O_CREAT | O_WRONLY, 0644)) ||
	    close(open("inotify.d/b", O_CREAT | O_WRONLY, 0644)) ||
	    close(open("inotify.d/c", O_CREAT | O_WRONLY, 0644)))
		fail("setup files");
	fd = inotify_init1(IN_NONBLOCK);
	w1 = inotify_add_watch(fd, "inotify.d", IN_CREATE | IN_DELETE);
	w2 = inotify_add_watch(fd, "inotify.d/a", IN_MODIFY | IN_CLOSE_WRITE);
	w3 = inotify_add_watch(fd, "inotify.d/c", IN_OPEN);
	if (fd < 0 || w1 != 1 || w2 != 2 || w3 != 3 || inotify_rm_watch(fd, w3))
		fail("watches %d %d %d", w1, w2, w3);
	w4 = inotify_add_watch(fd, "inotify.d/b", IN_ATTRIB | IN_ONESHOT);
	if (w4 != 4)
		fail("wd %d, want 4", w4);
	while (inotify_event_for(fd, -2, 0) == 0) /* the IN_IGNORED of wd 3 */
		;
	cr_same_state(fd, watches, "watches");

	if ((fcntl(fd, F_GETFL) & O_NONBLOCK) == 0)
		fail("IN_NONBLOCK lost");
	f = open("inotify.d/new", O_CREAT | O_WRONLY, 0644);
	if (f < 0 || inotify_event_for(fd, w1, IN_CREATE))
		fail("no IN_CREATE for wd %d", w1);
	close(f);
	f = open("inotify.d/a", O_WRONLY);
	if (f < 0 || write(f, "x", 1) != 1 || inotify_event_for(fd, w2, IN_MODIFY))
		fail("no IN_MODIFY for wd %d", w2);
	close(f);
	if (chmod("inotify.d/b", 0600) || inotify_event_for(fd, w4, IN_ATTRIB))
		fail("no IN_ATTRIB for wd %d", w4);
	if (inotify_rm_watch(fd, w1) || inotify_rm_watch(fd, w2))
		fail("inotify_rm_watch by the old wds");
	pass();
	return 0;
}
