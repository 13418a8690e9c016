/* Socket discovery through NETLINK_SOCK_DIAG, with libnl-3 (no netlink parsing by hand).
 *
 * Generic part: ns_diag_query sends one sock_diag request (unix_diag_req, inet_diag_req_v2, ...) and calls a
 * callback for every reply with the family's message header and its attributes parsed by nla_parse. Any
 * family can be built on it (the inet part may live in ns/sock-diag-inet.c).
 *
 * Unix part: the table of every unix socket of the net namespace of a task (name, peer, pending connections
 * of listeners, queue lengths, shutdown state, the bound file), looked up by inode.
 *
 * Inet part (sock-diag-inet.c): the table of every TCP, UDP, UDP-Lite and raw socket (IPv4 and IPv6) of the
 * net namespace of a task, looked up by inode. Ping sockets (SOCK_DGRAM, IPPROTO_ICMP) have no sock_diag,
 * raw sockets only with CONFIG_INET_RAW_DIAG, UDP-Lite ones only where UDP-Lite is built.
 * Unbound sockets are in no table (nor, before Linux 6.8, bound TCP sockets neither listening nor
 * connected). */
#ifndef CRSHIM_NS_SOCK_DIAG_H
#define CRSHIM_NS_SOCK_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

struct nlattr;

/* One reply: hdr points to the family's *_diag_msg (hdrlen bytes, as asked), tb[0..maxattr] to its
 * attributes (NULL where absent). Return 0 to go on, < 0 (with e filled) to stop the query with an error. */
typedef int (*ns_diag_cb)(const void *hdr, struct nlattr **tb, void *arg, struct cr_err *e);

/* Send req (len bytes) on a new NETLINK_SOCK_DIAG socket (SOCK_DIAG_BY_FAMILY; dump: NLM_F_DUMP) and call
 * cb for each reply of at least hdrlen bytes. An exact query (not dump) that finds nothing fails with
 * ENOENT. */
int ns_diag_query(const void *req, size_t len, bool dump, size_t hdrlen, int maxattr, ns_diag_cb cb,
		  void *arg, struct cr_err *e);

/* Call fn(arg, e) with this thread in the net namespace of task pid (0: ours), then back in ours: the
 * tables of a task that lives in its own net namespace (unshare -n) are read there. */
int ns_diag_in_netns(pid_t pid, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e);
/* ... in the network namespace fd target is (-1: ours). */
int ns_diag_in_netns_fd(int target, int (*fn)(void *arg, struct cr_err *e), void *arg, struct cr_err *e);

/* The kernel's encoding of a device number (diag attributes such as UNIX_DIAG_VFS) as a dev_t of stat. */
dev_t ns_diag_kdev(uint32_t kdev);

/* ---- unix sockets ---- */
#define NS_UNIX_NAME_MAX 108

struct ns_unix_sk {
	uint32_t ino;
	uint8_t type;	  /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	uint8_t state;	  /* TCP_ESTABLISHED (1), TCP_CLOSE (7), TCP_LISTEN (10) */
	uint8_t shutdown; /* RCV_SHUTDOWN (1) | SEND_SHUTDOWN (2) */
	uint32_t peer;	  /* inode of the peer, 0: none (or the peer is gone) */
	size_t namelen;	  /* 0: not bound; else sun_path bytes (abstract: name[0] == '\0') */
	char name[NS_UNIX_NAME_MAX + 1];
	bool has_vfs; /* bound to a path: the socket file's inode and device (stat encoding) */
	uint64_t vfs_ino;
	dev_t vfs_dev;
	/* listening: connections not yet accepted and the backlog; else bytes (stream) or bytes of the
	 * messages (dgram) in the receive queue, and bytes sent and not yet consumed */
	uint32_t rqueue, wqueue;
	uint32_t *icons; /* listening: inodes of the clients of the connections not yet accepted */
	size_t nicons;
	bool has_uid;
	uint32_t uid;
};

struct ns_unix_table {
	struct ns_unix_sk *sk; /* sorted by inode */
	size_t n;
};

/* Every unix socket of the net namespace of task pid (0: ours). */
int ns_unix_collect(pid_t pid, struct ns_unix_table *t, struct cr_err *e);
/* ... of the network namespace netns_fd is (a socket's own: SIOCGSKNS). */
int ns_unix_collect_fd(int netns_fd, struct ns_unix_table *t, struct cr_err *e);
const struct ns_unix_sk *ns_unix_find(const struct ns_unix_table *t, uint32_t ino);
void ns_unix_table_free(struct ns_unix_table *t);
/* One unix socket by inode (an exact query); out->icons is allocated (free it). */
int ns_unix_get(uint32_t ino, struct ns_unix_sk *out, struct cr_err *e);

/* ---- inet sockets ---- */
struct ns_inet_sk {
	uint32_t ino;
	uint8_t family;	  /* AF_INET, AF_INET6 */
	uint8_t protocol; /* IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDPLITE; raw: the socket's protocol */
	bool raw;
	uint8_t state;		  /* TCP state (UDP: TCP_ESTABLISHED connected, TCP_CLOSE not) */
	uint8_t shutdown;	  /* RCV_SHUTDOWN (1) | SEND_SHUTDOWN (2) */
	uint16_t sport, dport;	  /* host order */
	uint8_t src[16], dst[16]; /* network order; IPv4: the first 4 bytes */
	uint32_t ifindex;	  /* the bound device (SO_BINDTODEVICE, IPv6 scope), 0: none */
	/* TCP listening: connections not yet accepted and the backlog; TCP: bytes not read, bytes not acked;
	 * UDP: memory of the receive and send queues */
	uint32_t rqueue, wqueue;
	uint32_t uid;
	/* TCP: its MD5 keys, the INET_DIAG_MD5SIG attribute (struct tcp_diag_md5sig each, newest first),
	 * malloc'ed; NULL: none (or no CAP_NET_ADMIN over the namespace, which the kernel asks for) */
	uint8_t *md5;
	uint32_t md5_len;
};

struct ns_inet_table {
	struct ns_inet_sk *sk; /* sorted by inode */
	size_t n;
	/* read when a socket has MD5 keys: the namespace has a VRF device (an L3 master), to which a key may
	 * be bound (TCP_MD5SIG_FLAG_IFINDEX), which sock_diag does not tell */
	bool vrf;
};

/* Every inet socket of the net namespace of task pid (0: ours). */
int ns_inet_collect(pid_t pid, struct ns_inet_table *t, struct cr_err *e);
/* ... of the network namespace netns_fd is (a socket's own: SIOCGSKNS). */
int ns_inet_collect_fd(int netns_fd, struct ns_inet_table *t, struct cr_err *e);
const struct ns_inet_sk *ns_inet_find(const struct ns_inet_table *t, uint32_t ino);
void ns_inet_table_free(struct ns_inet_table *t);

/* ---- packet sockets (sock-diag-packet.c) ---- */
struct ns_packet_ring {
	uint32_t block_size, block_nr, frame_size, frame_nr;
	uint32_t retire_tmo, sizeof_priv, features; /* TPACKET_V3 receive ring, else 0 */
};

struct ns_packet_sk {
	uint32_t ino;
	uint32_t version, reserve, copy_thresh; /* PACKET_DIAG_INFO */
	bool has_rx, has_tx;			/* a ring was set up (PACKET_RX_RING / PACKET_TX_RING) */
	struct ns_packet_ring rx, tx;
};

/* The packet socket ino of the net namespace of task pid (0: ours): its rings' requests and what getsockopt
 * does not tell. ENOENT: no such socket there. */
int ns_packet_get(pid_t pid, uint32_t ino, struct ns_packet_sk *out, struct cr_err *e);
/* The same in the network namespace of file nsfd (a socket's own, SIOCGSKNS). */
int ns_packet_get_ns(int nsfd, uint32_t ino, struct ns_packet_sk *out, struct cr_err *e);

#endif
