/* CRIU's RPC (swrk): decoding a request and mapping its criu_opts onto the command line's options. */
#ifndef SHIM_RPC_H
#define SHIM_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "cli.h"
#include "rpc.pb-c.h"

/* The version swrk reports (go-criu: major*10000 + minor*100 + sublevel); runc needs >= 3.0, Podman 3.11. */
#define SHIM_RPC_MAJOR 3
#define SHIM_RPC_MINOR 17
#define SHIM_RPC_SUBLEVEL 1

/* Largest request accepted (CRIU's requests are a few hundred bytes; runc's with many mounts a few KiB). */
#define SHIM_RPC_MAX_REQ (1 << 20)

struct shim_rpc_req {
	RpcReq *req;	       /* unpacked request (rpc_req__free_unpacked) */
	struct shim_cmd cmd;   /* DUMP, PRE_DUMP, RESTORE: the options as the command line would give them */
	struct shim_args args; /* the argv cmd was parsed from (cmd points into it) */
	bool notify;	       /* notify_scripts */
	bool orphan_pts;       /* orphan_pts_master */
};

/* Decode one datagram. For DUMP, PRE_DUMP and RESTORE also map criu_opts to the command line's options
 * (shim_parse), reading the configuration file of config_file if read_config (and the default ones too if
 * defaults); peer is the client's pid (its images_dir_fd/work_dir_fd are /proc/PEER/fd/N). Returns 0, or -1
 * with one line in msg naming the criu_opts field at fault; r->req may be set (and the type known) even on
 * failure. Free with shim_rpc_req_free. Usable from a fuzzer (no I/O unless read_config). */
int shim_rpc_decode(const void *buf, size_t len, pid_t peer, bool read_config, bool defaults,
		    struct shim_rpc_req *r, char *msg, size_t mlen);
void shim_rpc_req_free(struct shim_rpc_req *r);
const char *shim_rpc_type_name(int type);

#endif
