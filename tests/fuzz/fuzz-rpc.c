/* libFuzzer target: the RPC request decoder and its option mapping (shim_rpc_decode in shim/rpc.c).
 * Input: one datagram as a client would send it to `crshim swrk`. No configuration file is read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shim_rpc_req r;
	char msg[1024];
	int ret = shim_rpc_decode(data, size, getpid(), false, false, &r, msg, sizeof(msg));
	if (ret == 0) {
		if (!r.req)
			abort(); /* a decoded request is there */
		bool mapped = r.req->type == RPC_REQ_TYPE__DUMP || r.req->type == RPC_REQ_TYPE__PRE_DUMP ||
			      r.req->type == RPC_REQ_TYPE__RESTORE;
		if (mapped && (r.cmd.verb == VERB_NONE || !r.cmd.opts.images_dir))
			abort(); /* a mapped request has its verb and images dir */
	} else if (!memchr(msg, '\0', sizeof(msg)) || !msg[0]) {
		abort(); /* an error must come with a message */
	}
	shim_rpc_req_free(&r);
	return 0;
}
