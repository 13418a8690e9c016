/* inotify on a tmpfs of the tree's own mount tree: an instance held by the test and its child (made once
 * by crshim for both) watching the tmpfs's directory (IN_CREATE) and a file in it (IN_MODIFY), and one the
 * test alone holds watching the file (IN_ATTRIB). The dump finds the watched inodes where the test sees them
 * (the tmpfs is not mounted where crshim runs); after restore the events of the tmpfs's inodes come with
 * the same wds. */
#include <sys/inotify.h>
#include <sys/wait.h>
#include "nsmnt.h"

enum { SH = 20, OWN = 21 };

int main(int argc, char **argv)
{
	int ctl[2];
	char c;
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_in", "tmpfs", 0, NULL);
	write_file("/nsmnt_in/f", "x");
	int a = inotify_init1(IN_NONBLOCK), b = inotify_init1(IN_NONBLOCK);
	if (a < 0 || b < 0 || dup2(a, SH) != SH || dup2(b, OWN) != OWN || close(a) || close(b))
		fail("inotify_init1");
	int wdir = inotify_add_watch(SH, "/nsmnt_in", IN_CREATE);
	int wfile = inotify_add_watch(SH, "/nsmnt_in/f", IN_MODIFY);
	int wown = inotify_add_watch(OWN, "/nsmnt_in/f", IN_ATTRIB);
	if (wdir < 0 || wfile < 0 || wown < 0 || pipe(ctl))
		fail("watches");
	pid_t ch = test_fork();
	if (ch == 0) {
		close(OWN);
		_exit(read(ctl[0], &c, 1) == 1 ? 0 : 1); /* holds SH until the end */
	}
	if (ch < 0)
		fail("fork");
	test_daemon();
	test_waitsig();

	write_file("/nsmnt_in/f", "changed");
	CHECK(!inotify_event_for(SH, wfile, IN_MODIFY), "no IN_MODIFY of the tmpfs's file for wd %d", wfile);
	write_file("/nsmnt_in/new", "");
	CHECK(!inotify_event_for(SH, wdir, IN_CREATE), "no IN_CREATE in the tmpfs's directory for wd %d",
	      wdir);
	CHECK(!chmod("/nsmnt_in/f", 0600) && !inotify_event_for(OWN, wown, IN_ATTRIB),
	      "no IN_ATTRIB for wd %d", wown);
	if (write(ctl[1], "g", 1) != 1)
		fail("write");
	child_exit_ok(ch, "1: read");
	return test_pass();
}
