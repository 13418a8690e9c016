/* An O_PATH fd (7) of the deleted node of a unix socket still bound there (fd 6, a listener): the restore
 * would make the node again with mknod, which no socket is bound to (a connect through fd 7 reached fd 6),
 * so the dump must fail with one line and the tree keep running, fd 7 still reaching fd 6. With
 * GHOST_NODE_FIFO (ghost_node_fifo): an O_PATH fd (7) of a deleted FIFO that fd 6 has open for reading and
 * writing: the restore would make two FIFOs. Before, the dump failed with "socket kind: Bad file descriptor"
 * (the socket node) or "a deleted special file, not supported yet" (the FIFO). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { LIVE = 6, NODE = 7 };

int main(int argc, char **argv)
{
	test_init(argc, argv);
#ifdef GHOST_NODE_FIFO
	char buf[4] = "";
	if (mkfifo("gnb.fifo", 0600))
		fail("mkfifo");
	open_at(LIVE, "gnb.fifo", O_RDWR, "open gnb.fifo");
	open_at(NODE, "gnb.fifo", O_PATH, "open gnb.fifo O_PATH");
	if (unlink("gnb.fifo"))
		fail("unlink");
#else
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "gnb.sock");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || dup2(s, LIVE) != LIVE || bind(LIVE, (struct sockaddr *)&a, sizeof(a)) || listen(LIVE, 4))
		fail("bind gnb.sock");
	close(s);
	open_at(NODE, "gnb.sock", O_PATH, "open gnb.sock O_PATH");
	if (unlink("gnb.sock"))
		fail("unlink");
#endif
	test_daemon();
	test_waitsig();
#ifdef GHOST_NODE_FIFO
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", NODE);
	int w = open(p, O_WRONLY | O_NONBLOCK);
	if (w < 0 || write(w, "x", 1) != 1 || read(LIVE, buf, sizeof(buf)) != 1 || buf[0] != 'x')
		fail("fd 7 no longer the FIFO of fd 6");
#else
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/self/fd/%d", NODE);
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) || accept(LIVE, NULL, NULL) < 0)
		fail("fd 7 no longer reaches fd 6");
#endif
	pass();
	return 0;
}
