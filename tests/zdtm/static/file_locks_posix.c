/* POSIX (fcntl F_SETLK) locks, dumped and restored with --file-locks: a write lock on bytes [10, 110) and a
 * read lock from 200 to the end of one file, a write lock on the whole of another file. After restore
 * F_GETLK from another process sees them, owned by our pid, with the same ranges; the bytes between are
 * free; a write lock on the read-locked range is refused and a read lock there granted. The first file is
 * also mapped shared (restore maps it without closing an fd of it, which would drop the locks). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 20, B = 21 };

static int setlk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
	return fcntl(fd, cmd, &fl);
}

/* In a child: F_GETLK for type on [start, start+len) of path; writes "type pid start len" to the pipe. */
static int getlk(const char *path, short type, off_t start, off_t len, struct flock *out)
{
	int p[2];
	if (pipe(p))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
		int fd = open(path, O_RDWR);
		if (fd < 0 || fcntl(fd, F_GETLK, &fl))
			_exit(1);
		_exit(write(p[1], &fl, sizeof(fl)) == sizeof(fl) ? 0 : 1);
	}
	close(p[1]);
	int st, r = read(p[0], out, sizeof(*out)) == sizeof(*out) ? 0 : -1;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return r;
}

static void expect(const char *path, short type, off_t s, off_t l, short want, off_t ws, off_t wl)
{
	struct flock fl;
	if (getlk(path, type, s, l, &fl))
		fail("F_GETLK on %s failed", path);
	else if (fl.l_type != want ||
		 (want != F_UNLCK && (fl.l_pid != getpid() || fl.l_start != ws || fl.l_len != wl)))
		fail("%s [%lld,+%lld): type %d pid %d start %lld len %lld, want type %d pid %d start %lld "
		     "len %lld",
		     path, (long long)s, (long long)l, fl.l_type, fl.l_pid, (long long)fl.l_start,
		     (long long)fl.l_len, want, getpid(), (long long)ws, (long long)wl);
}

static void check(void)
{
	expect("posix_a.file", F_RDLCK, 0, 50, F_WRLCK, 10, 100);
	expect("posix_a.file", F_WRLCK, 110, 90, F_UNLCK, 0, 0);
	expect("posix_a.file", F_RDLCK, 300, 10, F_UNLCK, 0, 0);
	expect("posix_a.file", F_WRLCK, 300, 10, F_RDLCK, 200, 0);
	expect("posix_b.file", F_RDLCK, 5000, 1, F_WRLCK, 0, 0);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	open_at(A, "posix_a.file", O_RDWR | O_CREAT, "open a");
	open_at(B, "posix_b.file", O_RDWR | O_CREAT, "open b");
	if (ftruncate(A, 4096) || mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, A, 0) == MAP_FAILED)
		fail("mmap");
	if (setlk(A, F_SETLK, F_WRLCK, 10, 100) || setlk(A, F_SETLK, F_RDLCK, 200, 0) ||
	    setlk(B, F_SETLK, F_WRLCK, 0, 0))
		fail("F_SETLK");
	check();
	test_daemon();
	test_waitsig();
	check();
	pass();
	return 0;
}
