/* The peer's FIN of a half-closed TCP connection (CLOSE_WAIT, LAST_ACK, CLOSING), at restore: repair mode
 * cannot queue a FIN on the receive side, so the restore child sends the socket, still in repair mode, the
 * segment the peer sent: FIN|ACK from the peer's address and port, at the sequence number just before the
 * saved rcv_nxt, built whole (IP header included) on a raw socket. The packet carries TCP_FIN_MARK, which the
 * network lock lets through (tcp-repair.c). The kernel then moves the socket the way the FIN moved it before
 * the dump (ESTABLISHED -> CLOSE_WAIT, FIN_WAIT1 -> CLOSING) and the task reads the end of the stream after
 * the data. The lock's accept does not stop a drop of another table (nftables runs every base chain at a
 * hook; a drop anywhere is final), e.g. the program's own rule for its port restored with its network
 * namespace: in a namespace made for the tree, a rule accepting the mark is put first in every base chain of
 * the ruleset at prerouting, input and output (tcp_fin_pass_open) and removed once the tree runs, found
 * again by its comment (tcp_fin_pass_close). A connection that ended (state CLOSE) is made the same way:
 * connected in repair mode, then the peer's RST ends it. Errors are text (restore child). */
#define LOG_PREFIX "tcp-fin: "
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "restore.h"
#include "net/sk-inet.h"

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* The 4 bytes of an IPv4 address (also v4-mapped in an IPv6 one), NULL for a real IPv6 address. */
static const uint8_t *v4_of(const ProtobufCBinaryData *a)
{
	if (a->len == 4)
		return a->data;
	if (a->len == 16 && !memcmp(a->data, v4mapped, sizeof(v4mapped)))
		return a->data + 12;
	return NULL;
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* The TCP header of the FIN; its checksum over the pseudo-header of src/dst (alen bytes each). */
static void fin_header(struct tcphdr *th, const InetSkEntry *ie, const struct tcp_fin *f, const uint8_t *src,
		       const uint8_t *dst, size_t alen)
{
	memset(th, 0, sizeof(*th));
	th->source = htons((uint16_t)ie->dst_port); /* from the peer */
	th->dest = htons((uint16_t)ie->src_port);
	th->seq = htonl(f->seq);
	th->ack_seq = htonl(f->ack);
	th->doff = sizeof(*th) / 4;
	th->fin = !f->rst && !f->probe;
	th->rst = f->rst;
	th->ack = 1;
	th->window = htons(f->win);
	uint8_t proto[4] = {0, 0, 0, IPPROTO_TCP};
	uint8_t tlen[4] = {0, 0, 0, sizeof(*th)};
	uint32_t sum = csum_add(0, src, alen);
	sum = csum_add(sum, dst, alen);
	sum = csum_add(sum, tlen, sizeof(tlen));
	sum = csum_add(sum, proto, sizeof(proto));
	th->check = csum_fold(csum_add(sum, th, sizeof(*th)));
}

static int send_v4(const InetSkEntry *ie, const struct tcp_fin *f, const uint8_t *peer, const uint8_t *me,
		   char *msg, size_t len)
{
	struct {
		struct iphdr ip;
		struct tcphdr tcp;
	} pkt;
	memset(&pkt, 0, sizeof(pkt));
	pkt.ip.version = 4, pkt.ip.ihl = sizeof(pkt.ip) / 4;
	pkt.ip.tot_len = htons(sizeof(pkt));
	pkt.ip.frag_off = htons(IP_DF);
	pkt.ip.ttl = 64;
	pkt.ip.protocol = IPPROTO_TCP;
	memcpy(&pkt.ip.saddr, peer, 4);
	memcpy(&pkt.ip.daddr, me, 4);
	fin_header(&pkt.tcp, ie, f, peer, me, 4); /* the kernel fills in the IP checksum */
	__cleanup_close int raw = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	int mark = TCP_FIN_MARK;
	if (raw < 0 || setsockopt(raw, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
		return sk_errmsg(msg, len,
				 "raw socket for the peer's FIN (needs CAP_NET_RAW, CAP_NET_ADMIN)");
	struct sockaddr_in to = {.sin_family = AF_INET};
	memcpy(&to.sin_addr, me, 4);
	if (sendto(raw, &pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)sizeof(pkt))
		return sk_errmsg(msg, len, "send the peer's %s", f->rst ? "RST" : "FIN");
	return 0;
}

static int send_v6(const InetSkEntry *ie, const struct tcp_fin *f, char *msg, size_t len)
{
	struct {
		struct ip6_hdr ip;
		struct tcphdr tcp;
	} pkt;
	memset(&pkt, 0, sizeof(pkt));
	pkt.ip.ip6_flow = htonl(6u << 28);
	pkt.ip.ip6_plen = htons(sizeof(pkt.tcp));
	pkt.ip.ip6_nxt = IPPROTO_TCP;
	pkt.ip.ip6_hlim = 64;
	memcpy(&pkt.ip.ip6_src, ie->dst_addr.data, 16);
	memcpy(&pkt.ip.ip6_dst, ie->src_addr.data, 16);
	fin_header(&pkt.tcp, ie, f, ie->dst_addr.data, ie->src_addr.data, 16);
	/* an IPv6 IPPROTO_RAW socket sends the IPv6 header given */
	__cleanup_close int raw = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	int mark = TCP_FIN_MARK;
	if (raw < 0 || setsockopt(raw, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
		return sk_errmsg(msg, len,
				 "raw socket for the peer's FIN (needs CAP_NET_RAW, CAP_NET_ADMIN)");
	struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_scope_id = ie->scope_id};
	memcpy(&to.sin6_addr, ie->src_addr.data, 16);
	if (sendto(raw, &pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)sizeof(pkt))
		return sk_errmsg(msg, len, "send the peer's %s", f->rst ? "RST" : "FIN");
	return 0;
}

static int tcp_state_of(int sk)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	return getsockopt(sk, IPPROTO_TCP, TCP_INFO, &ti, &l) ? -1 : ti.tcpi_state;
}

int tcp_fin_inject(int sk, const InetSkEntry *ie, const struct tcp_fin *f, char *msg, size_t len)
{
	const uint8_t *peer = v4_of(&ie->dst_addr), *me = v4_of(&ie->src_addr);
	if (!ie->has_src_addr || !ie->has_dst_addr || (!peer) != (!me) ||
	    (!peer && (ie->src_addr.len != 16 || ie->dst_addr.len != 16)))
		return sk_errmsg(msg, len, "the peer's FIN: bad connection addresses");
	if (peer ? send_v4(ie, f, peer, me, msg, len) : send_v6(ie, f, msg, len))
		return -1;
	/* the segment goes through the loopback device's backlog: wait until the socket has it */
	struct timespec ts = {0, 1000000};
	int st = tcp_state_of(sk);
	for (int i = 0; i < 5000 && st != (int)f->want_state; i++) {
		nanosleep(&ts, NULL);
		st = tcp_state_of(sk);
	}
	if (st != (int)f->want_state) {
		snprintf(msg, len, "the peer's %s was not taken: state %s, want %s", f->rst ? "RST" : "FIN",
			 sk_tcp_state_name((unsigned)st), sk_tcp_state_name(f->want_state));
		return -1;
	}
	return 0; /* no log here: in the restore child the log fd may be a restored fd by now */
}

int tcp_probe_peer(const InetSkEntry *ie)
{
	const TcpStreamEntry *t = ie->tcp;
	const uint8_t *peer = v4_of(&ie->dst_addr), *me = v4_of(&ie->src_addr);
	char msg[128];
	if (!t || !ie->has_src_addr || !ie->has_dst_addr || (!peer) != (!me) ||
	    (!peer && (ie->src_addr.len != 16 || ie->dst_addr.len != 16))) {
		errno = EINVAL;
		return -1;
	}
	/* far before what the socket has taken (rcv_wup <= rcv_nxt, a window is under 1 GiB): out of its
	 * window, answered with an ACK whatever it received since */
	struct tcp_fin f = {
	    .seq = t->inq_seq - (1u << 30), .ack = t->outq_seq - (uint32_t)t->outq_data.len, .probe = true};
	return peer ? send_v4(ie, &f, peer, me, msg, sizeof(msg)) : send_v6(ie, &f, msg, sizeof(msg));
}

/* ------------------------------------------------------------------ the restored ruleset lets the FIN in */

#define FIN_PASS "crshim-fin-pass" /* the comment of our rules in the tree's chains */

/* A table, chain or family name nft takes as it is. */
static bool nft_name(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

/* The table and chain a line of `nft list` output opens (1 table, 2 chain, 0 other); fam has room for 16
 * bytes, tbl and chain for 64. */
static int nft_scope(const char *line, char *fam, char *tbl, char *chain)
{
	char a[16], b[64];
	if (sscanf(line, " table %15s %63s {", a, b) == 2) {
		memcpy(fam, a, sizeof(a)), memcpy(tbl, b, sizeof(b)), chain[0] = '\0';
		return 1;
	}
	if (sscanf(line, " chain %63s {", b) == 1) {
		memcpy(chain, b, sizeof(b));
		return 2;
	}
	return 0;
}

static int append(char **buf, size_t *used, size_t *cap, const char *line)
{
	size_t l = strlen(line);
	if (*used + l + 1 > *cap) {
		size_t nc = (*cap + l + 1) * 2;
		char *nb = realloc(*buf, nc);
		if (!nb)
			return -1;
		*buf = nb, *cap = nc;
	}
	memcpy(*buf + *used, line, l + 1);
	*used += l;
	return 0;
}

/* The script for the chains nft listed (out): insert our rule into each base chain at a hook the FIN passes
 * (open), or delete our rules by handle (close). */
static char *fin_pass_script(char *out, bool open)
{
	char fam[16] = "", tbl[64] = "", chain[64] = "", hook[16], line[512];
	char *buf = NULL;
	size_t used = 0, cap = 0;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		const char *h;
		unsigned long handle;
		if (nft_scope(l, fam, tbl, chain) || !chain[0] || !nft_name(fam) || !nft_name(tbl) ||
		    !nft_name(chain) || (strcmp(fam, "ip") && strcmp(fam, "ip6") && strcmp(fam, "inet")))
			continue;
		if (open && sscanf(l, " type %*s hook %15[a-z]", hook) == 1 && strncmp(tbl, "crshim_", 7) &&
		    (!strcmp(hook, "prerouting") || !strcmp(hook, "input") || !strcmp(hook, "output")))
			snprintf(line, sizeof(line),
				 "insert rule %s %s %s meta mark %#x accept comment \"" FIN_PASS "\"\n", fam,
				 tbl, chain, TCP_FIN_MARK);
		else if (!open && strstr(l, "comment \"" FIN_PASS "\"") && (h = strstr(l, "# handle ")) &&
			 sscanf(h, "# handle %lu", &handle) == 1)
			snprintf(line, sizeof(line), "delete rule %s %s %s handle %lu\n", fam, tbl, chain,
				 handle);
		else
			continue;
		if (append(&buf, &used, &cap, line)) {
			free(buf);
			return NULL;
		}
	}
	return buf ? buf : strdup("");
}

static int fin_pass(bool open, struct cr_err *e)
{
	char *out = NULL;
	if (tcp_nft_run(open ? "list chains\n" : "list ruleset\n", !open, &out, e))
		return -1;
	char *script = fin_pass_script(out, open);
	free(out);
	if (!script)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int r = script[0] ? tcp_nft_run(script, false, NULL, e) : 0;
	if (!r && script[0])
		pr_info("%s\n", open ? "the restored ruleset's chains let the peers' FINs in"
				     : "the rules letting the peers' FINs in removed");
	free(script);
	return r;
}

int tcp_fin_pass_open(struct cr_err *e)
{
	return fin_pass(true, e) ? cr_wrap(e, "the peers' FINs through the restored ruleset") : 0;
}

void tcp_fin_pass_close(void)
{
	struct cr_err e = {0};
	if (fin_pass(false, &e))
		pr_warn("the rules letting the peers' FINs in: %s\n", e.msg);
}
