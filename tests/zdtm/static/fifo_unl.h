/* The tests of an unlinked FIFO ("u.fifo" in the test's dir, 40 bytes in flight) whose open file
 * descriptions the test and its children hold, each its own (fifo_unl_two_desc, nsmnt_child_fifo_unl*). */
#ifndef ZDTM_FIFO_UNL_H
#define ZDTM_FIFO_UNL_H
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 50, B = 51, C = 52, FIFO_INFLIGHT = 40 };

/* The FIFO opened (O_RDWR, never blocks) at fd, its 40 bytes written. */
static inline void fifo_unl_make(int fd)
{
	char buf[FIFO_INFLIGHT];
	int f = mkfifo("u.fifo", 0600) ? -1 : open("u.fifo", O_RDWR | O_NONBLOCK);
	if (f < 0 || dup2(f, fd) != fd || close(f) ||
	    write(fd, memset(buf, 'w', sizeof(buf)), sizeof(buf)) != sizeof(buf))
		fail("make u.fifo at fd %d", fd);
}

static inline void fifo_unl_unlink(void)
{
	if (unlink("u.fifo"))
		fail("unlink u.fifo");
}

/* A new open file description of the FIFO at fd from, at fd to (through /proc/self/fd); 0 if done. */
static inline int fifo_reopen(int from, int to)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", from);
	int f = open(p, O_RDWR | O_NONBLOCK);
	return f < 0 || dup2(f, to) != to || close(f);
}

/* In a child, after restore: fd is an unlinked FIFO (else 1); "child" written through it (else 2). */
static inline int fifo_check_kid(int fd)
{
	struct stat st;
	if (fstat(fd, &st) || st.st_nlink || !S_ISFIFO(st.st_mode))
		return 1;
	return write(fd, "child", 5) != 5 ? 2 : 0;
}

/* The child ch's fd is the inode of st. */
static inline int fifo_kid_is(pid_t ch, int fd, const struct stat *st)
{
	char p[64];
	struct stat k;
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)ch, fd);
	return !stat(p, &k) && k.st_dev == st->st_dev && k.st_ino == st->st_ino;
}

/* A new description (O_RDONLY) of the child ch's fd, at fd at (through /proc/ch/fd); fail() if not. */
static inline void fifo_kid_open(pid_t ch, int fd, int at)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)ch, fd);
	int f = open(p, O_RDONLY | O_NONBLOCK);
	if (f < 0 || dup2(f, at) != at || close(f))
		fail("open %s", p);
}
/* After restore: fd is an unlinked FIFO, the inode of the child ch's fd kfd, with the 40 bytes in flight. */
static inline void fifo_unl_expect(int fd, pid_t ch, int kfd)
{
	struct stat st;
	char buf[128];
	if (fstat(fd, &st) || st.st_nlink || !S_ISFIFO(st.st_mode))
		fail("fd %d is not an unlinked FIFO", fd);
	else if (!fifo_kid_is(ch, kfd, &st))
		fail("fd %d (ino %lu) and the child's fd %d are not one FIFO", fd, (unsigned long)st.st_ino,
		     kfd);
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n != FIFO_INFLIGHT)
		fail("the data in flight: %zd bytes, want %d", n, FIFO_INFLIGHT);
}

/* The child ch writes (SIGUSR1: fifo_check_kid), exits 0; its 5 bytes are read through fd. */
static inline void fifo_kid_write(pid_t ch, int fd)
{
	char buf[16];
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its fd not an unlinked FIFO, 2: its write");
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n != 5 || memcmp(buf, "child", 5))
		fail("the child's 5 bytes through another description (fd %d): read %zd", fd, n);
}
#endif
