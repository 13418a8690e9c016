/* Packet sockets through sock_diag (see sock-diag.h): the kernel answers packet queries only as a dump of
 * every packet socket of the namespace, so the one asked for is picked out by inode. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/packet_diag.h>
#include <netlink/attr.h>

#include "sock-diag.h"

struct pkt_query {
	uint32_t ino;
	struct ns_packet_sk *out;
	bool found;
};

static void ring_of(const struct nlattr *a, struct ns_packet_ring *r, bool *has)
{
	struct packet_diag_ring d;
	if (!a || nla_len(a) < (int)sizeof(d))
		return;
	memcpy(&d, nla_data(a), sizeof(d));
	*r = (struct ns_packet_ring){d.pdr_block_size, d.pdr_block_nr,	  d.pdr_frame_size, d.pdr_frame_nr,
				     d.pdr_retire_tmo, d.pdr_sizeof_priv, d.pdr_features};
	*has = true;
}

static int pkt_one(const void *hdr, struct nlattr **tb, void *arg, struct cr_err *e)
{
	const struct packet_diag_msg *m = hdr;
	struct pkt_query *q = arg;
	(void)e;
	if (m->pdiag_ino != q->ino)
		return 0;
	struct ns_packet_sk *o = q->out;
	q->found = true;
	o->ino = m->pdiag_ino;
	if (tb[PACKET_DIAG_INFO] && nla_len(tb[PACKET_DIAG_INFO]) >= (int)sizeof(struct packet_diag_info)) {
		struct packet_diag_info i;
		memcpy(&i, nla_data(tb[PACKET_DIAG_INFO]), sizeof(i));
		o->version = i.pdi_version, o->reserve = i.pdi_reserve, o->copy_thresh = i.pdi_copy_thresh;
	}
	ring_of(tb[PACKET_DIAG_RX_RING], &o->rx, &o->has_rx);
	ring_of(tb[PACKET_DIAG_TX_RING], &o->tx, &o->has_tx);
	return 0;
}

static int pkt_dump(void *arg, struct cr_err *e)
{
	struct packet_diag_req r = {.sdiag_family = AF_PACKET,
				    .pdiag_show = PACKET_SHOW_INFO | PACKET_SHOW_RING_CFG};
	return ns_diag_query(&r, sizeof(r), true, sizeof(struct packet_diag_msg), PACKET_DIAG_MAX, pkt_one,
			     arg, e);
}

/* In pid's network namespace (nsfd < 0), else in nsfd's. */
static int pkt_get(pid_t pid, int nsfd, uint32_t ino, struct ns_packet_sk *out, struct cr_err *e)
{
	struct pkt_query q = {.ino = ino, .out = out};
	memset(out, 0, sizeof(*out));
	if (nsfd >= 0 ? ns_diag_in_netns_fd(nsfd, pkt_dump, &q, e) : ns_diag_in_netns(pid, pkt_dump, &q, e))
		return cr_wrap(e, "packet socket:[%u]", ino);
	if (!q.found)
		return cr_fail_errno(e, ENOENT, "packet socket:[%u]: not in the sock_diag table", ino);
	return 0;
}

int ns_packet_get(pid_t pid, uint32_t ino, struct ns_packet_sk *out, struct cr_err *e)
{
	return pkt_get(pid, -1, ino, out, e);
}

int ns_packet_get_ns(int nsfd, uint32_t ino, struct ns_packet_sk *out, struct cr_err *e)
{
	return pkt_get(0, nsfd, ino, out, e);
}
