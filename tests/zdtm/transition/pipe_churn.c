/* Data streaming through a pipe all the time: one loop writes 16-byte sequence records into a
 * non-blocking pipe until it is full and reads it back in odd-sized chunks, checking every record, so a
 * dump always finds data in flight (a full or partly full pipe, a record split between the pipe and
 * the reader's buffer). After restore and SIGTERM the rest is drained: every record 1..N arrived exactly
 * once and in order. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { R = 80, W = 81 };

int main(int argc, char **argv)
{
	int p[2];

	test_init(argc, argv);
	if (pipe2(p, O_NONBLOCK) || dup2(p[0], R) != R || dup2(p[1], W) != W)
		fail("pipe");
	close(p[0]);
	close(p[1]);
	test_daemon();
	rec_stream(R, W, "pipe");
	pass();
	return 0;
}
