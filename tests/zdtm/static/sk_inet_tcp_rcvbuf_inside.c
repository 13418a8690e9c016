/* sk_inet_tcp_rcvbuf_room with its echo server a child of the test, in the tree (restored with it), so that
 * it runs in modes ns, uns and cuns too (where a peer outside the tree would stay in the old network
 * namespace): after restore SO_RCVBUF reads at least the 100000 bytes put back more than the size the program
 * set (tcp-repair.c saved_bufs). In mode cuns crshim restores the socket with CAP_NET_ADMIN only in the
 * tree's user namespace, where SO_RCVBUFFORCE is refused: the room comes through the plain SO_RCVBUF, within
 * net.core.rmem_max (before, the size set only: failed there). */
#define PEER_START(family) sockpeer_start_child(family)
#include "sk_inet_tcp_rcvbuf_room.c"
