/* sk_inet_tcp_rcvbuf_inside with a receive buffer whose size the program never set (not locked: the kernel's,
 * which it grows to what the queue takes): an echo server that is a child of the test (in the tree: modes ns,
 * uns and cuns too), 100000 echoed bytes left unread at the dump. After restore (--tcp-established)
 * getsockopt(SO_RCVBUF) reads what it read before and SO_BUF_LOCK is still 0, the bytes are all there, in
 * order, and more data flows. Before, the restore left the size it had raised to put the queue back (131072
 * read 531072), and once the size was saved added the memory of the queue (~101 KB) to it again at each dump
 * and restore while the data stayed unread (mode iters): room that only a buffer the program locked needs. */
#define PEER_START(family) sockpeer_start_child(family)
#define RCVBUF_AUTO 1
#include "sk_inet_tcp_rcvbuf_room.c"
