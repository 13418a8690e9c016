/* Files taken by the root task from crshim in the restore's late step: late-fds.h. */
#define LOG_PREFIX "late-fds: "
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/late-fds.h"
#include "base/log.h"
#include "base/scm.h"

#define LATE_BATCH 200 /* fds per message (SCM_MAX_FD is 253) */

static int crshim_pidfd = -1; /* pull */
static int sk[2] = {-1, -1};  /* push: crshim's end [0], the root's [1] */
static int *offered;	      /* push: the numbers crshim offered */
static bool pushed;	      /* push (kept in the tree's processes: files/ghost.h) */
static size_t n_offered, cap_offered;

int late_fds_open(bool push, struct cr_err *e)
{
	if (!push) {
		if (crshim_pidfd < 0 && (crshim_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0)) < 0)
			return cr_fail_sys(e, "pidfd_open of crshim");
		return 0;
	}
	if (sk[0] < 0 && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sk))
		return cr_fail_sys(e, "a socket pair for the files the root task takes");
	pushed = true;
	return 0;
}

bool late_fds_pushed(void)
{
	return pushed;
}

int late_fd_offer(int fd)
{
	if (sk[0] < 0)
		return 0;
	if (n_offered == cap_offered) {
		size_t c = cap_offered ? cap_offered * 2 : 16;
		int *v = realloc(offered, c * sizeof(*v));
		if (!v)
			return -1;
		offered = v, cap_offered = c;
	}
	offered[n_offered++] = fd;
	return 0;
}

/* One message: the numbers as data, the fds as SCM_RIGHTS. */
static int send_batch(int to, const int *fds, size_t n)
{
	struct iovec iov = {.iov_base = (void *)fds, .iov_len = n * sizeof(int)};
	return scm_send(to, &iov, 1, fds, n) == (ssize_t)(n * sizeof(int)) ? 0 : -1;
}

int late_fds_push(int to, const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i += LATE_BATCH)
		if (send_batch(to, fds + i, n - i < LATE_BATCH ? n - i : LATE_BATCH))
			return -1;
	/* the end: an empty message */
	return send(to, "", 0, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

int late_fds_send(struct cr_err *e)
{
	if (sk[0] < 0)
		return 0;
	if (late_fds_push(sk[0], offered, n_offered))
		return cr_fail_sys(e, "send %zu files to the root task", n_offered);
	pr_info("%zu files sent to the root task\n", n_offered);
	return 0;
}

int late_fds_pull(int from, char *msg, size_t len)
{
	for (;;) {
		int nums[LATE_BATCH], fds[LATE_BATCH], fl;
		size_t nf;
		struct iovec iov = {.iov_base = nums, .iov_len = sizeof(nums)};
		ssize_t r = scm_recv(from, &iov, 1, fds, LATE_BATCH, &nf, &fl);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (fl & MSG_CTRUNC)) {
			for (size_t i = 0; r >= 0 && i < nf; i++)
				close(fds[i]);
			snprintf(msg, len, "the files from crshim: %s",
				 r < 0 ? strerror(errno) : "more than it can take");
			return -1;
		}
		if (r == 0)
			break;
		size_t n = (size_t)r / sizeof(int);
		if (nf != n || (size_t)r != n * sizeof(int)) {
			for (size_t i = 0; i < nf; i++)
				close(fds[i]);
			snprintf(msg, len, "the files from crshim: a bad message");
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			if (fds[i] != nums[i] && dup3(fds[i], nums[i], O_CLOEXEC) < 0) {
				snprintf(msg, len, "the files from crshim: fd %d: %s", nums[i],
					 strerror(errno));
				return -1;
			}
			if (fds[i] != nums[i])
				close(fds[i]);
		}
	}
	return 0;
}

int late_fds_recv(char *msg, size_t len)
{
	if (sk[1] < 0)
		return 0;
	if (late_fds_pull(sk[1], msg, len))
		return -1;
	close(sk[1]);
	close(sk[0]);
	sk[0] = sk[1] = -1;
	return 0;
}

int late_fd_take(int fd)
{
	if (crshim_pidfd >= 0)
		return (int)syscall(SYS_pidfd_getfd, crshim_pidfd, fd, 0);
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

void late_fds_close(void)
{
	if (crshim_pidfd >= 0)
		close(crshim_pidfd);
	for (int i = 0; i < 2; i++)
		if (sk[i] >= 0)
			close(sk[i]);
	crshim_pidfd = sk[0] = sk[1] = -1;
	pushed = false;
	free(offered);
	offered = NULL;
	n_offered = cap_offered = 0;
}
