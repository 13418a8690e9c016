/* Data streaming through a unix stream socket all the time: one loop writes 16-byte sequence records into a
 * non-blocking socketpair until it is full and reads it back in odd-sized chunks, checking every record, so a
 * dump always finds data in flight (a full or partly full socket, a record split between the socket and
 * the reader's buffer). After restore and SIGTERM the rest is drained: every record 1..N arrived exactly
 * once and in order. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

#define REC 16
enum { R = 80, W = 81 };

static unsigned long next_read = 1;
static char carry[REC];
static int ncarry;

/* Consume a chunk read from the socket: complete records are checked, a partial one carried over. */
static int consume(const char *buf, int len)
{
	char want[32];
	while (len > 0) {
		int take = REC - ncarry < len ? REC - ncarry : len;
		memcpy(carry + ncarry, buf, take);
		ncarry += take;
		buf += take;
		len -= take;
		if (ncarry < REC)
			break;
		snprintf(want, sizeof(want), "rec %011lu\n", next_read % 100000000000UL);
		if (memcmp(carry, want, REC)) {
			fail("record %lu is '%.15s'", next_read, carry);
			return -1;
		}
		next_read++;
		ncarry = 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long next_write = 1, loops = 0;
	char rec[32], buf[1000];
	int p[2], n;

	test_init(argc, argv);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p) || dup2(p[0], R) != R ||
	    dup2(p[1], W) != W)
		fail("socketpair");
	close(p[0]);
	close(p[1]);
	test_daemon();
	while (test_go()) {
		for (;;) { /* fill */
			snprintf(rec, sizeof(rec), "rec %011lu\n", next_write % 100000000000UL);
			if (write(W, rec, REC) != REC)
				break;
			next_write++;
		}
		if (errno != EAGAIN) {
			fail("write");
			break;
		}
		for (int i = 0; i < 7; i++) { /* drain part of it, odd-sized */
			n = read(R, buf, 997);
			if (n <= 0 || consume(buf, n))
				break;
		}
		if (test_failures)
			break;
		if ((++loops & 15) == 0)
			usleep(1000);
	}
	while ((n = read(R, buf, sizeof(buf))) > 0) /* the rest */
		if (consume(buf, n))
			break;
	if (!test_failures && (ncarry || next_read != next_write))
		fail("read up to record %lu (+%d bytes), written up to %lu", next_read - 1, ncarry,
		     next_write - 1);
	test_msg("%lu records through the socket\n", next_write - 1);
	pass();
	return 0;
}
