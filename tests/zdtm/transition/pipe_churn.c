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
	test_init(argc, argv);
	pipe_at(R, W, O_NONBLOCK);
	test_daemon();
	rec_stream(R, W, "pipe");
	pass();
	return 0;
}
