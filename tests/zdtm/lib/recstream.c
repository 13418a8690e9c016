/* A record stream through a non-blocking pipe or stream socket, busy until SIGTERM (transition tests): one
 * loop writes 16-byte sequence records until the channel is full and reads it back in odd-sized chunks,
 * checking every record, so a dump always finds data in flight (a full or partly full channel, a record
 * split between the channel and the reader's buffer). Then the rest is drained: every record 1..N must
 * have arrived exactly once and in order. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

#define REC 16

struct reader {
	unsigned long next;
	char carry[REC];
	int ncarry;
};

static void rec_make(char *rec, size_t len, unsigned long n)
{
	snprintf(rec, len, "rec %011lu\n", n % 100000000000UL);
}

/* Consume a chunk read from the channel: complete records are checked, a partial one carried over. */
static int consume(struct reader *rd, const char *buf, int len)
{
	char want[32];
	while (len > 0) {
		int take = REC - rd->ncarry < len ? REC - rd->ncarry : len;
		memcpy(rd->carry + rd->ncarry, buf, (size_t)take);
		rd->ncarry += take;
		buf += take;
		len -= take;
		if (rd->ncarry < REC)
			break;
		rec_make(want, sizeof(want), rd->next);
		if (memcmp(rd->carry, want, REC)) {
			fail("record %lu is '%.15s'", rd->next, rd->carry);
			return -1;
		}
		rd->next++;
		rd->ncarry = 0;
	}
	return 0;
}

void rec_stream(int r, int w, const char *what)
{
	struct reader rd = {.next = 1};
	unsigned long next_write = 1, loops = 0;
	char rec[32], buf[1000];
	int n;
	while (test_go()) {
		for (;;) { /* fill */
			rec_make(rec, sizeof(rec), next_write);
			if (write(w, rec, REC) != REC)
				break;
			next_write++;
		}
		if (errno != EAGAIN) {
			fail("write");
			break;
		}
		for (int i = 0; i < 7; i++) { /* drain part of it, odd-sized */
			n = (int)read(r, buf, 997);
			if (n <= 0 || consume(&rd, buf, n))
				break;
		}
		if (test_failures)
			break;
		if ((++loops & 15) == 0)
			usleep(1000);
	}
	while ((n = (int)read(r, buf, sizeof(buf))) > 0) /* the rest */
		if (consume(&rd, buf, n))
			break;
	if (!test_failures && (rd.ncarry || rd.next != next_write))
		fail("read up to record %lu (+%d bytes), written up to %lu", rd.next - 1, rd.ncarry,
		     next_write - 1);
	test_msg("%lu records through the %s\n", next_write - 1, what);
}
