/* Pipe sizes: a 1 MiB pipe (F_SETPIPE_SZ) with 300 KiB in flight and a one-page pipe with 100 bytes:
 * sizes and data survive, and the large pipe takes a further 700 KiB without blocking. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

#define BIG (1 << 20)
#define IN_BIG (300 << 10)
enum { BR = 20, BW = 21, SR = 22, SW = 23 };

static void mkpipe(int r, int w, int size)
{
	pipe_at(r, w, 0);
	if (fcntl(w, F_SETPIPE_SZ, size) != size)
		fail("F_SETPIPE_SZ %d", size);
}

static void readback(int fd, const char *want, int len, const char *what)
{
	static char buf[BIG];
	int got = 0, n;
	while (got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += n;
	if (got != len || memcmp(buf, want, len))
		fail("%s: read %d bytes back, want %d", what, got, len);
}

int main(int argc, char **argv)
{
	static char big[BIG];
	char small[100];

	test_init(argc, argv);
	datagen(big, BIG, 11);
	datagen(small, sizeof(small), 12);
	mkpipe(BR, BW, BIG);
	mkpipe(SR, SW, 4096);
	if (write(BW, big, IN_BIG) != IN_BIG || write(SW, small, sizeof(small)) != sizeof(small))
		fail("write");
	test_daemon();
	test_waitsig();

	if (fcntl(BW, F_GETPIPE_SZ) != BIG || fcntl(BR, F_GETPIPE_SZ) != BIG)
		fail("large pipe: size %d, want %d", fcntl(BW, F_GETPIPE_SZ), BIG);
	if (fcntl(SW, F_GETPIPE_SZ) != 4096)
		fail("small pipe: size %d, want 4096", fcntl(SW, F_GETPIPE_SZ));
	fcntl(BW, F_SETFL, O_NONBLOCK);
	if (write(BW, big + IN_BIG, BIG - IN_BIG) != BIG - IN_BIG)
		fail("the large pipe does not take %d more bytes", BIG - IN_BIG);
	readback(BR, big, BIG, "large pipe");
	readback(SR, small, sizeof(small), "small pipe");
	pass();
	return 0;
}
