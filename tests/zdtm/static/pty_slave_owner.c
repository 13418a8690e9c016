/* A pty slave given to another owner and mode (fchown, fchmod) keeps them after restore. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct stat st;
	test_init(argc, argv);
	int s, m = pty_pair(O_RDWR | O_NOCTTY, O_RDWR | O_NOCTTY, &s);
	if (m < 0 || fchown(s, 1234, 5678) || fchmod(s, 0640))
		fail("slave");
	test_daemon();
	test_waitsig();
	if (fstat(s, &st))
		fail("fstat");
	else if (st.st_uid != 1234 || st.st_gid != 5678 || (st.st_mode & 07777) != 0640)
		fail("slave: owner %u:%u mode %o after restore, want 1234:5678 640", st.st_uid, st.st_gid,
		     st.st_mode & 07777);
	return test_pass();
}
