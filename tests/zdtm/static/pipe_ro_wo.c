/* Half pipes: only the read end kept (data written, write end closed) and only the write end kept
 * (read end closed). Before and after restore alike: the read end gives the data, then EOF; a write to
 * the lone write end fails with EPIPE (SIGPIPE ignored). */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 5000
enum { RO = 30, WO = 31 };

int main(int argc, char **argv)
{
	char data[LEN], buf[LEN + 16];
	int p[2], n, got = 0;

	test_init(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	datagen(data, LEN, 3);
	if (pipe(p) || dup2(p[0], RO) != RO || write(p[1], data, LEN) != LEN)
		fail("read-only pipe");
	close(p[0]);
	close(p[1]);
	if (pipe(p) || dup2(p[1], WO) != WO)
		fail("write-only pipe");
	close(p[0]);
	close(p[1]);
	if (write(WO, "x", 1) != -1 || errno != EPIPE)
		fail("write to a pipe without readers before the dump");
	test_daemon();
	test_waitsig();

	if ((fcntl(RO, F_GETFL) & O_ACCMODE) != O_RDONLY || (fcntl(WO, F_GETFL) & O_ACCMODE) != O_WRONLY)
		fail("wrong ends (flags %#o %#o)", fcntl(RO, F_GETFL), fcntl(WO, F_GETFL));
	while ((n = read(RO, buf + got, sizeof(buf) - got)) > 0)
		got += n;
	if (n != 0 || got != LEN || memcmp(buf, data, LEN))
		fail("read end: %d bytes then %d, want %d bytes then EOF", got, n, LEN);
	if (write(WO, "x", 1) != -1 || errno != EPIPE)
		fail("write to a pipe without readers after the restore");
	pass();
	return 0;
}
