/* sk_packet_ring_private whose program wrote a page of its private mapping of the rings (the page is a copy
 * of its own, which the mapping made again from the socket would not hold): the dump must refuse it with one
 * line and leave the task running, which then passes the checks of sk_packet_ring_private (on the receive
 * ring). */
#define RING_WRITTEN 1
#include "sk_packet_ring_private.c"
