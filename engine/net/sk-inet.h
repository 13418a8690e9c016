/* Inet, netlink and packet sockets (engine-internal).
 *
 * Dump (dump-sk-inet.c, dump-sk-nlpkt.c, tcp-repair.c): each socket fd is copied into crshim with
 * pidfd_getfd (the same open file description) and read from outside: SO_DOMAIN/SO_TYPE/SO_PROTOCOL,
 * getsockname/getpeername, TCP_INFO, and the socket options that differ from a fresh socket of the same
 * kind (sk_opt_entry: level, name, value, replayed as they are at restore). An established TCP connection
 * (--tcp-established) is put into repair mode (TCP_REPAIR) behind a network lock (an nftables table that
 * drops the connection's packets), and its sequence numbers, queues, options and window are read. The
 * copies stay open until the dump ends: on failure or --leave-running the connection leaves repair mode
 * and the lock goes; otherwise the task dies with the socket in repair mode (closed silently, no FIN or
 * RST) and the lock stays until the restore has the connection back.
 *
 * Restore (restore-sk-inet.c, dump-sk-nlpkt.c, tcp-repair.c): in the restore child, the socket is made
 * again at its fd: options, bind, listen/connect; a TCP connection in repair mode (queue sequences,
 * bind, connect, options, queues, window), then repair off. A TCP connection that ended (state CLOSE, out of
 * the sock_diag tables: addresses from getsockname and SO_PEERNAME, data not read) is connected in repair
 * mode and ended by the peer's RST (tcp_closed_restore). The parent removes the network lock once the
 * whole tree runs. */
#ifndef CRSHIM_SK_INET_H
#define CRSHIM_SK_INET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "crshim.h"
#include "image/image.h"

struct dump_ctx;

#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK 72 /* Linux 5.14 */
#endif

/* TCP states restored through repair mode: ESTABLISHED; FIN_WAIT1/FIN_WAIT2 (we shut down writing, the peer
 * did not); CLOSE_WAIT (the peer did, we did not); LAST_ACK, CLOSING (both did, our FIN not yet acked). */
static inline bool sk_tcp_repair_state(unsigned s)
{
	return s == 1 || s == 4 || s == 5 || s == 8 || s == 9 || s == 11;
}

/* The peer's FIN was received (CLOSE_WAIT, LAST_ACK, CLOSING); we sent ours (FIN_WAIT1/2, LAST_ACK, CLOSING).
 */
static inline bool sk_tcp_fin_rcvd(unsigned s)
{
	return s == 8 || s == 9 || s == 11;
}
static inline bool sk_tcp_fin_sent(unsigned s)
{
	return s == 4 || s == 5 || s == 9 || s == 11;
}

/* Does a socket of family and type carry IPv4-level state (IPPROTO_IP options, IPv4 multicast groups)? The
 * IPv4 ones, and the IPv6 ones but raw: an IPv6 TCP, UDP or ping socket keeps its own for its IPv4 traffic
 * (v4-mapped peers of a dual-stack socket, IPV6_V6ONLY off); IP_LOCAL_PORT_RANGE and IP_BIND_ADDRESS_NO_PORT
 * act on its IPv6 binds too. */
static inline bool sk_has_v4_level(int family, int type)
{
	return family == AF_INET || (family == AF_INET6 && type != SOCK_RAW);
}

/* ---- dump ---- */
/* Per-process state of the socket dump (the pidfd, the connections left in repair mode). */
struct dump_sk;
/* The domain of the task's socket fd (AF_UNIX, AF_INET, ...), < 0 with e set on error. */
int dump_sk_domain(struct dump_ctx *c, int fd, struct cr_err *e);
/* Fill fe (kind, inet_sk / netlink_sk / packet_sk) for the task's socket fd (file status flags fl).
 * The sub-entries are allocated: dump_sk_entry_free(fe) once fe is written. */
int dump_sk_fill(struct dump_ctx *c, int fd, uint32_t fl, FileEntry *fe, struct cr_err *e);
void dump_sk_entry_free(FileEntry *fe);
/* End of the dump: DUMP_SK_KILLED leaves the connections in repair mode (the task is gone or going) and
 * the network lock in place for the restore; DUMP_SK_RESUME takes them out of repair mode and unlocks. */
enum dump_sk_end { DUMP_SK_RESUME, DUMP_SK_KILLED };
void dump_sk_finish(struct dump_ctx *c, enum dump_sk_end how);

/* dump-sk-diag.c: fill ie (family, type, protocol set) from sock_diag for the task's inet socket fd (our copy
 * cfd); *d: the table of the task's net namespace, read at the first call (sk_diag_free it). 0: done,
 * 1: sock_diag does not know this socket, its addresses are read from it (ping sockets; raw ones without raw
 * diag; a TCP one closed, state set: bound only, or after a connection), < 0: error. */
struct sk_diag;
int sk_diag_fill(struct dump_ctx *c, struct sk_diag **d, int fd, int cfd, InetSkEntry *ie, struct cr_err *e);
/* The network namespace of netlink or packet socket cfd into *netns (*has), made there at restore; one of
 * crshim's own namespace outside the tree is refused. */
int sk_netns_save(struct dump_ctx *c, int cfd, uint64_t *netns, protobuf_c_boolean *has, struct cr_err *e);
void sk_diag_free(struct sk_diag *d);
/* "ESTABLISHED", "CLOSE_WAIT", ... ("?" for a number it does not know) */
const char *sk_tcp_state_name(unsigned s);

/* tcp-keys.c: the keys that sign a TCP socket's segments. Dump: the MD5 keys (TCP_MD5SIG) sock_diag read for
 * socket s of table t into ie->md5 (refused when t has a VRF device; without CAP_NET_ADMIN none, said once:
 * *said); tcp_md5_free frees them. A socket with TCP-AO keys (cfd: our copy) is refused. Restore: the keys
 * checked (parent) and set on the new socket sk before it is bound (child). */
struct ns_inet_table;
struct ns_inet_sk;
int tcp_md5_dump(const struct dump_ctx *c, bool *said, const struct ns_inet_table *t,
		 const struct ns_inet_sk *s, InetSkEntry *ie, struct cr_err *e);
void tcp_md5_free(InetSkEntry *ie);
int tcp_ao_dump(int cfd, struct cr_err *e);
/* The dump of both kinds of keys of TCP socket fd of c's process (cfd: our copy; ie filled by sock_diag): a
 * closed socket sock_diag did not list whose option memory shows MD5 keys is named (one line: restored
 * without them); then tcp_ao_dump. */
int tcp_keys_dump(const struct dump_ctx *c, int fd, int cfd, InetSkEntry *ie, struct cr_err *e);
int tcp_md5_check(const InetSkEntry *ie, struct cr_err *e);
int tcp_md5_restore(int sk, const InetSkEntry *ie, char *msg, size_t len);

/* sk-inet-mcast.c: the multicast groups the datagram socket cfd (of task pid, family and type in ie) joined
 * into ie->mcast: each group of the task's /proc/PID/net/igmp (igmp6) the socket's MCAST_MSFILTER knows, with
 * its filter (an IPv6 socket: its IPv6 groups and the IPv4 ones it joined at the IPv4 level, which igmp
 * lists); sk_mcast_free frees them. Restore: joined again on the same interfaces (after bind), each at the
 * level of its group's family. */
int sk_mcast_dump(int pid, int cfd, InetSkEntry *ie, struct cr_err *e);
void sk_mcast_free(InetSkEntry *ie);
int sk_mcast_restore(int sk, const InetSkEntry *ie, char *msg, size_t len);
/* sk-mc-index.c: the interface indexes IP_MULTICAST_IF set (by index, which getsockopt does not read back) on
 * the inet sockets of one process (IPv4 ones, and IPv6 ones for their IPv4 traffic), read in one pass over
 * its fds (a BPF iterator) the first time sk_mc_read is called for it; sk_mc_find: the index of its fd (0:
 * none). Without BPF or BTF, known stays false and why says why (not an error: the caller decides). */
struct sk_mc_index {
	uint32_t fd, idx;
};
struct sk_mc_table {
	struct sk_mc_index *v; /* by fd */
	size_t n;
	bool read, known;
	char why[256];
};
int sk_mc_read(int pidfd, struct sk_mc_table *t, struct cr_err *e);
uint32_t sk_mc_find(const struct sk_mc_table *t, int fd);
void sk_mc_free(struct sk_mc_table *t);

/* dump-sk-nlpkt.c */
int dump_sk_netlink(int cfd, int type, int proto, uint32_t fl, FileEntry *fe, struct cr_err *e);
struct cr_opts;
int dump_sk_packet(const struct cr_opts *o, pid_t pid, int fd, int cfd, int type, int proto, uint32_t fl,
		   FileEntry *fe, struct cr_err *e);

/* sk-pkt-ring.c: a packet socket's mapped rings. Dump: their requests, the receive ring's position and the
 * frames / blocks the program holds, into pe (cfd: our copy of the socket of task pid). */
int dump_pkt_rings(const struct cr_opts *o, pid_t pid, int fd, int cfd, PacketSkEntry *pe, struct cr_err *e);
void dump_pkt_rings_free(PacketSkEntry *pe);
/* dump-mm.c: the VMA [start, end) maps socket ino (ve's flags: shared or private); fill ve (VMA_PACKET_RING,
 * the fd that holds it) or refuse (not a packet socket's whole rings, no fd of the task holds it, a private
 * mapping with pages the task wrote). */
int dump_pkt_ring_vma(pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff, uint64_t ino, VmaEntry *ve,
		      struct cr_err *e);
/* The length of the mapping of pe's rings (receive ring first, then transmit). */
uint64_t pkt_ring_map_len(const PacketSkEntry *pe);
/* Restore: the image's rings are possible; child: set them up on sk (options set, not bound) with the
 * receive ring's position and frames; does it bind sk to lo on the way (then sk is made with protocol 0)? */
int rst_pkt_rings_check(const PacketSkEntry *pe, struct cr_err *e);
int rst_pkt_rings(int sk, const PacketSkEntry *pe, char *msg, size_t len);
bool rst_pkt_ring_walks(const PacketSkEntry *pe);

/* options (dump-sk-inet.c): the options of cfd that differ from a fresh socket(family, type, proto), made
 * by sk_fresh (in cfd's network namespace where crshim's refuses it; -1 with errno where neither can) */
int sk_fresh(int cfd, int family, int type, int proto);
struct sk_optdef;
int dump_sk_opts(int cfd, int family, int type, int proto, bool est, SkOptEntry ***out, size_t *n,
		 struct cr_err *e);
void dump_sk_opts_free(SkOptEntry **o, size_t n);

/* tcp-repair.c, dump side: lock and read the established connection of cfd into *out (allocated). */
struct cr_opts;
int tcp_repair_dump(const struct cr_opts *o, int cfd, const InetSkEntry *ie, TcpStreamEntry **out,
		    struct cr_err *e);
void tcp_stream_free(TcpStreamEntry *t);
/* A connecting socket (SYN_SENT): only the network lock of its addresses, in *out (no stream: the restore
 * connects again, the SYN held by the lock until the tree runs). */
int tcp_lock_only(const struct cr_opts *o, int cfd, const InetSkEntry *ie, TcpStreamEntry **out,
		  struct cr_err *e);
/* Leave repair mode (no window probe); for a failed dump or --leave-running. */
void tcp_repair_off(int cfd);
/* Remove the network lock of the dump of root (nft table) in the network namespace of socket skfd (-1: ours);
 * quiet if there is none. */
int net_unlock(const char *netlock, int skfd, struct cr_err *e);
/* The lock of ie's connection (its image's netlock) made again in crshim's network namespace: a tree
 * restored into a new one has none of the dump's, and a restored socket out of repair mode would meet a
 * peer not yet restored (a listener of the port answers with a reset). */
int net_relock(const InetSkEntry *ie, struct cr_err *e);

/* The lock of a whole network namespace (the tree's own, during the dump and until the restored tree runs):
 * all its packets dropped but those marked NETNS_LOCK_PASS_MARK (CRIU's mark for its own tools' packets) or
 * TCP_FIN_MARK; by o's --network-lock method, in pid's network namespace. *lock: its name for the images
 * ("nft:crshim_netns", "ipt:CRSHIM_NETNS"; NULL: --network-lock=skip). */
#define NETNS_LOCK_NAME "CRSHIM_NETNS"
#define NETNS_LOCK_NAME_NFT "crshim_netns"
#define NETNS_LOCK_PASS_MARK 0xC114
int netns_lock(const struct cr_opts *o, pid_t pid, char **lock, struct cr_err *e);
/* Remove it in the network namespace of file nsfd (-1: ours); quiet if there is none; NULL lock: nothing. */
int netns_unlock(const char *lock, int nsfd, struct cr_err *e);
/* The same in pid's network namespace. */
int netns_unlock_pid(const char *lock, pid_t pid, struct cr_err *e);

/* The kinds inet, netlink and packet (files/fd-kind.h): one dump, check and open for the three. */
struct fd_src;
struct rst_task;
int dump_sk_kind(struct dump_ctx *c, struct fd_src *f, void **state, FileEntry *fe, struct cr_err *e);
void dump_sk_kind_release(FileEntry *fe, struct fd_src *f);
int rst_sk_kind_check(const struct rst_task *t, const FileEntry *f, const FdinfoEntry *fi, struct cr_err *e);
int rst_sk_kind_open(struct rst_task *t, int lo, const FileEntry *f, const FdinfoEntry *fi, char *msg,
		     size_t len);

/* ---- restore ---- */
/* Parent, restore --tcp-close: the task's TCP connections (established, half-closed) are made closed. */
void rst_sk_tcp_close(struct rst_task *t);
/* Parent: is this socket entry complete? */
int rst_sk_check(const FileEntry *f, struct cr_err *e);
/* Make the socket of f (options, bound, listening or connected); returns the fd, or -1 with the reason
 * in msg. In the restore child, or in crshim for a socket several processes share (restore-fdshare.c). */
int rst_sk_make(const FileEntry *f, char *msg, size_t len);
/* Child: make the socket of f at fi->fd. Errors as text, like rst_child_files. */
int rst_sk_open(const FileEntry *f, const FdinfoEntry *fi, char *msg, size_t len);
int rst_sk_nlpkt_open(const FileEntry *f, char *msg, size_t len);
/* Child: replay the options. */
int rst_sk_opts(int sk, SkOptEntry *const *o, size_t n, char *msg, size_t len);
/* Child: SO_BUF_LOCK as saved, set again last (setting a buffer size locks it; so do the restore's own steps
 * that make room for queues). */
int rst_sk_buf_lock(int sk, SkOptEntry *const *o, size_t n, char *msg, size_t len);
/* Child: an established TCP connection in repair mode, on the new socket sk (in repair mode, options
 * set, not yet bound): sequences, bind to src, connect to dst, options, queues, window, repair off. */
struct sockaddr;
int tcp_repair_restore(int sk, const InetSkEntry *ie, const struct sockaddr *src, unsigned slen,
		       const struct sockaddr *dst, unsigned dlen, char *msg, size_t len);
/* Child: a TCP connection that ended (state CLOSE, the peer's address known, no stream): on sk (options set,
 * not bound) bound to src and connected to dst in repair mode, the data not read put back, then ended by the
 * peer's RST (tcp-fin.c): closed both ways, the same names; the pending error (ECONNRESET) cleared unless the
 * image had one. */
int tcp_closed_restore(int sk, const InetSkEntry *ie, const struct sockaddr *src, unsigned slen,
		       const struct sockaddr *dst, unsigned dlen, char *msg, size_t len);
/* tcp-fin.c, child: send the socket sk (in repair mode) the peer's FIN (FIN|ACK from the connection's peer
 * at seq, acking ack, window win; RST|ACK with rst) and wait until it is in want_state (CLOSE_WAIT, CLOSING;
 * CLOSE). */
struct tcp_fin {
	uint32_t seq, ack;
	uint16_t win;
	unsigned want_state;
	bool rst;
	bool probe; /* neither FIN nor RST: a bare ACK */
};
int tcp_fin_inject(int sk, const InetSkEntry *ie, const struct tcp_fin *f, char *msg, size_t len);
/* tcp-fin.c, parent, once the lock is gone: the restored connection ie is sent an old segment from its peer,
 * which the socket answers with an ACK to the peer (as leaving repair mode did, behind the lock): a peer that
 * is gone answers that with a reset, which ends the connection now rather than at its next retransmission
 * (CRIU leaves repair mode after the unlock). Best effort: 0 or -1 (errno). */
int tcp_probe_peer(const InetSkEntry *ie);
/* check-tcp.c: does a half-closed connection survive dump and restore here? 1 yes, 0 no (why in d). */
int tcp_half_closed_probe(char *d, size_t len);
/* The nft tool the network lock runs (tcp-repair.c), NULL: none. */
const char *tcp_nft_path(void);
/* The iptables-restore (v6: ip6tables-restore) the iptables network lock runs (tcp-repair.c), NULL: none. */
const char *tcp_ipt_path(bool v6);
/* Run `nft [-a] -f -` with script on stdin in our network namespace; out (may be NULL): what it printed. */
int tcp_nft_run(const char *script, bool handles, char **out, struct cr_err *e);
/* tcp-fin.c, parent, in a network namespace made for the tree: a rule letting TCP_FIN_MARK's packets through
 * put first in every base chain of the restored ruleset at prerouting, input and output (an accept of the
 * lock's own table does not stop another table's drop, e.g. a rule of the program's dropping the port); and
 * those rules removed again once the tree runs. */
int tcp_fin_pass_open(struct cr_err *e);
void tcp_fin_pass_close(void);
/* The mark of that packet: the network lock lets it in. */
#define TCP_FIN_MARK 0x63724649
/* Parent, once the tree runs: remove the network locks of the restored connections. */
void rst_sk_unlock(struct rst_task *ts, size_t n);
/* The locks of the tree's connections made again in crshim's network namespace (net_relock). */
int rst_sk_relock(const struct rst_task *ts, size_t n, struct cr_err *e);
/* Parent, after a failed restore: remove the network locks named in the files images of dirfd, read again
 * (the restore may have failed before they loaded). */
void rst_sk_unlock_dir(int dirfd);

/* sk-priv.c: the options only CAP_NET_ADMIN over the host sets (SO_SNDBUFFORCE, SO_RCVBUFFORCE, SO_DEBUG,
 * SO_PREFER_BUSY_POLL). Parent: for a tree born in its user namespace, a server of crshim's credentials that
 * sets them on the sockets the tree's processes send it (at rst_sk_priv_fd), stopped when the restore ends.
 * Child: setsockopt, and where the kernel refuses one of them (EPERM, EACCES), the server's (0, -1 errno).
 * Dump: refuse (one line) a socket whose restore needs one of them (or a buffer above net.core.[wr]mem_max
 * for its queues) when crshim lacks that capability. */
bool sk_priv_opt(int level, int name);
int rst_sk_priv_start(const struct rst_task *ts, size_t n, struct cr_err *e);
void rst_sk_priv_stop(void);
int sk_priv_setsockopt(int sk, int level, int name, const void *v, socklen_t l);
int sk_priv_dump_check(const InetSkEntry *ie, struct cr_err *e);

/* errors as text in the restore child */
#define sk_errmsg rst_errmsg /* restore.h: the child-side error text every fd kind uses */

#endif
