/* Helpers of the pty queue tests (static/pty_queue_*): a pty pair, exact reads with a bound wait. */
#ifndef ZDTM_PTYQ_H
#define ZDTM_PTYQ_H
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

/* A pty pair; the master with mflags (O_NONBLOCK or 0). */
static inline int ptyq_open(int *m, int *s, int mflags)
{
	*m = posix_openpt(O_RDWR | O_NOCTTY | mflags);
	if (*m < 0 || grantpt(*m) || unlockpt(*m))
		return -1;
	*s = open(ptsname(*m), O_RDWR | O_NOCTTY);
	return *s < 0 ? -1 : 0;
}

/* Wait until fd is readable (ms), 1 if so. */
static inline int ptyq_ready(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, ms) == 1;
}

/* Exactly n bytes, read as they come (raw, or the master's side). */
static inline int ptyq_readn(int fd, unsigned char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		if (!ptyq_ready(fd, 5000))
			return (int)got;
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			return (int)got;
		got += (size_t)r;
	}
	return (int)got;
}

/* fd holds exactly want (n bytes) and nothing more. skip: bytes to drop in front of each read (packet). */
static inline int ptyq_expect(int fd, const void *want, size_t n, int skip, const char *what)
{
	unsigned char buf[8192] = {0};
	size_t got = 0;
	while (got < n + 1 && ptyq_ready(fd, got < n ? 5000 : 200)) {
		ssize_t r = read(fd, buf + got, sizeof(buf) - got);
		if (r <= 0)
			break;
		if (skip && buf[got] != 0) {
			fail("%s: packet status %#x instead of data", what, buf[got]);
			return -1;
		}
		memmove(buf + got, buf + got + skip, (size_t)r - (size_t)skip);
		got += (size_t)r - (size_t)skip;
	}
	if (got != n || memcmp(buf, want, n)) {
		size_t i = 0;
		while (i < got && i < n && buf[i] == ((const unsigned char *)want)[i])
			i++;
		fail("%s: %zu bytes instead of %zu, first difference at %zu", what, got, n, i);
		return -1;
	}
	return 0;
}

/* One canonical read returns exactly the line want (n bytes; n 0: an end of file). */
static inline int ptyq_line(int fd, const char *want, size_t n, const char *what)
{
	char buf[4096];
	if (!ptyq_ready(fd, 5000)) {
		fail("%s: no line", what);
		return -1;
	}
	ssize_t r = read(fd, buf, sizeof(buf));
	if (r != (ssize_t)n || memcmp(buf, want, n)) {
		fail("%s: read %zd bytes (%.*s), want %zu (%.*s)", what, r, r > 0 ? (int)r : 0, buf, n,
		     (int)n, want);
		return -1;
	}
	return 0;
}

static inline int ptyq_same_termios(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
	       a->c_lflag == b->c_lflag && !memcmp(a->c_cc, b->c_cc, NCCS);
}

/* fd polls writable within ms: 1 if so. */
static inline int ptyq_writable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	return poll(&p, 1, ms) == 1 && (p.revents & POLLOUT);
}

/* Until fd is not writable (a typed char on its way), bounded: 1 if so. */
static inline int ptyq_wait_stopped(int fd)
{
	for (int i = 0; i < 500; i++) {
		if (!ptyq_writable(fd, 0))
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Wait (bounded) until the line discipline of fd counts n bytes (FIONREAD). */
static inline void ptyq_wait_inq(int fd, int n)
{
	int v = 0;
	for (int i = 0; i < 500 && (ioctl(fd, FIONREAD, &v) || v < n); i++)
		usleep(10000);
}
#endif
