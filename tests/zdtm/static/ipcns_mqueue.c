/* POSIX message queues in the tree's own IPC namespace: /nsworld_q1 (mode 0640, 8 messages of up to 256
 * bytes) holding 3 messages of priorities 1, 9, 1 and /nsworld_q2 empty (none held open: an open mqd is a
 * file the files code does not know yet). After the restore the namespace is ours, the queues have the same
 * attributes and mode, and the messages come out highest priority first, oldest first within one, with the
 * same contents. */
#include <mqueue.h>
#include "ns_world.h"

int main(int argc, char **argv)
{
	struct mq_attr at = {.mq_maxmsg = 8, .mq_msgsize = 256}, got = {0};
	unsigned long host = nsw_init(argc, argv, CLONE_NEWIPC, "ipc");
	mqd_t q = mq_open("/nsworld_q1", O_RDWR | O_CREAT | O_EXCL, 0640, &at);
	mqd_t q2 = mq_open("/nsworld_q2", O_RDWR | O_CREAT | O_EXCL, 0600, &at);
	if (q == (mqd_t)-1 || q2 == (mqd_t)-1)
		fail("setup: mq_open");
	mq_close(q2);
	if (mq_send(q, "first", 5, 1) || mq_send(q, "urgent!", 7, 9) || mq_send(q, "second", 6, 1))
		fail("setup: mq_send");
	mq_close(q);
	test_daemon();
	test_waitsig();
	nsw_own("ipc", host);
	mqd_t r = mq_open("/nsworld_q1", O_RDONLY | O_NONBLOCK);
	if (r == (mqd_t)-1 || mq_getattr(r, &got) || got.mq_maxmsg != 8 || got.mq_msgsize != 256 ||
	    got.mq_curmsgs != 3)
		fail("/nsworld_q1: maxmsg %ld msgsize %ld curmsgs %ld", got.mq_maxmsg, got.mq_msgsize,
		     got.mq_curmsgs);
	struct stat st;
	if (r != (mqd_t)-1 && (fstat(r, &st) || (st.st_mode & 0777) != 0640))
		fail("/nsworld_q1: mode %o, want 640", st.st_mode & 0777);
	static const char *const want[3] = {"urgent!", "first", "second"};
	static const unsigned wprio[3] = {9, 1, 1};
	for (int i = 0; i < 3; i++) {
		char buf[256] = "";
		unsigned prio = 0;
		ssize_t n = mq_receive(r, buf, sizeof(buf), &prio);
		if (n != (ssize_t)strlen(want[i]) || memcmp(buf, want[i], (size_t)n) || prio != wprio[i])
			fail("message %d: '%.*s' prio %u, want '%s' prio %u", i, (int)(n > 0 ? n : 0), buf,
			     prio, want[i], wprio[i]);
	}
	mqd_t r2 = mq_open("/nsworld_q2", O_RDONLY | O_NONBLOCK);
	if (r2 == (mqd_t)-1)
		fail("/nsworld_q2 is gone");
	mq_unlink("/nsworld_q1");
	mq_unlink("/nsworld_q2");
	return test_pass();
}
