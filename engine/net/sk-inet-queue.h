/* Receive queues of datagram sockets (engine-internal).
 *
 * UDP (IPv4 and IPv6): the dump reads every queued datagram without taking it: MSG_PEEK at growing
 * peek offsets (SO_PEEK_OFF, put back as it was afterwards) on the pidfd_getfd copy, with the sender's
 * address and port; they go into inet_sk_entry.rqueue, oldest first. The restore sends each one again to
 * the new socket (bound, not yet connected: a connected UDP socket takes datagrams from its peer only)
 * from its original sender: an IP packet written whole on a raw socket (IPPROTO_RAW), so the sender's
 * address and port need not be free or local; without CAP_NET_RAW, from a UDP socket bound to the
 * sender's address (SO_REUSEADDR, IP_FREEBIND). From bind to the end a socket filter lets only these
 * datagrams in (TTL 233), so none from the network comes before them. Each datagram must be in the queue
 * before the next one is sent (order kept); one that cannot be sent from its sender fails the restore.
 *
 * Other kinds (ICMP/raw inet, netlink, packet): their queued data cannot be put back the same way
 * (replies matched by the kernel, messages from the kernel); the dump warns (stderr and log) with pid,
 * fd and the queue's size, and goes on. */
#ifndef CRSHIM_SK_INET_QUEUE_H
#define CRSHIM_SK_INET_QUEUE_H

#include <stddef.h>

#include "crshim.h"
#include "image/image.h"

struct cr_opts;
/* Dump: the queued datagrams of the UDP socket cfd (the task's fd, pid) into ie->rqueue; for a
 * datagram socket whose queue is not saved, a warning (eng_notice). ie's family, type and protocol are set.
 */
int sk_queue_dump_inet(const struct cr_opts *o, int pid, int fd, int cfd, InetSkEntry *ie, struct cr_err *e);
/* Dump: warn if the socket cfd (netlink, packet: kind names it) has data queued (not saved). */
void sk_queue_warn(const struct cr_opts *o, int pid, int fd, int cfd, const char *kind);
void sk_queue_free(InetSkEntry *ie);
/* Bytes of receive-queue memory of socket sk (SO_MEMINFO: the skbs' truesize, not the data), 0 if unknown. */
uint32_t sk_rmem(int sk);
/* Restore, before bind: from now on only the datagrams put back get into sk (a socket filter). */
void sk_queue_filter(int sk, const InetSkEntry *ie);
/* Restore: put ie's datagrams back on sk (bound as ie says, not connected), remove the filter. Errors
 * as text. */
int sk_queue_restore(int sk, const InetSkEntry *ie, char *msg, size_t len);

#endif
