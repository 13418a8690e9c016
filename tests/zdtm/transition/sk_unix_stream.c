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

enum { R = 80, W = 81 };

int main(int argc, char **argv)
{
	test_init(argc, argv);
	sockpair_at(SOCK_STREAM | SOCK_NONBLOCK, R, W);
	test_daemon();
	rec_stream(R, W, "socket");
	pass();
	return 0;
}
