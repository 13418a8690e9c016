/* libFuzzer target: the swrk service loop (shim_swrk in shim/swrk.c) fed framed messages over a real
 * SOCK_SEQPACKET socket pair, as runc and go-criu talk to it. Input: frames, each a 2-byte little-endian
 * length and that many bytes (at most 16 frames); each frame is one datagram. Requests that would act on this
 * machine (DUMP, PRE_DUMP, RESTORE, CHECK) and ones naming a config_file are left out (fuzz-rpc decodes
 * those); every reply must be a well-formed RpcResp, and the loop must end when the client closes its end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cli.h"
#include "rpc.pb-c.h"

#define MAX_FRAMES 16

static bool acts(const uint8_t *p, size_t n)
{
	RpcReq *q = rpc_req__unpack(NULL, n, p);
	if (!q)
		return false; /* swrk refuses it before anything */
	bool a = q->type == RPC_REQ_TYPE__DUMP || q->type == RPC_REQ_TYPE__PRE_DUMP ||
		 q->type == RPC_REQ_TYPE__RESTORE || q->type == RPC_REQ_TYPE__CHECK ||
		 (q->opts && q->opts->config_file);
	rpc_req__free_unpacked(q, NULL);
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return 0;
	int sent = 0;
	for (size_t pos = 0; pos + 2 <= size && sent < MAX_FRAMES;) {
		size_t n = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
		pos += 2;
		if (n > size - pos)
			n = size - pos;
		if (n && !acts(data + pos, n) && send(sv[0], data + pos, n, MSG_DONTWAIT) == (ssize_t)n)
			sent++;
		pos += n;
	}
	shutdown(sv[0], SHUT_WR);
	char fd[16];
	snprintf(fd, sizeof(fd), "%d", sv[1]);
	struct shim_cmd c = {.verb = VERB_SWRK, .operand = fd};
	shim_swrk(&c); /* closes sv[1] */
	uint8_t buf[65536];
	ssize_t n;
	int replies = 0;
	while ((n = recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		RpcResp *r = rpc_resp__unpack(NULL, (size_t)n, buf);
		if (!r)
			abort(); /* swrk sent something a client cannot decode */
		rpc_resp__free_unpacked(r, NULL);
		replies++;
	}
	if (replies > sent)
		abort(); /* one reply per request at most */
	close(sv[0]);
	return 0;
}
