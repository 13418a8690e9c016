/* Deleted FIFO and socket nodes. fd 70: a FIFO opened O_RDWR with data in flight, owned by 1234:4321,
 * mode 0640, unlinked; fd 71: an O_PATH fd of another FIFO (owner 1234:4321, mode 0604, times set), unlinked;
 * fd 72: an O_PATH fd of the node of a unix socket bound there and closed since (owner 1234:4321, mode 0651),
 * unlinked; fd 73: an O_PATH fd of the node of a listener (fd 74) bound at gfn.live, kept. After restore each
 * is of its type again, unlinked, named "PATH (deleted)", with its owner, mode (and for the O_PATH ones, its
 * times); fd 70 still carries its data; a connect through fd 73 reaches fd 74. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { FIFO = 70, PFIFO = 71, PSOCK = 72, LSOCK = 73, LIVE = 74 };
static const struct timespec times[2] = {{1000000001, 0}, {1000000000, 0}};

static void node(int fd, const char *name, unsigned type, unsigned mode, bool times_too, const char *cwd)
{
	struct stat st;
	char p[64], l[4200] = "", want[4200];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	snprintf(want, sizeof(want), "%s/%s (deleted)", cwd, name);
	if (readlink(p, l, sizeof(l) - 1) < 0 || strcmp(l, want))
		fail("fd %d -> %s, want %s", fd, l, want);
	if (fstat(fd, &st) || (st.st_mode & S_IFMT) != type || (st.st_mode & 07777) != mode ||
	    st.st_uid != 1234 || st.st_gid != 4321 || st.st_nlink || !access(name, F_OK))
		fail("fd %d: mode %o (want %o), owner %u:%u, nlink %lu", fd, st.st_mode, type | mode,
		     st.st_uid, st.st_gid, (unsigned long)st.st_nlink);
	if (times_too && (st.st_atim.tv_sec != times[0].tv_sec || st.st_mtim.tv_sec != times[1].tv_sec))
		fail("fd %d: times %ld %ld", fd, (long)st.st_atim.tv_sec, (long)st.st_mtim.tv_sec);
}

static void make(const char *name, unsigned mode)
{
	if (chown(name, 1234, 4321) || chmod(name, mode) || utimensat(AT_FDCWD, name, times, 0))
		fail("chown %s", name);
}

int main(int argc, char **argv)
{
	char cwd[4000], buf[8] = "";
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	test_init(argc, argv);
	if (!getcwd(cwd, sizeof(cwd)) || mkfifo("gfn.fifo", 0600) || mkfifo("gfn.pfifo", 0600))
		fail("mkfifo");
	make("gfn.fifo", 0640);
	make("gfn.pfifo", 0604);
	open_at(FIFO, "gfn.fifo", O_RDWR, "open gfn.fifo");
	open_at(PFIFO, "gfn.pfifo", O_PATH, "open gfn.pfifo");
	snprintf(a.sun_path, sizeof(a.sun_path), "gfn.sock");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)))
		fail("bind gfn.sock");
	close(s);
	make("gfn.sock", 0651);
	open_at(PSOCK, "gfn.sock", O_PATH, "open gfn.sock");
	snprintf(a.sun_path, sizeof(a.sun_path), "gfn.live");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || dup2(s, LIVE) != LIVE || bind(LIVE, (struct sockaddr *)&a, sizeof(a)) || listen(LIVE, 4))
		fail("bind gfn.live");
	close(s);
	open_at(LSOCK, "gfn.live", O_PATH, "open gfn.live");
	if (write(FIFO, "abc", 3) != 3 || unlink("gfn.fifo") || unlink("gfn.pfifo") || unlink("gfn.sock"))
		fail("unlink");
	test_daemon();
	test_waitsig();
	node(FIFO, "gfn.fifo", S_IFIFO, 0640, false, cwd);
	node(PFIFO, "gfn.pfifo", S_IFIFO, 0604, true, cwd);
	node(PSOCK, "gfn.sock", S_IFSOCK, 0651, true, cwd);
	if (read(FIFO, buf, sizeof(buf)) != 3 || strcmp(buf, "abc"))
		fail("fd 70: data %s", buf);
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d", LSOCK);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) || accept(LIVE, NULL, NULL) < 0)
		fail("fd 73 (O_PATH of gfn.live) no longer reaches its listener, fd 74");
	pass();
	return 0;
}
