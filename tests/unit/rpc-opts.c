/* The criu_opts audit (shim/README.md, "criu_opts fields"): every field of criu_opts, found through the
 * protobuf-c descriptor so that a field added to proto/rpc.proto without a row here fails, is sent alone on
 * top of a minimal DUMP or RESTORE, and must be mapped (the option it should set is checked), refused with a
 * cr_errmsg naming "criu_opts.FIELD", or accepted with no effect (noted in the log as ignored). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "../../shim/cli.c"
#include "../../shim/config.c"
#include "../../shim/rpc.c"
#include "tap.h"

enum kind { MAPPED, REFUSED, NOEFFECT };

/* One case: field number, variant (a field can be mapped with one value and refused with another), what to
 * expect, and whether it goes on a RESTORE (else a DUMP). */
struct row {
	const char *name;
	int num, variant;
	enum kind kind;
	bool restore;
};

static const struct row rows[] = {
    {"images_dir_fd", 1, 0, MAPPED, false},
    {"pid", 2, 0, MAPPED, false},
    {"leave_running", 3, 0, MAPPED, false},
    {"ext_unix_sk", 4, 0, MAPPED, false},
    {"tcp_established", 5, 0, MAPPED, false},
    {"evasive_devices", 6, 0, NOEFFECT, true},
    {"shell_job", 7, 0, MAPPED, false},
    {"file_locks", 8, 0, MAPPED, false},
    {"log_level", 9, 0, MAPPED, false},
    {"log_file", 10, 0, MAPPED, false},
    {"ps", 11, 0, MAPPED, false},
    {"ps", 11, 1, REFUSED, false}, /* a connected fd instead of address:port */
    {"notify_scripts", 12, 0, MAPPED, false},
    {"root", 13, 0, MAPPED, false},
    {"parent_img", 14, 0, MAPPED, false},
    {"track_mem", 15, 0, MAPPED, false},
    {"auto_dedup", 16, 0, MAPPED, false},
    {"work_dir_fd", 17, 0, MAPPED, false},
    {"link_remap", 18, 0, NOEFFECT, false},
    {"veths", 19, 0, MAPPED, true},
    {"cpu_cap", 20, 0, NOEFFECT, false},
    {"force_irmap", 21, 0, NOEFFECT, false},
    {"exec_cmd", 22, 0, REFUSED, true},
    {"ext_mnt", 23, 0, MAPPED, false},
    {"manage_cgroups", 24, 0, MAPPED, false},
    {"cg_root", 25, 0, MAPPED, true},
    {"rst_sibling", 26, 0, MAPPED, true},
    {"inherit_fd", 27, 0, MAPPED, true},
    {"auto_ext_mnt", 28, 0, MAPPED, false},
    {"ext_sharing", 29, 0, MAPPED, false},
    {"ext_masters", 30, 0, MAPPED, false},
    {"skip_mnt", 31, 0, REFUSED, false},
    {"enable_fs", 32, 0, REFUSED, false},
    {"unix_sk_ino", 33, 0, MAPPED, false},
    {"manage_cgroups_mode", 34, 0, MAPPED, false},
    {"ghost_limit", 35, 0, MAPPED, false},
    {"irmap_scan_paths", 36, 0, NOEFFECT, false},
    {"external", 37, 0, MAPPED, false},
    {"empty_ns", 38, 0, MAPPED, true},
    {"empty_ns", 38, 1, REFUSED, true}, /* a namespace other than net */
    {"join_ns", 39, 0, MAPPED, true},
    {"cgroup_props", 41, 0, REFUSED, false},
    {"cgroup_props_file", 42, 0, REFUSED, false},
    {"cgroup_dump_controller", 43, 0, REFUSED, false},
    {"freeze_cgroup", 44, 0, MAPPED, false},
    {"timeout", 45, 0, NOEFFECT, false},
    {"tcp_skip_in_flight", 46, 0, MAPPED, false},
    {"weak_sysctls", 47, 0, NOEFFECT, true},
    {"lazy_pages", 48, 0, MAPPED, true},
    {"lazy_pages", 48, 1, MAPPED, false},  /* dump --lazy-pages: it serves the pages (ps: where) */
    {"status_fd", 49, 0, MAPPED, true},	   /* with lazy_pages */
    {"status_fd", 49, 1, NOEFFECT, false}, /* CRIU uses it for lazy pages only */
    {"orphan_pts_master", 50, 0, MAPPED, true},
    {"config_file", 51, 0, MAPPED, false},
    {"tcp_close", 52, 0, MAPPED, true},
    {"lsm_profile", 53, 0, REFUSED, true},
    {"tls_cacert", 54, 0, REFUSED, false},
    {"tls_cacrl", 55, 0, REFUSED, false},
    {"tls_cert", 56, 0, REFUSED, false},
    {"tls_key", 57, 0, REFUSED, false},
    {"tls", 58, 0, REFUSED, false},
    {"tls_no_cn_verify", 59, 0, REFUSED, false},
    {"cgroup_yard", 60, 0, NOEFFECT, true},
    {"pre_dump_mode", 61, 0, NOEFFECT, false},
    {"pidfd_store_sk", 62, 0, NOEFFECT, false},
    {"lsm_mount_context", 63, 0, REFUSED, true},
    {"network_lock", 64, 0, MAPPED, false},
    {"network_lock", 64, 1, MAPPED, false}, /* iptables */
    {"mntns_compat_mode", 65, 0, NOEFFECT, true},
    {"skip_file_rwx_check", 66, 0, REFUSED, true},
    {"unprivileged", 67, 0, NOEFFECT, false},
    {"images_dir", 68, 0, MAPPED, false},
    {"leave_stopped", 69, 0, REFUSED, false},
    {"display_stats", 70, 0, MAPPED, false},
    {"log_to_stderr", 71, 0, MAPPED, false},
};

static char msg[1024];
static char tmpdir[] = "/tmp/crshim-unit-rpc-opts-XXXXXX";
static char conf[PATH_MAX];
static int dirfd_ = -1;

static RpcPageServerInfo ps = RPC_PAGE_SERVER_INFO__INIT;
static RpcVethPair veth = RPC_VETH_PAIR__INIT, *veths[] = {&veth};
static RpcExtMountMap mnt = RPC_EXT_MOUNT_MAP__INIT, *mnts[] = {&mnt};
static RpcCgroupRoot cgr = RPC_CGROUP_ROOT__INIT, *cgrs[] = {&cgr};
static RpcInheritFd ifd = RPC_INHERIT_FD__INIT, *ifds[] = {&ifd};
static RpcUnixSk usk = RPC_UNIX_SK__INIT, *usks[] = {&usk};
static RpcJoinNamespace jns = RPC_JOIN_NAMESPACE__INIT, *jnss[] = {&jns};
static char *ext_str[] = {"net[4026531840]:extRootNetNS"};

static char *one_str[] = {"/x"};

/* The plain fields, through the descriptor: an optional bool set true, an optional string or number to its
 * value in vals (else "/x", 1), a repeated string to {"/x"}. */
static void set_plain(RpcOpts *o, int num)
{
	static const struct {
		const char *s;
		int num;
		uint32_t v;
	} vals[] = {
	    {NULL, 2, 4243},
	    {NULL, 9, 1},
	    {"/run/rootfs-x", 13, 0},
	    {"../pre", 14, 0},
	    {NULL, 20, 1},
	    {NULL, 34, RPC_CG_MODE__FULL},
	    {NULL, 35, 3u << 20},
	    {"/sys/fs/cgroup/crshim-rpc-opts", 44, 0},
	    {NULL, 45, 7},
	    {conf, 51, 0},
	    {"apparmor:crshim-x", 53, 0},
	    {NULL, 61, RPC_PRE_DUMP_MODE__VM_READ},
	    {NULL, 62, 5},
	    {"system_u:object_r:container_file_t:s0", 63, 0},
	};
	const ProtobufCFieldDescriptor *f =
	    protobuf_c_message_descriptor_get_field(&rpc_opts__descriptor, num);
	char *raw = (char *)o;
	const char *str = "/x";
	uint32_t v = 1;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i].num == num)
			str = vals[i].s, v = vals[i].v;
	if (!f)
		return;
	if (f->label == PROTOBUF_C_LABEL_REPEATED && f->type == PROTOBUF_C_TYPE_STRING) {
		*(size_t *)(raw + f->quantifier_offset) = 1;
		*(char ***)(raw + f->offset) = one_str;
	} else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type == PROTOBUF_C_TYPE_STRING) {
		*(const char **)(raw + f->offset) = str;
	} else if (f->label == PROTOBUF_C_LABEL_OPTIONAL) { /* bool, int32, uint32, enum */
		*(protobuf_c_boolean *)(raw + f->quantifier_offset) = 1;
		if (f->type == PROTOBUF_C_TYPE_BOOL)
			*(protobuf_c_boolean *)(raw + f->offset) = 1;
		else
			*(uint32_t *)(raw + f->offset) = v;
	}
}

static void set(RpcOpts *o, int num, int variant)
{
	switch (num) {
	case 1: /* the base request has it */
	case 10:
		break;
	case 11:
		o->ps = &ps;
		ps.address = variant ? NULL : "127.0.0.1";
		ps.has_port = !variant, ps.port = 27001;
		ps.has_fd = variant, ps.fd = 5;
		break;
	case 17:
		o->has_work_dir_fd = 1, o->work_dir_fd = dirfd_;
		break;
	case 19:
		veth.if_in = "eth0", veth.if_out = "vethout0";
		o->n_veths = 1, o->veths = veths;
		break;
	case 23:
		mnt.key = "/etc/hosts", mnt.val = "/etc/hosts";
		o->n_ext_mnt = 1, o->ext_mnt = mnts;
		break;
	case 25:
		cgr.ctrl = NULL, cgr.path = "/crshim-rpc-opts";
		o->n_cg_root = 1, o->cg_root = cgrs;
		break;
	case 27:
		ifd.key = "pipe:[1234]", ifd.fd = 0;
		o->n_inherit_fd = 1, o->inherit_fd = ifds;
		break;
	case 33:
		usk.inode = 4321, o->n_unix_sk_ino = 1, o->unix_sk_ino = usks;
		break;
	case 37:
		o->n_external = 1, o->external = ext_str;
		break;
	case 38:
		o->has_empty_ns = 1, o->empty_ns = variant ? 0x04000000u : 0x40000000u;
		break;
	case 39:
		jns.ns = "uts", jns.ns_file = "/proc/1/ns/uts", jns.extra_opt = NULL;
		o->n_join_ns = 1, o->join_ns = jnss;
		break;
	case 49:
		o->has_status_fd = 1, o->status_fd = 7;
		if (!variant)
			o->has_lazy_pages = 1, o->lazy_pages = 1;
		break;
	case 64:
		o->has_network_lock = 1;
		o->network_lock = variant ? RPC_NETWORK_LOCK__IPTABLES : RPC_NETWORK_LOCK__NFTABLES;
		break;
	case 68:
		o->images_dir_fd = -1, o->images_dir = tmpdir;
		break;
	default:
		set_plain(o, num);
		break;
	}
}

static bool has_ext(const struct cr_opts *c, const char *want)
{
	for (int i = 0; i < c->n_external; i++)
		if (!strcmp(c->external[i], want))
			return true;
	return false;
}

/* The option a mapped field must reach. */
static bool reached(int num, const struct shim_rpc_req *r)
{
	const struct cr_opts *c = &r->cmd.opts;
	switch (num) {
	case 1:
		return c->images_dir && !strcmp(c->images_dir, tmpdir);
	case 2:
		return c->pid == 4243;
	case 3:
		return c->leave_running;
	case 4:
		return c->ext_unix_sk;
	case 5:
		return c->tcp_established;
	case 7:
		return c->shell_job;
	case 8:
		return c->file_locks;
	case 9:
		return c->verbosity == 1;
	case 10:
		return c->log_file && !strcmp(c->log_file, "dump.log");
	case 11:
		return c->page_server && c->ps_address && !strcmp(c->ps_address, "127.0.0.1") &&
		       c->ps_port == 27001;
	case 12:
		return r->notify;
	case 13:
		return c->root && !strcmp(c->root, "/run/rootfs-x");
	case 14:
		return c->prev_images_dir && !strcmp(c->prev_images_dir, "../pre");
	case 15:
		return c->track_mem;
	case 16:
		return c->auto_dedup;
	case 17:
		return c->work_dir && !strcmp(c->work_dir, tmpdir);
	case 19:
		return has_ext(c, "veth[eth0]:vethout0");
	case 23:
		return has_ext(c, "mnt[/etc/hosts]:/etc/hosts");
	case 24:
		return c->manage_cgroups == CR_CG_SOFT;
	case 25:
		return c->n_cgroup_root == 1 && !strcmp(c->cgroup_root[0], "/crshim-rpc-opts");
	case 26:
		return c->restore_sibling;
	case 27:
		return c->n_inherit_fd == 1 && !strcmp(c->inherit_fd[0], "fd[0]:pipe:[1234]");
	case 28:
		return c->ext_mnt_auto;
	case 29:
		return c->ext_sharing;
	case 30:
		return c->ext_masters;
	case 33:
		return has_ext(c, "unix[4321]");
	case 34:
		return c->manage_cgroups == CR_CG_FULL;
	case 35:
		return c->ghost_limit == 3u << 20;
	case 37:
		return has_ext(c, ext_str[0]);
	case 38:
		return c->empty_ns == 0x40000000u;
	case 39:
		return c->n_join_ns == 1 && !strcmp(c->join_ns[0], "uts:/proc/1/ns/uts");
	case 70:
		return r->cmd.display_stats;
	case 44:
		return c->freeze_cgroup && !strcmp(c->freeze_cgroup, "/sys/fs/cgroup/crshim-rpc-opts");
	case 46:
		return c->skip_in_flight;
	case 48:
		return c->lazy_pages;
	case 49:
		return r->cmd.status_fd == 7;
	case 50:
		return c->orphan_pts && r->orphan_pts;
	case 51: /* the file says tcp-close */
	case 52:
		return c->tcp_close;
	case 64:
		return c->network_lock &&
		       (!strcmp(c->network_lock, "nftables") || !strcmp(c->network_lock, "iptables"));
	case 68:
		return c->images_dir && !strcmp(c->images_dir, tmpdir);
	case 71:
		return r->cmd.log_to_stderr;
	default:
		return false;
	}
}

static int decode(const RpcReq *q, struct shim_rpc_req *r)
{
	size_t len = rpc_req__get_packed_size(q);
	uint8_t *buf = malloc(len + 1);
	if (!buf)
		return -2;
	rpc_req__pack(q, buf);
	int ret = shim_rpc_decode(buf, len, getpid(), true, false, r, msg, sizeof(msg));
	free(buf);
	return ret;
}

static void base(RpcReq *q, RpcOpts *o, bool restore)
{
	rpc_req__init(q);
	rpc_opts__init(o);
	q->type = restore ? RPC_REQ_TYPE__RESTORE : RPC_REQ_TYPE__DUMP;
	q->opts = o;
	o->images_dir_fd = dirfd_;
	o->log_file = restore ? "restore.log" : "dump.log";
	if (!restore)
		o->has_pid = 1, o->pid = 4242;
}

static void t_row(const struct row *w)
{
	RpcReq q;
	RpcOpts o;
	struct shim_rpc_req r = {0};
	char want[96];
	base(&q, &o, w->restore);
	set(&o, w->num, w->variant);
	int rc = decode(&q, &r);
	snprintf(want, sizeof(want), "criu_opts.%s", w->name);
	const char *how = w->kind == MAPPED ? "mapped" : w->kind == REFUSED ? "refused" : "no effect";
	if (w->kind == REFUSED)
		ok(rc == -1 && strstr(msg, want), "%d %s (%s): refused naming it: %s", w->num, w->name, how,
		   msg);
	else if (w->kind == MAPPED)
		ok(rc == 0 && reached(w->num, &r), "%d %s: mapped to its option (%s)", w->num, w->name, msg);
	else
		ok(rc == 0 && (w->num == 49 ? r.cmd.status_fd == -1 : r.cmd.n_notes > 0),
		   "%d %s: accepted, no effect, noted in the log (%s)", w->num, w->name, msg);
	shim_rpc_req_free(&r);
}

/* Every field of the descriptor has a row, and every row names a field of that number. */
static void t_complete(void)
{
	const ProtobufCMessageDescriptor *d = &rpc_opts__descriptor;
	unsigned missing = 0;
	for (unsigned i = 0; i < d->n_fields; i++) {
		bool found = false;
		for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
			found |=
			    rows[k].num == (int)d->fields[i].id && !strcmp(rows[k].name, d->fields[i].name);
		if (!found) {
			diag("criu_opts field %u %s has no audit row", d->fields[i].id, d->fields[i].name);
			missing++;
		}
	}
	ok(missing == 0, "all %u criu_opts fields audited (%u missing)", d->n_fields, missing);
	unsigned bad = 0;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field(d, rows[k].num);
		bad += !f || strcmp(f->name, rows[k].name);
	}
	ok(bad == 0, "every row names its field by the right number");
}

/* A field this proto does not know (CRIU's later numbers) is ignored, not refused. */
static void t_unknown(void)
{
	RpcReq q;
	RpcOpts o;
	struct shim_rpc_req r = {0};
	base(&q, &o, false);
	size_t len = rpc_req__get_packed_size(&q);
	uint8_t *buf = malloc(len + 16);
	if (!buf)
		return;
	rpc_req__pack(&q, buf);
	/* criu_req.opts is field 2, length-delimited: 0x12 LEN; append to opts field 99 varint 1 (0x98 0x06
	 * 0x01). */
	size_t at = 0;
	while (at < len && buf[at] != 0x12)
		at++;
	ok(at < len && buf[at + 1] < 0x7d, "opts found in the packed request");
	if (at < len && buf[at + 1] < 0x7d) {
		size_t end = at + 2 + buf[at + 1];
		memmove(buf + end + 3, buf + end, len - end);
		buf[end] = 0x98, buf[end + 1] = 0x06, buf[end + 2] = 0x01;
		buf[at + 1] += 3;
		int rc = shim_rpc_decode(buf, len + 3, getpid(), true, false, &r, msg, sizeof(msg));
		ok(rc == 0 && r.cmd.opts.pid == 4242, "an unknown criu_opts field (99) is ignored (%s)", msg);
		shim_rpc_req_free(&r);
	}
	free(buf);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	dirfd_ = open(tmpdir, O_RDONLY | O_DIRECTORY);
	snprintf(conf, sizeof(conf), "%s/runc.conf", tmpdir);
	FILE *f = fopen(conf, "w");
	if (!f)
		return 1;
	fputs("# a CRIU configuration file\ntcp-close\n", f);
	fclose(f);
	t_complete();
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		t_row(&rows[k]);
	t_unknown();
	close(dirfd_);
	tap_rm_dir(tmpdir);
	return done_testing();
}
