/* flock() locks (dump and restore with --file-locks): an exclusive lock on one file through fd A (and its
 * dup C), a shared lock on another through fd B. After restore another process cannot take the exclusive
 * lock, can share the shared one but not make it exclusive; fdinfo lists the locks on the right fds;
 * unlocking through the dup C frees the file (one description). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 30, B = 31, C = 32 };

/* In a child: try flock(op) on a new open of path; 0 if it got it, 1 if EWOULDBLOCK, 2 on other errors. */
static int try_flock(const char *path, int op)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			_exit(2);
		if (!flock(fd, op | LOCK_NB))
			_exit(0);
		_exit(errno == EWOULDBLOCK ? 1 : 2);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}

static int has_lock(int fd, const char *what)
{
	char *buf;
	if (fdinfo_read(fd, &buf) < 0)
		return 0;
	int r = strstr(buf, what) != NULL;
	free(buf);
	return r;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	open_at(A, "flock_ex.file", O_RDWR | O_CREAT, "open ex");
	if (dup2(A, C) != C)
		fail("open ex");
	open_at(B, "flock_sh.file", O_RDONLY | O_CREAT, "open sh");
	if (flock(A, LOCK_EX) || flock(B, LOCK_SH))
		fail("flock");
	if (try_flock("flock_ex.file", LOCK_SH) != 1 || try_flock("flock_sh.file", LOCK_EX) != 1)
		fail("locks not effective before the dump");
	test_daemon();
	test_waitsig();

	if (!has_lock(A, "FLOCK  ADVISORY  WRITE") || !has_lock(B, "FLOCK  ADVISORY  READ"))
		fail("fdinfo does not list the locks");
	if (try_flock("flock_ex.file", LOCK_SH) != 1)
		fail("the exclusive lock is gone");
	if (try_flock("flock_sh.file", LOCK_SH) != 0)
		fail("the shared lock cannot be shared");
	if (try_flock("flock_sh.file", LOCK_EX) != 1)
		fail("the shared lock is gone");
	if (flock(C, LOCK_UN) || try_flock("flock_ex.file", LOCK_EX) != 0)
		fail("unlocking through the dup does not free the file");
	pass();
	return 0;
}
