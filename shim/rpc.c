/* CRIU's RPC requests: decode, and map criu_opts onto command-line options. There is one option path: every
 * criu_opts field becomes the CRIU command-line option that means the same, and the command line's parser
 * (shim_parse) fills the options; a field the parser refuses fails the request with the field's name. */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rpc.h"

static const char *const type_names[] = {
    "EMPTY",	   "DUMP",     "RESTORE",	   "CHECK",	      "PRE_DUMP",
    "PAGE_SERVER", "NOTIFY",   "CPUINFO_DUMP",	   "CPUINFO_CHECK",   "FEATURE_CHECK",
    "VERSION",	   "WAIT_PID", "PAGE_SERVER_CHLD", "SINGLE_PRE_DUMP",
};

const char *shim_rpc_type_name(int type)
{
	if (type >= 0 && (size_t)type < sizeof(type_names) / sizeof(type_names[0]))
		return type_names[type];
	return "UNKNOWN";
}

void shim_rpc_req_free(struct shim_rpc_req *r)
{
	if (r->req)
		rpc_req__free_unpacked(r->req, NULL);
	r->req = NULL;
	shim_args_free(&r->args);
}

/* Building the argv: each argument remembers the criu_opts field it came from. */
struct build {
	struct shim_args *a;
	pid_t peer;
	int oom;
};

static void arg(struct build *b, const char *field, const char *s)
{
	if (shim_args_add(b->a, s, field))
		b->oom = 1;
}

/* One token "--opt=val": every argument is one option (the parser's error then points at one field). */
static void arg2(struct build *b, const char *field, const char *opt, const char *val)
{
	size_t n = strlen(opt) + strlen(val ? val : "") + 2;
	char *s = malloc(n);
	if (!s) {
		b->oom = 1;
		return;
	}
	snprintf(s, n, "%s=%s", opt, val ? val : "");
	arg(b, field, s);
	free(s);
}

static void argf(struct build *b, const char *field, const char *opt, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void argf(struct build *b, const char *field, const char *opt, const char *fmt, ...)
{
	char v[PATH_MAX + 64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	arg2(b, field, opt, v);
}

/* A directory fd of the client: its path (what /proc/PEER/fd/N links to), else the /proc path itself. */
static void client_dir(struct build *b, const char *field, const char *opt, int fd)
{
	char proc[64], path[PATH_MAX];
	snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)b->peer, fd);
	ssize_t n = readlink(proc, path, sizeof(path) - 1);
	if (n > 0 && path[0] == '/') {
		path[n] = '\0';
		arg2(b, field, opt, path);
	} else {
		arg2(b, field, opt, proc);
	}
}

static void flag(struct build *b, const char *field, protobuf_c_boolean has, protobuf_c_boolean v,
		 const char *opt)
{
	if (has && v)
		arg(b, field, opt);
}

static const char *cg_mode(RpcCgMode m)
{
	switch (m) {
	case RPC_CG_MODE__IGNORE:
		return "ignore";
	case RPC_CG_MODE__CG_NONE:
		return "none";
	case RPC_CG_MODE__PROPS:
		return "props";
	case RPC_CG_MODE__SOFT:
		return "soft";
	case RPC_CG_MODE__FULL:
		return "full";
	case RPC_CG_MODE__STRICT:
		return "strict";
	case RPC_CG_MODE__DEFAULT:
		return "soft"; /* CRIU: the default mode is soft */
	case _RPC_CG_MODE_IS_INT_SIZE:
		break;
	}
	return "?";
}

static void map_paths(struct build *b, const RpcOpts *o, pid_t peer, bool dumping)
{
	if (o->images_dir_fd >= 0)
		client_dir(b, "images_dir_fd", "--images-dir", o->images_dir_fd);
	else if (o->images_dir)
		arg2(b, "images_dir", "--images-dir", o->images_dir);
	if (o->has_work_dir_fd && o->work_dir_fd >= 0)
		client_dir(b, "work_dir_fd", "--work-dir", o->work_dir_fd);
	if (dumping && o->has_pid && o->pid)
		argf(b, "pid", "--tree", "%d", o->pid);
	else if (dumping)
		argf(b, "pid", "--tree", "%d", (int)peer); /* CRIU: no pid dumps the client itself */
	if (o->has_log_level)
		argf(b, "log_level", "--verbosity", "%d",
		     o->log_level < 0	? 0
		     : o->log_level > 4 ? 4
					: o->log_level);
	if (o->has_log_to_stderr && o->log_to_stderr)
		arg2(b, "log_to_stderr", "--log-file", "-");
	else if (o->log_file)
		arg2(b, "log_file", "--log-file", o->log_file);
	if (o->root)
		arg2(b, "root", "--root", o->root);
	if (o->parent_img)
		arg2(b, "parent_img", "--prev-images-dir", o->parent_img);
}

static void map_flags(struct build *b, const RpcOpts *o)
{
	flag(b, "leave_running", o->has_leave_running, o->leave_running, "--leave-running");
	flag(b, "ext_unix_sk", o->has_ext_unix_sk, o->ext_unix_sk, "--ext-unix-sk");
	flag(b, "tcp_established", o->has_tcp_established, o->tcp_established, "--tcp-established");
	flag(b, "evasive_devices", o->has_evasive_devices, o->evasive_devices, "--evasive-devices");
	flag(b, "shell_job", o->has_shell_job, o->shell_job, "--shell-job");
	flag(b, "orphan_pts_master", o->has_orphan_pts_master, o->orphan_pts_master, "--orphan-pts-master");
	flag(b, "file_locks", o->has_file_locks, o->file_locks, "--file-locks");
	flag(b, "track_mem", o->has_track_mem, o->track_mem, "--track-mem");
	flag(b, "auto_dedup", o->has_auto_dedup, o->auto_dedup, "--auto-dedup");
	flag(b, "link_remap", o->has_link_remap, o->link_remap, "--link-remap");
	flag(b, "force_irmap", o->has_force_irmap, o->force_irmap, "--force-irmap");
	flag(b, "rst_sibling", o->has_rst_sibling, o->rst_sibling, "--restore-sibling");
	flag(b, "ext_sharing", o->has_ext_sharing, o->ext_sharing, "--enable-external-sharing");
	flag(b, "ext_masters", o->has_ext_masters, o->ext_masters, "--enable-external-masters");
	flag(b, "tcp_skip_in_flight", o->has_tcp_skip_in_flight, o->tcp_skip_in_flight, "--skip-in-flight");
	flag(b, "weak_sysctls", o->has_weak_sysctls, o->weak_sysctls, "--weak-sysctls");
	flag(b, "lazy_pages", o->has_lazy_pages, o->lazy_pages, "--lazy-pages");
	flag(b, "tcp_close", o->has_tcp_close, o->tcp_close, "--tcp-close");
	flag(b, "tls", o->has_tls, o->tls, "--tls");
	flag(b, "tls_no_cn_verify", o->has_tls_no_cn_verify, o->tls_no_cn_verify, "--tls-no-cn-verify");
	flag(b, "mntns_compat_mode", o->has_mntns_compat_mode, o->mntns_compat_mode, "--mntns-compat-mode");
	flag(b, "skip_file_rwx_check", o->has_skip_file_rwx_check, o->skip_file_rwx_check,
	     "--skip-file-rwx-check");
	flag(b, "unprivileged", o->has_unprivileged, o->unprivileged, "--unprivileged");
	flag(b, "leave_stopped", o->has_leave_stopped, o->leave_stopped, "--leave-stopped");
	flag(b, "display_stats", o->has_display_stats, o->display_stats, "--display-stats");
	flag(b, "auto_ext_mnt", o->has_auto_ext_mnt, o->auto_ext_mnt, "--ext-mount-map=auto");
	if (o->has_manage_cgroups_mode)
		argf(b, "manage_cgroups_mode", "--manage-cgroups", "%s", cg_mode(o->manage_cgroups_mode));
	else
		flag(b, "manage_cgroups", o->has_manage_cgroups, o->manage_cgroups, "--manage-cgroups");
}

static void map_values(struct build *b, const RpcOpts *o)
{
	if (o->ps && (o->ps->address || o->ps->has_port || o->ps->has_fd)) {
		if (!o->has_lazy_pages || !o->lazy_pages) /* dump --lazy-pages: where it serves the pages */
			arg(b, "ps", "--page-server");
		if (o->ps->address)
			arg2(b, "ps", "--address", o->ps->address);
		if (o->ps->has_port)
			argf(b, "ps", "--port", "%d", o->ps->port);
	}
	if (o->has_cpu_cap && o->cpu_cap != 0xffffffffu)
		argf(b, "cpu_cap", "--cpu-cap", "%u", o->cpu_cap);
	if (o->has_ghost_limit)
		argf(b, "ghost_limit", "--ghost-limit", "%u", o->ghost_limit);
	if (o->has_timeout && o->timeout)
		argf(b, "timeout", "--timeout", "%u", o->timeout);
	if (o->freeze_cgroup)
		arg2(b, "freeze_cgroup", "--freeze-cgroup", o->freeze_cgroup);
	if (o->cgroup_props)
		arg2(b, "cgroup_props", "--cgroup-props", o->cgroup_props);
	if (o->cgroup_props_file)
		arg2(b, "cgroup_props_file", "--cgroup-props-file", o->cgroup_props_file);
	if (o->cgroup_yard)
		arg2(b, "cgroup_yard", "--cgroup-yard", o->cgroup_yard);
	if (o->lsm_profile)
		arg2(b, "lsm_profile", "--lsm-profile", o->lsm_profile);
	if (o->lsm_mount_context)
		arg2(b, "lsm_mount_context", "--lsm-mount-context", o->lsm_mount_context);
	if (o->tls_cacert)
		arg2(b, "tls_cacert", "--tls-cacert", o->tls_cacert);
	if (o->tls_cacrl)
		arg2(b, "tls_cacrl", "--tls-cacrl", o->tls_cacrl);
	if (o->tls_cert)
		arg2(b, "tls_cert", "--tls-cert", o->tls_cert);
	if (o->tls_key)
		arg2(b, "tls_key", "--tls-key", o->tls_key);
	if (o->has_pre_dump_mode)
		arg2(b, "pre_dump_mode", "--pre-dump-mode",
		     o->pre_dump_mode == RPC_PRE_DUMP_MODE__VM_READ ? "read" : "splice");
	if (o->has_network_lock)
		arg2(b, "network_lock", "--network-lock",
		     o->network_lock == RPC_NETWORK_LOCK__NFTABLES ? "nftables"
		     : o->network_lock == RPC_NETWORK_LOCK__SKIP   ? "skip"
								   : "iptables");
	if (o->has_status_fd && o->status_fd >= 0 && o->has_lazy_pages && o->lazy_pages)
		argf(b, "status_fd", "--status-fd", "%d", o->status_fd);
	if (o->has_pidfd_store_sk)
		argf(b, "pidfd_store_sk", "--pidfd-store", "%d", o->pidfd_store_sk);
	if (o->has_empty_ns && o->empty_ns) {
		if (o->empty_ns & ~0x40000000u) /* CLONE_NEWNET is all CRIU allows */
			argf(b, "empty_ns", "--empty-ns", "0x%x", o->empty_ns);
		else
			arg2(b, "empty_ns", "--empty-ns", "net");
	}
}

static void map_lists(struct build *b, const RpcOpts *o)
{
	for (size_t i = 0; i < o->n_exec_cmd; i++)
		arg2(b, "exec_cmd", "--exec-cmd", o->exec_cmd[i]);
	for (size_t i = 0; i < o->n_veths; i++)
		argf(b, "veths", "--external", "veth[%s]:%s", o->veths[i]->if_in, o->veths[i]->if_out);
	for (size_t i = 0; i < o->n_ext_mnt; i++)
		argf(b, "ext_mnt", "--external", "mnt[%s]:%s", o->ext_mnt[i]->key, o->ext_mnt[i]->val);
	for (size_t i = 0; i < o->n_cg_root; i++) {
		const RpcCgroupRoot *r = o->cg_root[i];
		if (r->ctrl)
			argf(b, "cg_root", "--cgroup-root", "%s:%s", r->ctrl, r->path);
		else
			arg2(b, "cg_root", "--cgroup-root", r->path);
	}
	for (size_t i = 0; i < o->n_inherit_fd; i++)
		argf(b, "inherit_fd", "--inherit-fd", "fd[%d]:%s", o->inherit_fd[i]->fd,
		     o->inherit_fd[i]->key);
	for (size_t i = 0; i < o->n_skip_mnt; i++)
		arg2(b, "skip_mnt", "--skip-mnt", o->skip_mnt[i]);
	for (size_t i = 0; i < o->n_enable_fs; i++)
		arg2(b, "enable_fs", "--enable-fs", o->enable_fs[i]);
	for (size_t i = 0; i < o->n_unix_sk_ino; i++)
		argf(b, "unix_sk_ino", "--external", "unix[%u]", o->unix_sk_ino[i]->inode);
	for (size_t i = 0; i < o->n_irmap_scan_paths; i++)
		arg2(b, "irmap_scan_paths", "--irmap-scan-path", o->irmap_scan_paths[i]);
	for (size_t i = 0; i < o->n_external; i++)
		arg2(b, "external", "--external", o->external[i]);
	for (size_t i = 0; i < o->n_join_ns; i++) {
		const RpcJoinNamespace *j = o->join_ns[i];
		if (j->extra_opt)
			argf(b, "join_ns", "--join-ns", "%s:%s,%s", j->ns, j->ns_file, j->extra_opt);
		else
			argf(b, "join_ns", "--join-ns", "%s:%s", j->ns, j->ns_file);
	}
	for (size_t i = 0; i < o->n_cgroup_dump_controller; i++)
		arg2(b, "cgroup_dump_controller", "--cgroup-dump-controller", o->cgroup_dump_controller[i]);
}

/* Fields the option parser would take but crshim cannot honour: refused by name rather than ignored, as
 * each changes what the dump or the restore does (the audit table: shim/README.md). */
static const char *refused_field(const RpcOpts *o, char *why, size_t len)
{
	if (o->n_skip_mnt) {
		snprintf(why, len,
			 "skipping mount %s is not supported (crshim dumps every mount of the tree)",
			 o->skip_mnt[0]);
		return "skip_mnt";
	}
	if (o->lsm_profile && *o->lsm_profile) {
		snprintf(why, len, "LSM profile '%s': crshim does not set LSM labels on restore",
			 o->lsm_profile);
		return "lsm_profile";
	}
	return NULL;
}

/* The field whose option the message names ("--lazy-pages is only valid with restore"): the checks that
 * look at the whole command line, after each option parsed. */
static const char *named_in(const struct shim_args *a, int n, const char *m)
{
	for (int k = 1; k < n; k++) {
		char name[64];
		size_t l = strcspn(a->v[k], "=");
		if (!a->src[k] || l <= 2 || l >= sizeof(name))
			continue;
		memcpy(name, a->v[k], l);
		name[l] = '\0';
		if (strstr(m, name))
			return a->src[k];
	}
	return NULL;
}

/* Which field the parser refused: the shortest prefix of the n option arguments that fails to parse ends
 * with it. */
static const char *blame(struct shim_args *a, int n, char *msg, size_t len)
{
	struct shim_cmd *scratch = malloc(sizeof(*scratch));
	const char *field = NULL;
	char m[512];
	if (!scratch)
		return NULL;
	for (int k = 2; k <= n && !field; k++) {
		char *save = a->v[k]; /* argv stops at k */
		a->v[k] = NULL;
		if (shim_parse_options(k, a->v, scratch, m, sizeof(m))) {
			field = a->src[k - 1];
			snprintf(msg, len, "%s", m);
		}
		a->v[k] = save;
	}
	free(scratch);
	return field;
}

static int map_opts(struct shim_rpc_req *r, pid_t peer, bool read_config, bool defaults, char *msg,
		    size_t mlen)
{
	const RpcOpts *o = r->req->opts;
	struct build b = {.a = &r->args, .peer = peer};
	const char *verb = r->req->type == RPC_REQ_TYPE__RESTORE ? "restore"
			   : r->req->type == RPC_REQ_TYPE__DUMP	 ? "dump"
								 : "pre-dump";
	arg(&b, NULL, "crshim");
	if (read_config && defaults) {
		const char *home = getenv("HOME");
		char user[PATH_MAX];
		if (shim_config_read("/etc/criu/default.conf", false, &r->args, msg, mlen))
			return -1;
		if (home && snprintf(user, sizeof(user), "%s/.criu/default.conf", home) < (int)sizeof(user) &&
		    shim_config_read(user, false, &r->args, msg, mlen))
			return -1;
	}
	char why[512];
	const char *bad = refused_field(o, why, sizeof(why));
	if (bad) {
		snprintf(msg, mlen, "criu_opts.%s: %s", bad, why);
		return -1;
	}
	map_paths(&b, o, peer, r->req->type != RPC_REQ_TYPE__RESTORE);
	map_flags(&b, o);
	map_values(&b, o);
	map_lists(&b, o);
	/* CRIU: the configuration file given by the client overrides the client's own options. */
	if (o->config_file && read_config && /* runc names /etc/criu/runc.conf whether it exists or not */
	    shim_config_read(o->config_file, false, &r->args, msg, mlen))
		return -1;
	if (b.oom) {
		snprintf(msg, mlen, "out of memory");
		return -1;
	}
	int nopts = r->args.n;
	arg(&b, NULL, verb);
	if (b.oom) {
		snprintf(msg, mlen, "out of memory");
		return -1;
	}
	char m[512];
	if (!shim_parse(r->args.n, r->args.v, &r->cmd, m, sizeof(m)))
		return 0;
	const char *field = blame(&r->args, nopts, why, sizeof(why));
	if (!field && (field = named_in(&r->args, nopts, m)) != NULL)
		snprintf(why, sizeof(why), "%s", m);
	if (field && !strchr(field, '/') && !strncmp(why, "unknown option '", 16)) { /* CRIU has it, not we */
		char opt[128];
		snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(why + 16, "='"), why + 16);
		snprintf(why, sizeof(why), "not supported by crshim (CRIU's %s)", opt);
	}
	if (field && strchr(field, '/'))
		snprintf(msg, mlen, "config file %s: %s", field, why);
	else if (field)
		snprintf(msg, mlen, "criu_opts.%s: %s", field, why);
	else
		snprintf(msg, mlen, "%s", m);
	return -1;
}

int shim_rpc_decode(const void *buf, size_t len, pid_t peer, bool read_config, bool defaults,
		    struct shim_rpc_req *r, char *msg, size_t mlen)
{
	memset(r, 0, sizeof(*r));
	msg[0] = '\0';
	r->req = rpc_req__unpack(NULL, len, buf);
	if (!r->req) {
		snprintf(msg, mlen, "malformed request (%zu bytes): not a criu_req", len);
		return -1;
	}
	RpcReq *q = r->req;
	switch (q->type) {
	case RPC_REQ_TYPE__DUMP:
	case RPC_REQ_TYPE__PRE_DUMP:
	case RPC_REQ_TYPE__RESTORE:
		break;
	default:
		return 0;
	}
	if (!q->opts) {
		snprintf(msg, mlen, "%s request without criu_opts", shim_rpc_type_name(q->type));
		return -1;
	}
	r->notify = q->opts->has_notify_scripts && q->opts->notify_scripts;
	r->orphan_pts = q->opts->has_orphan_pts_master && q->opts->orphan_pts_master;
	if (q->opts->log_file && strchr(q->opts->log_file, '/')) {
		snprintf(msg, mlen, "criu_opts.log_file '%s': no '/' allowed (the log goes in the work dir)",
			 q->opts->log_file);
		return -1;
	}
	if (q->opts->images_dir_fd < 0 && !q->opts->images_dir) {
		snprintf(msg, mlen, "criu_opts.images_dir_fd: no images dir given (fd %d, no images_dir)",
			 q->opts->images_dir_fd);
		return -1;
	}
	return map_opts(r, peer, read_config, defaults, msg, mlen);
}
