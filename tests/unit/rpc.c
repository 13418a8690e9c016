/* Unit tests of the RPC request decoder and its option mapping (shim/rpc.c) and of the CRIU configuration
 * file reader (shim/config.c): requests are packed with protobuf-c as a client would send them. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "../../shim/cli.c"
#include "../../shim/config.c"
#include "../../shim/rpc.c"
#include "tap.h"

static char msg[1024];
static char tmpdir[] = "/tmp/crshim-unit-rpc-XXXXXX";

static int decode(const RpcReq *q, struct shim_rpc_req *r)
{
	size_t len = rpc_req__get_packed_size(q);
	uint8_t *buf = malloc(len + 1);
	rpc_req__pack(q, buf);
	int ret = shim_rpc_decode(buf, len, getpid(), true, false, r, msg, sizeof(msg));
	free(buf);
	return ret;
}

static void t_version(void)
{
	RpcReq q = RPC_REQ__INIT;
	struct shim_rpc_req r;
	q.type = RPC_REQ_TYPE__VERSION;
	ok(decode(&q, &r) == 0 && r.req && r.req->type == RPC_REQ_TYPE__VERSION, "VERSION decodes");
	shim_rpc_req_free(&r);
	q.type = RPC_REQ_TYPE__FEATURE_CHECK;
	RpcFeatures f = RPC_FEATURES__INIT;
	f.has_mem_track = 1, f.mem_track = 1;
	q.features = &f;
	ok(decode(&q, &r) == 0 && r.req->features && r.req->features->has_mem_track,
	   "FEATURE_CHECK carries the asked feature");
	shim_rpc_req_free(&r);
}

static void t_malformed(void)
{
	struct shim_rpc_req r;
	static const uint8_t junk[] = {0x08, 0x01, 0x12, 0x40, 0x01};
	ok(shim_rpc_decode(junk, sizeof(junk), getpid(), false, false, &r, msg, sizeof(msg)) == -1,
	   "truncated request fails");
	ok(strstr(msg, "malformed") != NULL, "with a message: %s", msg);
	shim_rpc_req_free(&r);
	static const uint8_t notype[] = {0x18, 0x01}; /* notify_success only: required type missing */
	ok(shim_rpc_decode(notype, sizeof(notype), getpid(), false, false, &r, msg, sizeof(msg)) == -1,
	   "request without its type fails");
	shim_rpc_req_free(&r);
	RpcReq q = RPC_REQ__INIT;
	q.type = RPC_REQ_TYPE__DUMP;
	ok(decode(&q, &r) == -1 && strstr(msg, "criu_opts"), "DUMP without criu_opts fails: %s", msg);
	shim_rpc_req_free(&r);
	/* every prefix of a real request: fails or decodes, never crashes */
	RpcOpts o = RPC_OPTS__INIT;
	q.opts = &o;
	o.images_dir_fd = 0, o.log_file = "dump.log", o.root = "/tmp";
	size_t len = rpc_req__get_packed_size(&q);
	uint8_t *buf = malloc(len);
	rpc_req__pack(&q, buf);
	int crashed = 0;
	for (size_t n = 0; n < len; n++) {
		if (shim_rpc_decode(buf, n, getpid(), false, false, &r, msg, sizeof(msg)) == 0 && !r.req)
			crashed++;
		shim_rpc_req_free(&r);
	}
	ok(!crashed, "each of the %zu prefixes of a DUMP request fails or decodes", len);
	free(buf);
}

/* What runc 1.1 sends for `runc checkpoint --leave-running --tcp-established`. */
static void runc_dump(RpcReq *q, RpcOpts *o, int dirfd)
{
	q->type = RPC_REQ_TYPE__DUMP;
	q->opts = o;
	o->images_dir_fd = dirfd;
	o->has_work_dir_fd = 1, o->work_dir_fd = dirfd;
	o->has_pid = 1, o->pid = 4242;
	o->has_leave_running = 1, o->leave_running = 1;
	o->has_ext_unix_sk = 1, o->ext_unix_sk = 0;
	o->has_tcp_established = 1, o->tcp_established = 1;
	o->has_shell_job = 1, o->shell_job = 0;
	o->has_file_locks = 1, o->file_locks = 1;
	o->has_log_level = 1, o->log_level = 4;
	o->log_file = "dump.log";
	o->has_notify_scripts = 1, o->notify_scripts = 1;
	o->root = "/run/rootfs";
	o->has_auto_dedup = 1, o->auto_dedup = 0;
	o->has_lazy_pages = 1, o->lazy_pages = 0;
	o->has_orphan_pts_master = 1, o->orphan_pts_master = 1;
	o->has_manage_cgroups = 1, o->manage_cgroups = 1;
	o->has_manage_cgroups_mode = 1, o->manage_cgroups_mode = RPC_CG_MODE__SOFT;
}

static void t_dump(void)
{
	RpcReq q = RPC_REQ__INIT;
	RpcOpts o = RPC_OPTS__INIT;
	struct shim_rpc_req r;
	int dirfd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	runc_dump(&q, &o, dirfd);
	ok(decode(&q, &r) == 0, "runc's DUMP maps (%s)", msg);
	struct cr_opts *c = &r.cmd.opts;
	is_int(r.cmd.verb, VERB_DUMP, "verb dump");
	is_int(c->pid, 4242, "pid");
	is_str(c->images_dir, tmpdir, "images_dir_fd read through /proc/PEER/fd");
	is_str(c->work_dir, tmpdir, "work_dir_fd likewise");
	is_str(c->log_file, "dump.log", "log_file");
	is_int(c->verbosity, 4, "log_level");
	is_str(c->root, "/run/rootfs", "root");
	ok(c->leave_running && c->tcp_established && c->file_locks,
	   "leave_running, tcp_established, file_locks");
	ok(!c->shell_job && !c->ext_unix_sk, "false booleans stay false");
	ok(r.notify && r.orphan_pts, "notify_scripts and orphan_pts_master seen");
	shim_rpc_req_free(&r);

	o.has_pid = 0;
	ok(decode(&q, &r) == 0 && r.cmd.opts.pid == getpid(), "no pid: the client itself (CRIU)");
	shim_rpc_req_free(&r);

	char *cmd[] = {"/bin/true"};
	o.n_exec_cmd = 1, o.exec_cmd = cmd;
	ok(decode(&q, &r) == -1 && strstr(msg, "criu_opts.exec_cmd"), "an option we lack names its field: %s",
	   msg);
	shim_rpc_req_free(&r);
	o.n_exec_cmd = 0;

	o.log_file = "../x.log";
	ok(decode(&q, &r) == -1 && strstr(msg, "criu_opts.log_file"), "log_file with a '/' refused: %s", msg);
	shim_rpc_req_free(&r);
	// cppcheck-suppress redundantAssignment ; o is read through q.opts by each decode()
	o.log_file = "dump.log";

	o.images_dir_fd = -1;
	o.images_dir = tmpdir;
	ok(decode(&q, &r) == 0 && r.cmd.opts.images_dir && !strcmp(r.cmd.opts.images_dir, tmpdir),
	   "images_dir when images_dir_fd is -1");
	shim_rpc_req_free(&r);
	// cppcheck-suppress redundantAssignment ; o is read through q.opts by each decode()
	o.images_dir = NULL;
	ok(decode(&q, &r) == -1 && strstr(msg, "images_dir"), "no images dir at all: %s", msg);
	shim_rpc_req_free(&r);
	close(dirfd);
}

static void t_restore(void)
{
	RpcReq q = RPC_REQ__INIT;
	RpcOpts o = RPC_OPTS__INIT;
	RpcInheritFd i0 = RPC_INHERIT_FD__INIT, *ifd[] = {&i0};
	RpcExtMountMap m0 = RPC_EXT_MOUNT_MAP__INIT, *mnt[] = {&m0};
	char *ext[] = {"net[4026531840]:extRootNetNS"};
	struct shim_rpc_req r;
	q.type = RPC_REQ_TYPE__RESTORE;
	q.opts = &o;
	o.images_dir_fd = -1, o.images_dir = tmpdir;
	o.has_rst_sibling = 1, o.rst_sibling = 1;
	o.has_pid = 1, o.pid = 99; /* ignored on restore */
	i0.key = "pipe:[1234]", i0.fd = 0;
	o.n_inherit_fd = 1, o.inherit_fd = ifd;
	m0.key = "/etc/hosts", m0.val = "/var/lib/x/hosts";
	o.n_ext_mnt = 1, o.ext_mnt = mnt;
	o.n_external = 1, o.external = ext;
	o.log_file = "restore.log";
	ok(decode(&q, &r) == 0, "runc-like RESTORE maps (%s)", msg);
	is_int(r.cmd.verb, VERB_RESTORE, "verb restore");
	ok(r.cmd.opts.restore_sibling, "rst_sibling");
	is_int(r.cmd.opts.pid, 0, "pid not used on restore");
	ok(r.cmd.opts.n_inherit_fd == 1 && !strcmp(r.cmd.opts.inherit_fd[0], "fd[0]:pipe:[1234]"),
	   "inherit_fd as --inherit-fd fd[0]:pipe:[1234]");
	ok(r.cmd.opts.n_external == 2 &&
	       !strcmp(r.cmd.opts.external[0], "mnt[/etc/hosts]:/var/lib/x/hosts") &&
	       !strcmp(r.cmd.opts.external[1], ext[0]),
	   "ext_mnt and external as --external");
	shim_rpc_req_free(&r);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void t_config(void)
{
	char path[256], bad[256];
	snprintf(path, sizeof(path), "%s/runc.conf", tmpdir);
	snprintf(bad, sizeof(bad), "%s/bad.conf", tmpdir);
	write_file(path,
		   "# CRIU syntax\n  tcp-close\n--ghost-limit 2M\nlog-file \"my log.txt\" # trailing\n\n");
	write_file(bad, "tcp-established\nno-such-option\n");
	RpcReq q = RPC_REQ__INIT;
	RpcOpts o = RPC_OPTS__INIT;
	struct shim_rpc_req r;
	q.type = RPC_REQ_TYPE__DUMP;
	q.opts = &o;
	o.images_dir_fd = -1, o.images_dir = tmpdir;
	o.has_ghost_limit = 1, o.ghost_limit = 100;
	// cppcheck-suppress redundantAssignment ; o is read through q.opts by each decode()
	o.log_file = "dump.log";
	o.config_file = path;
	ok(decode(&q, &r) == 0, "config_file read (%s)", msg);
	ok(r.cmd.opts.tcp_close, "option without -- and a value-less one");
	ok(r.cmd.opts.ghost_limit == 2u << 20, "the file's value wins over the client's (CRIU's order)");
	is_str(r.cmd.opts.log_file, "my log.txt", "quoted value, trailing comment");
	shim_rpc_req_free(&r);
	// cppcheck-suppress redundantAssignment ; o is read through q.opts by each decode()
	o.config_file = bad;
	ok(decode(&q, &r) == -1 && strstr(msg, "bad.conf") && strstr(msg, "no-such-option"),
	   "an unknown option of the file names the file: %s", msg);
	shim_rpc_req_free(&r);
	// cppcheck-suppress redundantAssignment ; o is read through q.opts by each decode()
	o.config_file = "/nonexistent/runc.conf";
	ok(decode(&q, &r) == 0, "a missing config_file is no error (runc always names runc.conf)");
	shim_rpc_req_free(&r);

	/* the command line: defaults (none here), --config, then the line itself */
	struct shim_args a = {0};
	char *argv[] = {"crshim", "dump", "--config", path, "--ghost-limit", "3M", "-t",
			"1",	  "-D",	  tmpdir,     NULL};
	struct shim_cmd c;
	ok(shim_config_expand(10, argv, NULL, NULL, false, &a, msg, sizeof(msg)) == 0, "--config expands");
	ok(shim_parse(a.n, a.v, &c, msg, sizeof(msg)) == 0, "and parses (%s)", msg);
	ok(c.opts.tcp_close && c.opts.ghost_limit == 3u << 20, "the command line wins over --config");
	shim_args_free(&a);
	char *argv2[] = {"crshim", "--config", "/nonexistent.conf", "check", NULL};
	ok(shim_config_expand(4, argv2, NULL, NULL, false, &a, msg, sizeof(msg)) == -1 &&
	       strstr(msg, "nonexistent"),
	   "--config of a missing file fails: %s", msg);
	shim_args_free(&a);
	write_file(bad, "log-file \"unterminated\n");
	ok(shim_config_read(bad, true, &a, msg, sizeof(msg)) == -1 && strstr(msg, ":1:"), "bad quote: %s",
	   msg);
	shim_args_free(&a);
	write_file(bad, "ghost-limit 1M 2M\n");
	ok(shim_config_read(bad, true, &a, msg, sizeof(msg)) == -1 && strstr(msg, "more than one"),
	   "two values: %s", msg);
	shim_args_free(&a);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	t_version();
	t_malformed();
	t_dump();
	t_restore();
	t_config();
	tap_rm_dir(tmpdir);
	return done_testing();
}
