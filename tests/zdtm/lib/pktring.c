/* A packet socket with a mapped TPACKET_V2 or V3 receive ring bound to lo for one protocol, and a second
 * socket that sends it numbered frames, or its own transmit ring (lib/zdtmtst.h: pkring_*). */
#include <arpa/inet.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "zdtmtst.h"

#define PKRING_PROTO 0x88B6 /* ETH_P_802_EX2: local experimental */

struct pkmsg {
	uint32_t magic, pid, seq;
};

static struct sockaddr_ll lo_ll(void)
{
	return (struct sockaddr_ll){.sll_family = AF_PACKET,
				    .sll_protocol = htons(PKRING_PROTO),
				    .sll_ifindex = (int)if_nametoindex("lo"),
				    .sll_halen = ETH_ALEN};
}

void pkring_open(struct pkring *r, int version, const struct tpacket_req3 *req,
		 const struct tpacket_req *txreq)
{
	memset(r, 0, sizeof(*r));
	if (txreq)
		r->treq = *txreq;
	r->version = version;
	r->req = *req;
	r->sk = socket(AF_PACKET, SOCK_DGRAM, htons(PKRING_PROTO));
	if (r->sk < 0)
		test_skip("no packet sockets here");
	r->tx = socket(AF_PACKET, SOCK_DGRAM, 0);
	size_t qlen = version == TPACKET_V3 ? sizeof(*req) : sizeof(struct tpacket_req);
	struct sockaddr_ll a = lo_ll();
	r->len = (size_t)req->tp_block_size * req->tp_block_nr;
	if (r->tx < 0 || setsockopt(r->sk, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) ||
	    setsockopt(r->sk, SOL_PACKET, PACKET_RX_RING, req, (socklen_t)qlen) ||
	    (txreq && setsockopt(r->sk, SOL_PACKET, PACKET_TX_RING, txreq, sizeof(*txreq))))
		fail("packet socket with a TPACKET_V%d receive ring", version + 1);
	r->map = mmap(NULL, r->len + (size_t)r->treq.tp_block_size * r->treq.tp_block_nr,
		      PROT_READ | PROT_WRITE, MAP_SHARED, r->sk, 0);
	if (txreq && r->map != MAP_FAILED)
		r->tmap = r->map + r->len;
	if (r->map == MAP_FAILED || bind(r->sk, (struct sockaddr *)&a, sizeof(a)))
		fail("map the ring and bind to lo");
}

/* The transmit ring's frame i (V2). */
static struct tpacket2_hdr *tframe(struct pkring *r, uint32_t i)
{
	uint32_t per = r->treq.tp_block_size / r->treq.tp_frame_size;
	return (void *)(r->tmap + (size_t)(i / per) * r->treq.tp_block_size +
			(size_t)(i % per) * r->treq.tp_frame_size);
}

void pkring_queue(struct pkring *r, uint32_t seq)
{
	struct pkmsg m = {0x706b7267, (uint32_t)getpid(), seq};
	struct tpacket2_hdr *h = tframe(r, r->tidx);
	if (h->tp_status != TP_STATUS_AVAILABLE)
		fail("transmit frame %u is not free (status %#x)", r->tidx, h->tp_status);
	memcpy((uint8_t *)h + TPACKET2_HDRLEN - sizeof(struct sockaddr_ll), &m, sizeof(m));
	h->tp_len = sizeof(m);
	__sync_synchronize();
	h->tp_status = TP_STATUS_SEND_REQUEST;
	r->tidx = (r->tidx + 1) % r->treq.tp_frame_nr;
}

/* Send what the transmit ring holds and wait until the kernel gave its frames back. */
void pkring_flush(struct pkring *r)
{
	struct sockaddr_ll to = lo_ll();
	if (sendto(r->sk, NULL, 0, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		fail("send the transmit ring");
	uint32_t last = (r->tidx + r->treq.tp_frame_nr - 1) % r->treq.tp_frame_nr;
	for (int ms = 0; tframe(r, last)->tp_status != TP_STATUS_AVAILABLE; ms++) {
		if (ms == 3000) {
			fail("transmit frame %u not sent (status %#x)", last, tframe(r, last)->tp_status);
			return;
		}
		usleep(1000);
	}
}

void pkring_send(struct pkring *r, uint32_t seq)
{
	struct pkmsg m = {0x706b7267, (uint32_t)getpid(), seq};
	struct sockaddr_ll to = lo_ll();
	if (r->tmap) {
		pkring_queue(r, seq);
		pkring_flush(r);
	} else if (sendto(r->tx, &m, sizeof(m), 0, (struct sockaddr *)&to, sizeof(to)) !=
		   (ssize_t)sizeof(m)) {
		fail("send frame %u on lo", seq);
	}
}

static uint8_t *cur(struct pkring *r)
{
	if (r->version == TPACKET_V3)
		return r->map + (size_t)r->idx * r->req.tp_block_size;
	uint32_t per = r->req.tp_block_size / r->req.tp_frame_size;
	return r->map + (size_t)(r->idx / per) * r->req.tp_block_size +
	       (size_t)(r->idx % per) * r->req.tp_frame_size;
}

static volatile uint32_t *status(struct pkring *r)
{
	uint8_t *p = cur(r);
	if (r->version == TPACKET_V3)
		return &((struct tpacket_block_desc *)(void *)p)->hdr.bh1.block_status;
	return &((struct tpacket2_hdr *)(void *)p)->tp_status;
}

/* The next packet of the ring at the program's position: 0 and its number, or -1 after ms without one. */
int pkring_next(struct pkring *r, uint32_t *seq, int ms)
{
	for (int waited = 0; !(*status(r) & TP_STATUS_USER); waited += 10) {
		struct pollfd p = {.fd = r->sk, .events = POLLIN};
		if (waited >= ms)
			return -1;
		poll(&p, 1, 10);
	}
	__sync_synchronize();
	struct pkmsg m;
	uint8_t *p = cur(r);
	if (r->version == TPACKET_V3) {
		struct tpacket_block_desc *d = (void *)p;
		if (!r->pkt_off)
			r->pkt_off = d->hdr.bh1.offset_to_first_pkt;
		struct tpacket3_hdr *h = (void *)(p + r->pkt_off);
		memcpy(&m, (uint8_t *)h + h->tp_mac, sizeof(m));
		r->pkt_off += h->tp_next_offset;
		if (++r->pkt_i >= d->hdr.bh1.num_pkts) { /* the block is read: back to the kernel */
			r->pkt_i = r->pkt_off = 0;
			__sync_synchronize();
			*status(r) = TP_STATUS_KERNEL;
			r->idx = (r->idx + 1) % r->req.tp_block_nr;
		}
	} else {
		struct tpacket2_hdr *h = (void *)p;
		memcpy(&m, p + h->tp_mac, sizeof(m));
		__sync_synchronize();
		*status(r) = TP_STATUS_KERNEL;
		r->idx = (r->idx + 1) % r->req.tp_frame_nr;
	}
	if (m.magic != 0x706b7267 || m.pid != (uint32_t)getpid())
		fail("a frame in the ring that is not the test's (magic %#x, pid %u)", m.magic, m.pid);
	*seq = m.seq;
	return 0;
}

void pkring_expect(struct pkring *r, uint32_t *want, uint32_t upto)
{
	while (*want <= upto) {
		uint32_t seq;
		if (pkring_next(r, &seq, 3000)) {
			fail("frame %u does not come (ring position %u)", *want, r->idx);
			return;
		}
		if (seq != *want) {
			fail("frame %u read where %u was due (ring position %u)", seq, *want, r->idx);
			return;
		}
		(*want)++;
	}
}

/* The checkpoint: the ring's mapping the same, the held frames first, then new ones in order. */
void pkring_cr(struct pkring *r, uint32_t next_held, uint32_t sent)
{
	char before[128], after[128], fl[256];
	if (vma_info(r->map, before, sizeof(before), fl, sizeof(fl)))
		fail("no mapping of the ring");
	test_daemon();
	test_waitsig();
	if (vma_info(r->map, after, sizeof(after), fl, sizeof(fl)) || strcmp(before, after))
		fail("the ring's mapping was \"%s\", now \"%s\"", before, after);
	uint32_t want = next_held;
	if (r->tmap)
		pkring_flush(r);	   /* what is queued in the transmit ring */
	pkring_expect(r, &want, sent - 1); /* what the program held at the checkpoint */
	for (uint32_t s = sent; s < sent + 40 && !test_failures; s++) {
		pkring_send(r, s);
		pkring_expect(r, &want, s);
	}
}
