/* The mapped rings of a packet socket (PACKET_RX_RING / PACKET_TX_RING, TPACKET_V1/V2/V3).
 *
 * Dump: the rings' requests come from sock_diag (PACKET_DIAG_RX_RING/TX_RING; getsockopt tells none of
 * them). The receive ring is read through a mapping of our copy of the socket: the frames (V1/V2) or
 * blocks (V3) that user space owns (TP_STATUS_USER) are saved with their bytes, and where the kernel
 * writes next (head): after the frame with the latest timestamp (V1/V2), the open block, the one of the
 * highest sequence number (V3).
 *
 * A transmit ring: the kernel sends from its head the frames marked TP_STATUS_SEND_REQUEST; its head is
 * known while the frames used since the ring was set up are a prefix of it (the first still queued, else
 * the first never used); the queued frames are kept.
 *
 * A mapping of the rings may be private (MAP_PRIVATE): it shows the rings until the task writes one of its
 * pages, which becomes a copy of the task's own; mapped again privately, refused if the task wrote any
 * (pagemap: a present page that is no file page).
 *
 * Restore: a fresh ring has its head at 0, and the program goes on where it left off; so before the socket
 * is bound where it was, the kernel is walked to the saved heads by frames of our own on lo: the transmit
 * ring's by that many small frames sent through it (ethertype ETH_P_802_EX1, the socket bound to no
 * protocol), then the receive ring's (bound to lo with ETH_P_802_EX1, a frame sent from a second packet
 * socket per frame or, V3, per block retired by its timer). Then the rings are cleared and the saved frames
 * / blocks written back. What is lost is said at dump, one line each on stderr: packets in the open V3
 * block (not yet handed to user space), the oldest block of a full V3 ring; a transmit ring that went round
 * restarts at frame 0 and loses its queued frames. */
#define LOG_PREFIX "sk-ring: "
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/sockios.h>
#include <linux/if_packet.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "net/sk-inet.h"
#include "sock-diag.h"

#define ADV_PROTO 0x88B5 /* ETH_P_802_EX1, local experimental: the frames that walk a new ring's head */

/* Whose ring it is, for the lines that say what is lost (eng_notice: on stderr too). */
struct ring_who {
	const struct cr_opts *o;
	pid_t pid;
	int fd;
};

static uint64_t ring_bytes(const PacketRingEntry *r)
{
	return r ? (uint64_t)r->block_size * r->block_nr : 0;
}

uint64_t pkt_ring_map_len(const PacketSkEntry *pe)
{
	return ring_bytes(pe->rx_ring) + ring_bytes(pe->tx_ring);
}

static bool ring_sane(const PacketRingEntry *r)
{
	return r->block_size && r->block_nr && r->frame_size && r->frame_size <= r->block_size &&
	       r->block_size % 4096 == 0 && (uint64_t)r->block_size * r->block_nr <= (1ull << 36) &&
	       r->frame_nr && r->frame_nr <= (uint64_t)(r->block_size / r->frame_size) * r->block_nr;
}

/* Offset of frame i of a V1/V2 ring (frames do not cross blocks). */
static uint64_t frame_off(const PacketRingEntry *r, uint32_t i)
{
	uint32_t per = r->block_size / r->frame_size;
	return (uint64_t)(i / per) * r->block_size + (uint64_t)(i % per) * r->frame_size;
}

static uint32_t frame_status(const PacketRingEntry *r, const uint8_t *p)
{
	if (r->version == TPACKET_V1)
		return (uint32_t)((const struct tpacket_hdr *)p)->tp_status;
	return ((const struct tpacket2_hdr *)p)->tp_status;
}

/* ------------------------------------------------------------------ dump */

static PacketRingEntry *ring_new(const struct ns_packet_ring *d, uint32_t version, struct cr_err *e)
{
	PacketRingEntry *r = calloc(1, sizeof(*r));
	if (!r) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	packet_ring_entry__init(r);
	r->version = version, r->has_version = 1;
	r->block_size = d->block_size, r->has_block_size = 1;
	r->block_nr = d->block_nr, r->has_block_nr = 1;
	r->frame_size = d->frame_size, r->has_frame_size = 1;
	r->frame_nr = d->frame_nr, r->has_frame_nr = 1;
	if (version == TPACKET_V3) {
		r->retire_tmo = d->retire_tmo, r->has_retire_tmo = 1;
		r->sizeof_priv = d->sizeof_priv, r->has_sizeof_priv = 1;
		r->features = d->features, r->has_features = 1;
	}
	return r;
}

/* Room for a slot per frame or block (n) of the ring. */
static int slots_room(PacketRingEntry *r, uint32_t n, struct cr_err *e)
{
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	r->slots = calloc(n ? n : 1, sizeof(*r->slots));
	return r->slots ? 0 : cr_fail_errno(e, ENOMEM, "out of memory");
}

static int add_slot(PacketRingEntry *r, uint32_t idx, const uint8_t *p, size_t len, struct cr_err *e)
{
	PacketRingSlot *s = r->slots[r->n_slots] = malloc(sizeof(*s));
	if (!s)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	packet_ring_slot__init(s);
	r->n_slots++; /* the ring's from now on (dump_pkt_rings_free) */
	s->index = idx, s->has_index = 1;
	if (!(s->data.data = malloc(len)))
		return cr_fail_errno(e, ENOMEM, "out of memory");
	memcpy(s->data.data, p, len);
	s->data.len = len, s->has_data = 1;
	return 0;
}

/* V1/V2: the frames user space owns; the head is after the frame written last (latest timestamp: the
 * kernel's, which programs leave in the frames they give back; a restore marks the frame before the head
 * so). */
static int scan_frames(const struct ring_who *w, const uint8_t *m, PacketRingEntry *r, struct cr_err *e)
{
	uint64_t best = 0;
	uint32_t last = 0, held = 0;
	if (slots_room(r, r->frame_nr, e))
		return -1;
	for (uint32_t i = 0; i < r->frame_nr; i++) {
		const uint8_t *p = m + frame_off(r, i);
		uint64_t ts;
		if (r->version == TPACKET_V1) {
			const struct tpacket_hdr *h = (const void *)p;
			ts = (uint64_t)h->tp_sec * 1000000000ull + (uint64_t)h->tp_usec * 1000;
		} else {
			const struct tpacket2_hdr *h = (const void *)p;
			ts = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
		}
		if (ts && ts >= best)
			best = ts, last = i;
		if (!(frame_status(r, p) & TP_STATUS_USER))
			continue;
		held++;
		if (add_slot(r, i, p, r->frame_size, e))
			return -1;
	}
	r->head = best ? (last + 1) % r->frame_nr : 0, r->has_head = 1;
	pr_info("pid %d fd %d: packet receive ring: head at frame %u, %u frames held by the program\n",
		w->pid, w->fd, r->head, held);
	return 0;
}

/* V3: the open block is the one opened last (its first timestamp is the time the kernel opened it: the
 * latest; sequence numbers are not kept over a restore); the blocks user space owns are kept. */
static int scan_blocks(const struct ring_who *w, const uint8_t *m, PacketRingEntry *r, struct cr_err *e)
{
	uint64_t best = 0;
	uint32_t open = 0;
	if (slots_room(r, r->block_nr, e))
		return -1;
	for (uint32_t b = 0; b < r->block_nr; b++) {
		const struct tpacket_block_desc *d = (const void *)(m + (uint64_t)b * r->block_size);
		const struct tpacket_bd_ts *t = &d->hdr.bh1.ts_first_pkt;
		uint64_t ts = (uint64_t)t->ts_sec * 1000000000ull + t->ts_nsec;
		if (ts > best)
			best = ts, open = b;
	}
	const struct tpacket_block_desc *od = (const void *)(m + (uint64_t)open * r->block_size);
	uint32_t drop = r->block_nr;			 /* none */
	if (od->hdr.bh1.block_status & TP_STATUS_USER) { /* full: the kernel waits for the next block */
		r->head = (open + 1) % r->block_nr;
		const struct tpacket_block_desc *nd = (const void *)(m + (uint64_t)r->head * r->block_size);
		if (nd->hdr.bh1.block_status & TP_STATUS_USER) {
			drop = r->head;
			eng_notice(
			    w->o,
			    "pid %d fd %d: packet socket: its receive ring is full: the oldest block (%u "
			    "packets) is not saved: lost at restore",
			    w->pid, w->fd, nd->hdr.bh1.num_pkts);
		}
	} else {
		r->head = open;
		if (od->hdr.bh1.num_pkts)
			eng_notice(w->o,
				   "pid %d fd %d: packet socket: %u packets in the open block of its receive "
				   "ring (not "
				   "yet handed to the program) are not saved: lost at restore",
				   w->pid, w->fd, od->hdr.bh1.num_pkts);
	}
	r->has_head = 1;
	for (uint32_t b = 0; b < r->block_nr; b++) {
		const uint8_t *p = m + (uint64_t)b * r->block_size;
		if (b != drop &&
		    (((const struct tpacket_block_desc *)(const void *)p)->hdr.bh1.block_status &
		     TP_STATUS_USER) &&
		    add_slot(r, b, p, r->block_size, e))
			return -1;
	}
	pr_info("pid %d fd %d: packet receive ring: head at block %u, %zu blocks held by the program\n",
		w->pid, w->fd, r->head, r->n_slots);
	return 0;
}

/* Transmit frames: V1 and V2 as in a receive ring, V3 with tpacket3_hdr. */
static uint32_t tx_status(const PacketRingEntry *r, const uint8_t *p)
{
	return r->version == TPACKET_V3 ? ((const struct tpacket3_hdr *)(const void *)p)->tp_status
					: frame_status(r, p);
}

static uint32_t tx_len(const PacketRingEntry *r, const uint8_t *p)
{
	if (r->version == TPACKET_V3)
		return ((const struct tpacket3_hdr *)(const void *)p)->tp_len;
	if (r->version == TPACKET_V1)
		return ((const struct tpacket_hdr *)(const void *)p)->tp_len;
	return ((const struct tpacket2_hdr *)(const void *)p)->tp_len;
}

/* A transmit ring: the kernel sends from its head the frames marked TP_STATUS_SEND_REQUEST and leaves them
 * with their length. While the frames written since the ring was set up are a prefix [0, k), the head is at
 * the first frame still queued, else at k, and the queued frames are kept; once the ring went round, the
 * head cannot be told: it restarts at 0 and the queued frames are lost (said). */
static int scan_tx(const struct ring_who *w, const uint8_t *m, PacketRingEntry *r, struct cr_err *e)
{
	uint32_t n = r->frame_nr, k = 0, queued = 0, first = n;
	bool prefix = true;
	while (k < n && tx_len(r, m + frame_off(r, k)))
		k++;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = m + frame_off(r, i);
		if (i > k && tx_len(r, p))
			prefix = false;
		if (tx_status(r, p) & TP_STATUS_SEND_REQUEST) {
			queued++;
			first = first < i ? first : i;
		}
	}
	r->has_head = 1;
	if (!prefix || k == n) {
		r->head = 0;
		eng_notice(
		    w->o,
		    "pid %d fd %d: packet socket: its transmit ring went round: it restarts empty at frame 0 "
		    "after restore (the kernel's position cannot be read)%s",
		    w->pid, w->fd, queued ? ", the frames queued in it are lost" : "");
		return 0;
	}
	r->head = queued ? first : k;
	if (slots_room(r, n, e))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = m + frame_off(r, i);
		if ((tx_status(r, p) & TP_STATUS_SEND_REQUEST) && add_slot(r, i, p, r->frame_size, e))
			return -1;
	}
	pr_info("pid %d fd %d: packet transmit ring: head at frame %u, %u frames queued\n", w->pid, w->fd,
		r->head, queued);
	return 0;
}

/* The sock_diag entry of packet socket ino, read in its own network namespace (which may not be its
 * process's: a socket made before the process's setns or unshare): that of cfd (SIOCGSKNS), or of a copy of
 * fd of task pid (cfd -1); without SIOCGSKNS, pid's. */
static int pkt_diag(pid_t pid, int fd, int cfd, uint32_t ino, struct ns_packet_sk *d, struct cr_err *e)
{
	__cleanup_close int own = -1;
	if (cfd < 0 && fd >= 0) {
		__cleanup_close int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		own = pfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pfd, fd, 0) : -1;
	}
	int sk = cfd >= 0 ? cfd : own;
	__cleanup_close int ns = sk >= 0 ? ioctl(sk, SIOCGSKNS) : -1;
	return ns >= 0 ? ns_packet_get_ns(ns, ino, d, e) : ns_packet_get(pid, ino, d, e);
}

int dump_pkt_rings(const struct cr_opts *o, pid_t pid, int fd, int cfd, PacketSkEntry *pe, struct cr_err *e)
{
	const struct ring_who w = {o, pid, fd};
	struct stat st;
	struct ns_packet_sk d;
	if (fstat(cfd, &st))
		return cr_fail_sys(e, "packet socket: fstat");
	uint32_t ino = (uint32_t)st.st_ino;
	struct cr_err e2 = {0};
	if (pkt_diag(pid, fd, cfd, ino, &d, &e2)) { /* no packet_diag */
		int v = 0;
		socklen_t l = sizeof(v);
		/* the version cannot change once a ring is set up: the same version set again fails then */
		bool ring = !getsockopt(cfd, SOL_PACKET, PACKET_VERSION, &v, &l) &&
			    setsockopt(cfd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) && errno == EBUSY;
		if (ring)
			return cr_fail(
			    e,
			    "packet socket:[%u] has a ring that sock_diag does not show (%s): not supported",
			    ino, e2.msg);
		pr_info("pid %d fd %d: packet socket:[%u] without a ring, not in sock_diag (%s)\n", (int)pid,
			fd, ino, e2.msg);
		return 0;
	}
	if (d.copy_thresh)
		pe->copy_thresh = d.copy_thresh, pe->has_copy_thresh = 1;
	if (!d.has_rx && !d.has_tx)
		return 0;
	if ((d.has_rx && !(pe->rx_ring = ring_new(&d.rx, d.version, e))) ||
	    (d.has_tx && !(pe->tx_ring = ring_new(&d.tx, d.version, e))))
		return -1;
	if ((pe->rx_ring && !ring_sane(pe->rx_ring)) || (pe->tx_ring && !ring_sane(pe->tx_ring)))
		return cr_fail(e, "packet socket:[%u]: ring of an unexpected shape", ino);
	size_t len = (size_t)pkt_ring_map_len(pe);
	uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED, cfd, 0);
	if (m == MAP_FAILED)
		return cr_fail_sys(e, "packet socket:[%u]: map its rings (%zu bytes)", ino, len);
	int ret = 0;
	if (pe->rx_ring)
		ret = d.version == TPACKET_V3 ? scan_blocks(&w, m, pe->rx_ring, e)
					      : scan_frames(&w, m, pe->rx_ring, e);
	if (!ret && pe->tx_ring)
		ret = scan_tx(&w, m + ring_bytes(pe->rx_ring), pe->tx_ring, e);
	munmap(m, len);
	return ret;
}

/* Every part of the ring entries was malloc()ed on its own: protobuf-c frees them as it frees what it
 * unpacked. */
void dump_pkt_rings_free(PacketSkEntry *pe)
{
	if (pe->rx_ring)
		packet_ring_entry__free_unpacked(pe->rx_ring, NULL);
	if (pe->tx_ring)
		packet_ring_entry__free_unpacked(pe->tx_ring, NULL);
	pe->rx_ring = pe->tx_ring = NULL;
}

/* The fd of task pid that holds socket ino (the first), -1 if none. */
static int fd_of_socket(pid_t pid, uint64_t ino)
{
	char path[300], want[40], link[64];
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	__cleanup_closedir DIR *d = opendir(path);
	int best = -1;
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, de->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		int fd = atoi(de->d_name);
		if (!strcmp(link, want) && (best < 0 || fd < best))
			best = fd;
	}
	return best;
}

/* The pages of a private mapping of the rings that the task wrote (copies of its own, no longer the ring's:
 * present in pagemap, not a file page), -1 if pagemap cannot be read. */
static long ring_copied_pages(pid_t pid, uint64_t start, uint64_t end)
{
	char path[64];
	uint64_t ent[64];
	long psz = sysconf(_SC_PAGESIZE), n = 0;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	__cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (uint64_t a = start; a < end;) {
		size_t k = (end - a) / (uint64_t)psz;
		k = k < 64 ? k : 64;
		ssize_t r = pread(fd, ent, k * 8, (off_t)(a / (uint64_t)psz * 8));
		if (r <= 0)
			return -1;
		for (ssize_t i = 0; i < r / 8; i++)
			n += (ent[i] >> 63) & 1 && !((ent[i] >> 61) & 1); /* present, not PM_FILE: anon */
		a += (uint64_t)(r / 8) * (uint64_t)psz;
	}
	return n;
}

int dump_pkt_ring_vma(pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff, uint64_t ino, VmaEntry *ve,
		      struct cr_err *e)
{
	struct ns_packet_sk d;
	struct cr_err e2 = {0};
	int fd = fd_of_socket(pid, ino); /* (its namespace: that of the socket, read through it) */
	if (pkt_diag(pid, fd, -1, (uint32_t)ino, &d, &e2))
		return cr_fail(
		    e,
		    "mapping 0x%llx-0x%llx of socket:[%llu], which is no packet socket with a ring "
		    "(%s): not supported",
		    (unsigned long long)start, (unsigned long long)end, (unsigned long long)ino, e2.msg);
	uint64_t len = (d.has_rx ? (uint64_t)d.rx.block_size * d.rx.block_nr : 0) +
		       (d.has_tx ? (uint64_t)d.tx.block_size * d.tx.block_nr : 0);
	if (pgoff || end - start != len)
		return cr_fail(
		    e,
		    "mapping 0x%llx-0x%llx (offset %llu) is part of the %llu bytes of rings of packet "
		    "socket:[%llu] (split or partly unmapped): not supported",
		    (unsigned long long)start, (unsigned long long)end, (unsigned long long)pgoff,
		    (unsigned long long)len, (unsigned long long)ino);
	if (fd < 0)
		return cr_fail(
		    e,
		    "the rings mapped at 0x%llx-0x%llx belong to packet socket:[%llu], which no fd of the "
		    "task holds: not supported",
		    (unsigned long long)start, (unsigned long long)end, (unsigned long long)ino);
	/* a private mapping shows the ring until the task writes a page, which then becomes its own copy:
	 * mapped again privately (the flags kept), unless such copies would be lost */
	long copied = (ve->flags & MAP_SHARED) ? 0 : ring_copied_pages(pid, start, end);
	if (copied)
		return cr_fail(e,
			       "private mapping 0x%llx-0x%llx of the rings of packet socket:[%llu]: %s: not "
			       "supported",
			       (unsigned long long)start, (unsigned long long)end, (unsigned long long)ino,
			       copied < 0 ? "its pagemap cannot be read"
					  : "pages written by the task (copies)");
	ve->kind = VMA_KIND__VMA_PACKET_RING;
	ve->sk_fd = fd, ve->has_sk_fd = 1;
	ve->ino = ino, ve->has_ino = 1;
	pr_info("mapping 0x%llx-0x%llx: the rings of packet socket:[%llu] (fd %d)\n",
		(unsigned long long)start, (unsigned long long)end, (unsigned long long)ino, fd);
	return 0;
}

/* ------------------------------------------------------------------ restore (child: errors as text) */

static int ring_set(int sk, int opt, const PacketRingEntry *r, char *msg, size_t len)
{
	int ret;
	if (r->version == TPACKET_V3) {
		struct tpacket_req3 q = {r->block_size, r->block_nr,	r->frame_size, r->frame_nr,
					 r->retire_tmo, r->sizeof_priv, r->features};
		if (opt == PACKET_TX_RING) /* the kernel takes none of the V3 receive fields here */
			q.tp_retire_blk_tov = q.tp_sizeof_priv = q.tp_feature_req_word = 0;
		ret = setsockopt(sk, SOL_PACKET, opt, &q, sizeof(q));
	} else {
		struct tpacket_req q = {r->block_size, r->block_nr, r->frame_size, r->frame_nr};
		ret = setsockopt(sk, SOL_PACKET, opt, &q, sizeof(q));
	}
	if (ret)
		return sk_errmsg(msg, len, "%s (%u blocks of %u bytes, %u frames of %u)",
				 opt == PACKET_RX_RING ? "PACKET_RX_RING" : "PACKET_TX_RING", r->block_nr,
				 r->block_size, r->frame_nr, r->frame_size);
	return 0;
}

static bool slot_user(const PacketRingEntry *r, const uint8_t *m, uint32_t i)
{
	if (r->version == TPACKET_V3)
		return ((const struct tpacket_block_desc *)(const void *)(m + (uint64_t)i * r->block_size))
			   ->hdr.bh1.block_status &
		       TP_STATUS_USER;
	return frame_status(r, m + frame_off(r, i)) & TP_STATUS_USER;
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Walk the kernel's head of the receive ring (mapped at m) to r->head: one frame of ours on lo per frame
 * (V1/V2) or per block, which its timer hands over (V3). sk is bound to lo with ADV_PROTO. */
static int walk_head(int sk, const PacketRingEntry *r, const uint8_t *m, char *msg, size_t len)
{
	int lo = (int)if_nametoindex("lo");
	__cleanup_close int tx = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_ll to = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(ADV_PROTO),
				 .sll_ifindex = lo,
				 .sll_halen = ETH_ALEN};
	static const char pad[64] = "crshim: packet ring position";
	if (!lo || tx < 0)
		return sk_errmsg(msg, len, "packet ring: a socket to walk its position on lo");
	/* per step: its timer (V3) plus slack for a loaded machine */
	int64_t step = (r->version == TPACKET_V3 ? r->retire_tmo : 0) + 2000;
	for (uint32_t i = 0; i < r->head; i++) {
		if (sendto(tx, pad, sizeof(pad), 0, (struct sockaddr *)&to, sizeof(to)) !=
		    (ssize_t)sizeof(pad))
			return sk_errmsg(msg, len,
					 "packet ring: send on lo to walk its position to %u (is lo up?)",
					 r->head);
		for (int64_t end = now_ms() + step; !slot_user(r, m, i);) {
			int64_t left = end - now_ms();
			if (left <= 0) {
				errno = ETIMEDOUT;
				return sk_errmsg(msg, len,
						 "packet ring: walk its position to %u: stuck at %u", r->head,
						 i);
			}
			struct pollfd p = {.fd = sk, .events = POLLIN};
			poll(&p, 1, (int)(left < 50 ? left : 50));
		}
	}
	return 0;
}

/* Walk the kernel's head of the transmit ring (mapped at m) to r->head: that many small frames of ours sent
 * on lo through the ring (sk receives nothing: bound to no protocol). */
static int tx_walk(int sk, const PacketRingEntry *r, uint8_t *m, char *msg, size_t len)
{
	int lo = (int)if_nametoindex("lo");
	uint32_t hdr = r->version == TPACKET_V3	  ? TPACKET3_HDRLEN
		       : r->version == TPACKET_V2 ? TPACKET2_HDRLEN
						  : TPACKET_HDRLEN;
	uint32_t off = hdr - (uint32_t)sizeof(struct sockaddr_ll), dlen = 60;
	struct sockaddr_ll to = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(ADV_PROTO),
				 .sll_ifindex = lo,
				 .sll_halen = ETH_ALEN};
	if (r->frame_size < off + dlen) {
		errno = EINVAL;
		return sk_errmsg(msg, len, "packet transmit ring: frames of %u bytes too small to walk it",
				 r->frame_size);
	}
	struct sockaddr_ll at = {.sll_family = AF_PACKET, .sll_ifindex = lo}; /* protocol 0: receives none */
	if (!lo || bind(sk, (struct sockaddr *)&at, sizeof(at)) < 0)
		return sk_errmsg(msg, len, "packet transmit ring: bind to lo to walk its position");
	for (uint32_t i = 0; i < r->head; i++) {
		uint8_t *p = m + frame_off(r, i);
		memset(p, 0, r->frame_size);
		p[off + 12] = ADV_PROTO >> 8,
			p[off + 13] = ADV_PROTO & 0xff; /* an Ethernet header (SOCK_RAW) */
		if (r->version == TPACKET_V3) {
			struct tpacket3_hdr *h = (void *)p;
			h->tp_len = h->tp_snaplen = dlen, h->tp_mac = h->tp_net = (uint16_t)off;
			h->tp_status = TP_STATUS_SEND_REQUEST;
		} else if (r->version == TPACKET_V2) {
			struct tpacket2_hdr *h = (void *)p;
			h->tp_len = h->tp_snaplen = dlen, h->tp_mac = h->tp_net = (uint16_t)off;
			h->tp_status = TP_STATUS_SEND_REQUEST;
		} else {
			struct tpacket_hdr *h = (void *)p;
			h->tp_len = h->tp_snaplen = dlen, h->tp_mac = h->tp_net = (uint16_t)off;
			h->tp_status = TP_STATUS_SEND_REQUEST;
		}
	}
	if (sendto(sk, NULL, 0, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return sk_errmsg(msg, len,
				 "packet transmit ring: send on lo to walk its position to %u (is lo up?)",
				 r->head);
	for (int64_t end = now_ms() + 2000; r->head;) { /* each frame given back once sent */
		uint32_t st = tx_status(r, m + frame_off(r, r->head - 1));
		if (st & TP_STATUS_WRONG_FORMAT) {
			errno = EINVAL;
			return sk_errmsg(msg, len,
					 "packet transmit ring: a frame to walk its position refused");
		}
		if (!(st & (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING)))
			break;
		if (now_ms() > end) {
			errno = ETIMEDOUT;
			return sk_errmsg(msg, len, "packet transmit ring: walk its position to %u", r->head);
		}
		usleep(1000);
	}
	return 0;
}

/* The ring as it was: cleared (the kernel's frames / blocks all free, V3: the open block as the kernel
 * opened it; a transmit ring: the frames of the walk left as sent) and the frames / blocks user space held
 * (a transmit ring: the frames queued) written back; what the next dump reads the head from kept. */
static void refill(const PacketRingEntry *r, uint8_t *m, bool tx)
{
	bool blocks = !tx && r->version == TPACKET_V3;
	if (blocks) {
		for (uint32_t b = 0; b < r->block_nr; b++)
			if (b != r->head)
				memset(m + (uint64_t)b * r->block_size, 0, r->block_size);
	} else if (tx) { /* the frames of the walk stay, sent: the next dump finds the head after them */
		for (uint32_t i = r->head; i < r->frame_nr; i++)
			memset(m + frame_off(r, i), 0, r->frame_size);
	} else {
		memset(m, 0, ring_bytes(r));
	}
	bool mark = !blocks && !tx; /* the frame before the head: the latest time, as the next dump looks */
	uint32_t before = r->frame_nr ? (r->head + r->frame_nr - 1) % r->frame_nr : 0;
	for (size_t i = 0; i < r->n_slots; i++) {
		const PacketRingSlot *s = r->slots[i];
		uint64_t off = blocks ? (uint64_t)s->index * r->block_size : frame_off(r, s->index);
		memcpy(m + off, s->data.data, s->data.len);
		mark &= s->index != before;
	}
	struct timespec now;
	if (!mark || clock_gettime(CLOCK_REALTIME, &now))
		return;
	uint8_t *p = m + frame_off(r, before); /* free (TP_STATUS_KERNEL): the program does not read it */
	if (r->version == TPACKET_V1) {
		struct tpacket_hdr *h = (void *)p;
		h->tp_sec = (unsigned)now.tv_sec, h->tp_usec = (unsigned)(now.tv_nsec / 1000);
	} else {
		struct tpacket2_hdr *h = (void *)p;
		h->tp_sec = (uint32_t)now.tv_sec, h->tp_nsec = (uint32_t)now.tv_nsec;
	}
}

static bool slots_fit(const PacketRingEntry *r, bool tx)
{
	bool blocks = !tx && r->version == TPACKET_V3;
	uint32_t n = blocks ? r->block_nr : r->frame_nr;
	size_t sz = blocks ? r->block_size : r->frame_size;
	if (!ring_sane(r) || r->head >= n)
		return false;
	for (size_t i = 0; i < r->n_slots; i++)
		if (!r->slots[i]->has_index || r->slots[i]->index >= n || r->slots[i]->data.len != sz)
			return false;
	return true;
}

int rst_pkt_rings_check(const PacketSkEntry *pe, struct cr_err *e)
{
	if ((pe->rx_ring && !slots_fit(pe->rx_ring, false)) || (pe->tx_ring && !slots_fit(pe->tx_ring, true)))
		return cr_fail_errno(e, EBADMSG, "packet socket: a ring of an impossible shape in the image");
	return 0;
}

/* A socket bound to no protocol receives nothing: its receive ring stays where it is. */
static bool rx_walks(const PacketSkEntry *pe)
{
	return pe->rx_ring && pe->rx_ring->head && pe->protocol && pe->type != SOCK_PACKET;
}

static bool tx_walks(const PacketSkEntry *pe)
{
	return pe->tx_ring && pe->tx_ring->head && pe->type != SOCK_PACKET;
}

bool rst_pkt_ring_walks(const PacketSkEntry *pe)
{
	return rx_walks(pe) || tx_walks(pe);
}

static bool to_fill(const PacketRingEntry *r)
{
	return r && (r->head || r->n_slots);
}

int rst_pkt_rings(int sk, const PacketSkEntry *pe, char *msg, size_t len)
{
	if (pe->has_copy_thresh &&
	    setsockopt(sk, SOL_PACKET, PACKET_COPY_THRESH, &pe->copy_thresh, sizeof(pe->copy_thresh)))
		return sk_errmsg(msg, len, "PACKET_COPY_THRESH %u", pe->copy_thresh);
	const PacketRingEntry *r = pe->rx_ring, *t = pe->tx_ring;
	if ((r && ring_set(sk, PACKET_RX_RING, r, msg, len)) ||
	    (t && ring_set(sk, PACKET_TX_RING, t, msg, len)))
		return -1;
	if (!to_fill(r) && !to_fill(t))
		return 0;
	size_t mlen = (size_t)pkt_ring_map_len(pe);
	uint8_t *m = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, sk, 0);
	if (m == MAP_FAILED)
		return sk_errmsg(msg, len, "map the new packet rings");
	uint8_t *tm = m + ring_bytes(r);
	/* the transmit ring first: its frames come back on lo, which the receive ring's walk listens to */
	int ret = tx_walks(pe) ? tx_walk(sk, t, tm, msg, len) : 0;
	if (!ret && rx_walks(pe)) {
		struct sockaddr_ll a = {.sll_family = AF_PACKET,
					.sll_protocol = htons(ADV_PROTO),
					.sll_ifindex = (int)if_nametoindex("lo")};
		if (bind(sk, (struct sockaddr *)&a, sizeof(a)))
			ret = sk_errmsg(msg, len, "packet ring: bind to lo to walk its position");
		else
			ret = walk_head(sk, r, m, msg, len);
	}
	if (!ret) {
		if (to_fill(r))
			refill(r, m, false);
		if (to_fill(t))
			refill(t, tm, true);
		struct tpacket_stats_v3 st;
		socklen_t sl = sizeof(st);
		getsockopt(sk, SOL_PACKET, PACKET_STATISTICS, &st, &sl); /* clears our frames' counts */
	}
	munmap(m, mlen);
	return ret;
}
