/* nsmnt_child_ghostfs with O_PATH fds of nodes: a FIFO (fd 7, mode 0604) and the node of a unix socket
 * bound and closed since (fd 8, mode 0651), both made on a tmpfs the child mounted in its own mount
 * namespace (the root's namespace has the directory of their path on another filesystem), then unlinked.
 * After restore each fd is an unlinked node of its type with its mode, on the child's tmpfs (st_dev), named
 * "PATH (deleted)"; a child of the child (forked once its namespace stands) holds the FIFO too, by an open
 * of its own (fd 9): the same inode (bit 128; the child makes it once for both: rst_ghost_share_copies). */
#include <sys/socket.h>
#include <sys/un.h>

#include "nsmnt.h"

#define FFD 7
#define SFD 8
#define FIFO "/nsmnt_gn/m/d/fifo"
#define SOCK "/nsmnt_gn/m/d/sock"
#define KFD 9

static pid_t kid;

static int setup(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (ghostfs_own("/nsmnt_gn"))
		return 1;
	write_file_p("/nsmnt_gn/m/d/x", "x");
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", SOCK);
	int sk = socket(AF_UNIX, SOCK_STREAM, 0);
	if (mkfifo(FIFO, 0600) || chmod(FIFO, 0604) || sk < 0 || bind(sk, (struct sockaddr *)&a, sizeof(a)) ||
	    close(sk) || chmod(SOCK, 0651))
		return 1;
	open_at(FFD, FIFO, O_PATH, FIFO);
	open_at(SFD, SOCK, O_PATH, SOCK);
	int p[2];
	char c;
	if (pipe(p) || (kid = fork()) < 0)
		return 1;
	if (!kid) {
		close(FFD);
		close(SFD);
		open_at(KFD, FIFO, O_PATH, FIFO);
		if (write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		return 1;
	close(p[0]);
	return unlink(FIFO) || unlink(SOCK);
}

/* fd: an unlinked node of type (S_IFIFO, S_IFSOCK) with mode at path on our tmpfs: 0, or bits << shift
 * (ghostfs_copy's, 8: another type or mode) */
static int node_at(int fd, mode_t type, mode_t mode, const char *path, int shift)
{
	struct stat st;
	char l[32];
	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st))
		return 8 << shift;
	int bad = ghostfs_copy(&st, "/nsmnt_gn/m/d", l, path);
	if ((st.st_mode & S_IFMT) != type || (st.st_mode & 07777) != mode)
		bad |= 8;
	return bad << shift;
}

static int check(void)
{
	struct stat a, b;
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)kid, KFD);
	int same = !stat(p, &b) && !fstat(FFD, &a) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return node_at(FFD, S_IFIFO, 0604, FIFO, 0) | node_at(SFD, S_IFSOCK, 0651, SOCK, 4) |
	       (same ? 0 : 128);
}

int main(int argc, char **argv)
{
	nsmnt_ghostfs(
	    argc, argv, "/nsmnt_gn", setup, check,
	    "the FIFO's fd 1: not unlinked, 2: not on its tmpfs, 4: not named PATH (deleted), 8: "
	    "not a FIFO of its mode; the socket node's: the same << 4; 128: its child's fd 9 another inode");
	return test_pass();
}
