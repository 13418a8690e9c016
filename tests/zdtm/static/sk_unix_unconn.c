/* Unix sockets that are neither connected nor listening: an unbound stream socket, an unbound dgram socket,
 * a stream socket bound to a path that never listened (the first also left at its socket() fd). After
 * restore the names are the same (none, none, the path), the unbound stream socket can connect to a listener
 * made now, the bound one can still listen and accept, and the dgram one is still unbound. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { US = 10, UD = 11, BS = 12, PA = 13, PB = 14 };

static int name_len(int fd)
{
	struct sockaddr_un a;
	socklen_t l = sizeof(a);
	return getsockname(fd, (struct sockaddr *)&a, &l) ? -1 : (int)l;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX}, b = {.sun_family = AF_UNIX};
	int sp[2], fd;
	char c;

	test_init(argc, argv);
	snprintf(a.sun_path, sizeof(a.sun_path), "bound.sock");
	snprintf(b.sun_path, sizeof(b.sun_path), "later.sock");
	if (dup2(socket(AF_UNIX, SOCK_STREAM, 0), US) != US ||
	    dup2(socket(AF_UNIX, SOCK_DGRAM, 0), UD) != UD ||
	    dup2(socket(AF_UNIX, SOCK_STREAM, 0), BS) != BS || bind(BS, (struct sockaddr *)&a, sizeof(a)) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || dup2(sp[0], PA) != PA || dup2(sp[1], PB) != PB)
		fail("setup");
	close(sp[0]), close(sp[1]);
	test_daemon();
	test_waitsig();

	if (name_len(US) != (int)sizeof(sa_family_t) || name_len(UD) != (int)sizeof(sa_family_t))
		fail("an unbound socket has a name now");
	struct sockaddr_un got;
	socklen_t gl = sizeof(got);
	if (getsockname(BS, (struct sockaddr *)&got, &gl) || strcmp(got.sun_path, "bound.sock"))
		fail("the bound socket lost its name");
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&b, sizeof(b)) || listen(fd, 1) ||
	    connect(US, (struct sockaddr *)&b, sizeof(b)))
		fail("the unbound stream socket cannot connect");
	if (listen(BS, 1))
		fail("the bound socket cannot listen");
	int cl = socket(AF_UNIX, SOCK_STREAM, 0), acc;
	if (cl < 0 || connect(cl, (struct sockaddr *)&a, sizeof(a)) || (acc = accept(BS, NULL, NULL)) < 0 ||
	    write(cl, "q", 1) != 1 || read(acc, &c, 1) != 1 || c != 'q')
		fail("the bound socket does not accept");
	if (sendto(UD, "d", 1, 0, (struct sockaddr *)&b, sizeof(b)) == 1)
		fail("a dgram to a stream listener went through");
	if (write(PA, "p", 1) != 1 || read(PB, &c, 1) != 1 || c != 'p')
		fail("the pair does not carry data");
	unlink("bound.sock");
	unlink("later.sock");
	return test_pass();
}
