/* Option parsing: CRIU spellings via getopt_long. No I/O here; errors come back as a message. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "base/fault.h"

enum {
	OPT_TCP_EST = 256,
	OPT_FILE_LOCKS,
	OPT_TRACK_MEM,
	OPT_AUTO_DEDUP,
	OPT_PREV_IMAGES,
	OPT_ROOT,
	OPT_PIDFILE,
	OPT_INHERIT_FD,
	OPT_EXTERNAL,
	OPT_EXT_MOUNT_MAP,
	OPT_FEATURE,
	OPT_FAULTS,
	OPT_NETLOCK,
	OPT_GHOST_LIMIT,
	OPT_RESTORE_SIBLING,
	OPT_CHECK_ONLY,
	OPT_SKIP_IN_FLIGHT,
	OPT_TCP_CLOSE,
	OPT_EMPTY_NS,
	OPT_JOIN_NS,
	OPT_MANAGE_CGROUPS,
	OPT_CGROUP_ROOT,
	OPT_FREEZE_CGROUP,
	OPT_BUNDLE,
	OPT_OCI_PID,
	OPT_IMAGE_PATH,
	OPT_WORK_PATH,
	OPT_PID_FILE,
	OPT_CONSOLE_SOCKET,
	OPT_ORPHAN_PTS,
	OPT_DETACH,
	OPT_FORCE,
	OPT_PAGE_SERVER,
	OPT_ADDRESS,
	OPT_PORT,
	OPT_DAEMON,
	OPT_STATUS_FD,
	OPT_LAZY_PAGES,
	OPT_DISPLAY_STATS,
	OPT_EXT_SHARING,
	OPT_EXT_MASTERS,
	OPT_IGNORED,	   /* flag without semantics for us: noted in the log */
	OPT_IGNORED_ARG,   /* same, with an argument */
	OPT_UNSUPPORTED,   /* changes semantics and we do not have it: error */
	OPT_QUIET_IGNORED, /* e.g. --no-default-config: nothing to note */
};

static const char short_opts[] = ":t:D:W:o:v::RjdVhx::s";

/* The ignored/unsupported entries: `flag` points at nothing, we look the name up by index. */
static const struct option long_opts[] = {
    {"tree", required_argument, NULL, 't'},
    {"images-dir", required_argument, NULL, 'D'},
    {"work-dir", required_argument, NULL, 'W'},
    {"log-file", required_argument, NULL, 'o'},
    {"verbosity", optional_argument, NULL, 'v'},
    {"leave-running", no_argument, NULL, 'R'},
    {"shell-job", no_argument, NULL, 'j'},
    {"orphan-pts-master", no_argument, NULL, OPT_ORPHAN_PTS},
    {"restore-detached", no_argument, NULL, 'd'},
    {"version", no_argument, NULL, 'V'},
    {"help", no_argument, NULL, 'h'},
    {"ext-unix-sk", optional_argument, NULL, 'x'},
    {"leave-stopped", no_argument, NULL, 's'},
    {"tcp-established", no_argument, NULL, OPT_TCP_EST},
    {"skip-in-flight", no_argument, NULL, OPT_SKIP_IN_FLIGHT},
    {"tcp-close", no_argument, NULL, OPT_TCP_CLOSE},
    {"file-locks", no_argument, NULL, OPT_FILE_LOCKS},
    {"track-mem", no_argument, NULL, OPT_TRACK_MEM},
    {"prev-images-dir", required_argument, NULL, OPT_PREV_IMAGES},
    {"root", required_argument, NULL, OPT_ROOT},
    {"pidfile", required_argument, NULL, OPT_PIDFILE},
    {"inherit-fd", required_argument, NULL, OPT_INHERIT_FD},
    {"external", required_argument, NULL, OPT_EXTERNAL},
    {"empty-ns", required_argument, NULL, OPT_EMPTY_NS},
    {"join-ns", required_argument, NULL, OPT_JOIN_NS},
    /* OCI verbs (runc's spellings) */
    {"bundle", required_argument, NULL, OPT_BUNDLE},
    {"pid", required_argument, NULL, OPT_OCI_PID},
    {"image-path", required_argument, NULL, OPT_IMAGE_PATH},
    {"work-path", required_argument, NULL, OPT_WORK_PATH},
    {"pid-file", required_argument, NULL, OPT_PID_FILE},
    {"console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET},
    {"detach", no_argument, NULL, OPT_DETACH},
    {"force", no_argument, NULL, OPT_FORCE},
    {"feature", required_argument, NULL, OPT_FEATURE},
    {"page-server", no_argument, NULL, OPT_PAGE_SERVER},
    {"address", required_argument, NULL, OPT_ADDRESS},
    {"port", required_argument, NULL, OPT_PORT},
    {"daemon", no_argument, NULL, OPT_DAEMON},
    {"faults", no_argument, NULL, OPT_FAULTS},
    {"ghost-limit", required_argument, NULL, OPT_GHOST_LIMIT},
    /* accepted, no effect for us (noted in the log) */
    {"manage-cgroups", optional_argument, NULL, OPT_MANAGE_CGROUPS},
    {"display-stats", no_argument, NULL, OPT_DISPLAY_STATS},
    {"log-pid", no_argument, NULL, OPT_IGNORED},
    {"link-remap", no_argument, NULL, OPT_IGNORED},
    {"evasive-devices", no_argument, NULL, OPT_IGNORED},
    {"enable-external-sharing", no_argument, NULL, OPT_EXT_SHARING},
    {"enable-external-masters", no_argument, NULL, OPT_EXT_MASTERS},
    {"auto-dedup", no_argument, NULL, OPT_AUTO_DEDUP},
    {"force-irmap", no_argument, NULL, OPT_IGNORED},
    /* inotify watches are reopened by file handle: no inode-to-path scan to point anywhere */
    {"irmap-scan-path", required_argument, NULL, OPT_IGNORED_ARG},
    /* one mount engine; the restored mount tree is the same either way */
    {"mntns-compat-mode", no_argument, NULL, OPT_IGNORED},
    {"no-mntns-compat-mode", no_argument, NULL, OPT_IGNORED},
    /* ghost files' holes are always kept (SEEK_DATA/SEEK_HOLE), CRIU's result with or without fiemap */
    {"ghost-fiemap", no_argument, NULL, OPT_IGNORED},
    {"no-ghost-fiemap", no_argument, NULL, OPT_IGNORED},
    {"weak-sysctls", no_argument, NULL, OPT_IGNORED},
    {"restore-sibling", no_argument, NULL, OPT_RESTORE_SIBLING},
    {"check-only", no_argument, NULL, OPT_CHECK_ONLY},
    {"unprivileged", no_argument, NULL, OPT_IGNORED},
    {"network-lock", required_argument, NULL, OPT_NETLOCK},
    {"file-validation", optional_argument, NULL, OPT_IGNORED},
    {"cpu-cap", optional_argument, NULL, OPT_IGNORED},
    {"pre-dump-mode", required_argument, NULL, OPT_IGNORED_ARG},
    {"cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT},
    {"timeout", required_argument, NULL, OPT_IGNORED_ARG},
    /* (CRIU's RPC only) a socket keeping the tree's pidfds between pre-dumps to see a PID reused: crshim
     * tells a reused PID by its start time (mem/track.c) */
    {"pidfd-store", required_argument, NULL, OPT_IGNORED_ARG},
    {"freeze-cgroup", required_argument, NULL, OPT_FREEZE_CGROUP},
    {"config", required_argument, NULL, OPT_QUIET_IGNORED}, /* read before parsing (config.c) */
    {"status-fd", required_argument, NULL, OPT_STATUS_FD},
    {"all", no_argument, NULL, OPT_IGNORED},
    {"extra", no_argument, NULL, OPT_IGNORED},
    {"experimental", no_argument, NULL, OPT_IGNORED},
    {"no-default-config", no_argument, NULL, OPT_QUIET_IGNORED},
    /* would change semantics and are not implemented: refused */
    {"lazy-pages", no_argument, NULL, OPT_LAZY_PAGES},
    {"stream", no_argument, NULL, OPT_UNSUPPORTED},
    {"action-script", required_argument, NULL, OPT_UNSUPPORTED},
    {"cgroup-props", required_argument, NULL, OPT_UNSUPPORTED},
    {"cgroup-props-file", required_argument, NULL, OPT_UNSUPPORTED},
    {"cgroup-dump-controller", required_argument, NULL, OPT_UNSUPPORTED},
    {"cgroup-yard", required_argument, NULL, OPT_IGNORED_ARG},	   /* the hierarchies: those mounted here */
    {"skip-mnt", required_argument, NULL, OPT_UNSUPPORTED},	   /* every mount of the tree is dumped */
    {"ext-mount-map", required_argument, NULL, OPT_EXT_MOUNT_MAP}, /* KEY:PATH or auto */
    {"lsm-profile", required_argument, NULL, OPT_UNSUPPORTED},	   /* no LSM label is set on restore */
    {NULL, 0, NULL, 0},
};

static const char *const verb_names[] = {
    [VERB_NONE] = "",
    [VERB_DUMP] = "dump",
    [VERB_PRE_DUMP] = "pre-dump",
    [VERB_RESTORE] = "restore",
    [VERB_CHECK] = "check",
    [VERB_SHOW] = "show",
    [VERB_SWRK] = "swrk",
    [VERB_PAGE_SERVER] = "page-server",
    [VERB_LAZY_PAGES] = "lazy-pages",
    [VERB_CHECKPOINT] = "checkpoint",
    [VERB_STATE] = "state",
    [VERB_KILL] = "kill",
    [VERB_DELETE] = "delete",
    [VERB_LIST] = "list",
};

const char *shim_verb_name(enum shim_verb v)
{
	return (unsigned)v < sizeof(verb_names) / sizeof(verb_names[0]) ? verb_names[v] : "";
}

static int fail(char *msg, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* -v, -vN, -vvvv, -v N, --verbosity[=N], --verbosity N, -verbosity=N. Default level 2, -v adds one; max 4. */
static int parse_verbosity(struct shim_cmd *c, int argc, char **argv, char *msg, size_t len)
{
	const char *a = optarg;
	long lvl = c->opts.verbosity + 1;
	if (!a && optind < argc && all_digits(argv[optind]))
		a = argv[optind++];
	if (a && !strncmp(a, "erbosity=", 9)) /* -verbosity=N (zdtm's check call): read as -v erbosity=N */
		a += 9;
	if (a && a[0] == 'v') {
		lvl = c->opts.verbosity + 1 + (long)strspn(a, "v");
		if (a[strspn(a, "v")])
			return fail(msg, len, "invalid verbosity '-v%s'", a);
	} else if (a && parse_int(a, 0, 100, &lvl)) {
		return fail(msg, len, "invalid verbosity '%s' (0-4)", a);
	}
	c->opts.verbosity = lvl > 4 ? 4 : (int)lvl;
	return 0;
}

static int add_list(const char **list, int *n, const char *what, char *msg, size_t len)
{
	if (*n >= SHIM_MAX_LIST)
		return fail(msg, len, "too many %s options (max %d)", what, SHIM_MAX_LIST);
	list[(*n)++] = optarg;
	return 0;
}

static void add_note(struct shim_cmd *c, const char *name)
{
	if (c->n_notes < SHIM_MAX_NOTES)
		c->notes[c->n_notes++] = name;
}

/* A size as CRIU takes it: bytes, or with a K, M or G suffix. */
static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (!*s || *s == '-' || *end || errno || v > (~0ull >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static int parse_special(struct shim_cmd *c, int opt, int idx, char *msg, size_t len)
{
	const char *name = idx >= 0 ? long_opts[idx].name : "?";
	switch (opt) {
	case OPT_GHOST_LIMIT:
		if (!parse_size(optarg, &c->opts.ghost_limit))
			return 0;
		snprintf(msg, len, "invalid size '%s' for --ghost-limit (bytes, or N[KMG])", optarg);
		return -1;
	case OPT_INHERIT_FD:
		return add_list(c->inherit_fd, &c->n_inherit_fd, "--inherit-fd", msg, len);
	case OPT_EXTERNAL: /* mnt[] (CRIU: find the external mounts by themselves), mnt[]:s, mnt[]:m */
		if (!strncmp(optarg, "mnt[]", 5)) {
			const char *f = optarg + 5;
			c->opts.ext_mnt_auto = true;
			c->opts.ext_sharing |= !strcmp(f, ":s");
			c->opts.ext_masters |= !strcmp(f, ":m");
			if (*f && strcmp(f, ":s") && strcmp(f, ":m"))
				return fail(msg, len, "--external %s: want mnt[], mnt[]:s or mnt[]:m",
					    optarg);
			return 0;
		}
		return add_list(c->external, &c->n_external, "--external", msg, len);
	case OPT_EXT_MOUNT_MAP: /* restore: KEY:PATH (a dump does not use it), or auto */
		if (!strcmp(optarg, "auto")) {
			c->opts.ext_mnt_auto = true;
			return 0;
		}
		if (!strchr(optarg, ':') || optarg[0] == ':' || !strchr(optarg, ':')[1])
			return fail(msg, len, "--ext-mount-map %s: want KEY:PATH or auto", optarg);
		return add_list(c->ext_mount_map, &c->n_ext_mount_map, "--ext-mount-map", msg, len);
	case OPT_JOIN_NS:
		return add_list(c->join_ns, &c->n_join_ns, "--join-ns", msg, len);
	case OPT_MANAGE_CGROUPS: {
		/* CRIU's modes (the index is enum cr_cg_mode); no value: soft */
		static const char *const modes[] = {"soft", "ignore", "none", "props", "full", "strict"};
		for (int i = 0; i < 6; i++)
			if (!optarg || !strcmp(optarg, modes[i])) {
				c->opts.manage_cgroups = optarg ? i : CR_CG_SOFT;
				return 0;
			}
		return fail(msg, len,
			    "--manage-cgroups %s: unknown mode (none, props, soft, full, strict, ignore)",
			    optarg);
	}
	case OPT_CGROUP_ROOT:
		return add_list(c->cgroup_root, &c->n_cgroup_root, "--cgroup-root", msg, len);
	case OPT_FREEZE_CGROUP:
		c->opts.freeze_cgroup = optarg;
		return 0;
	case OPT_EMPTY_NS:
		if (strcmp(optarg, "net"))
			return fail(msg, len, "--empty-ns %s: only net is supported", optarg);
		c->opts.empty_ns |= 0x40000000u; /* CLONE_NEWNET */
		return 0;
	case OPT_DISPLAY_STATS:
		c->display_stats = true;
		return 0;
	case OPT_IGNORED:
	case OPT_IGNORED_ARG:
		add_note(c, name);
		return 0;
	case OPT_QUIET_IGNORED:
		return 0;
	case OPT_UNSUPPORTED:
		return fail(msg, len, "option '--%s' is not supported yet", name);
	}
	return fail(msg, len, "internal: unhandled option %d", opt);
}

static int parse_one(struct shim_cmd *c, int opt, int idx, int argc, char **argv, char *msg, size_t len)
{
	struct cr_opts *o = &c->opts;
	long v;
	switch (opt) {
	case 't':
		if (parse_int(optarg, 1, INT_MAX, &v))
			return fail(msg, len, "invalid PID '%s' for -t", optarg);
		o->pid = (pid_t)v;
		return 0;
	case 'D':
		o->images_dir = optarg;
		return 0;
	case 'W':
		o->work_dir = optarg;
		return 0;
	case 'o':
		o->log_file = optarg;
		return 0;
	case 'v':
		return parse_verbosity(c, argc, argv, msg, len);
	case 'R':
		o->leave_running = true;
		return 0;
	case 'j':
		o->shell_job = true;
		return 0;
	case 'd':
		o->detach = true;
		return 0;
	case 'V':
		c->version = true;
		return 0;
	case 'h':
		c->help = true;
		return 0;
	case 'x':
		o->ext_unix_sk = true;
		return 0;
	case 's':
		return fail(msg, len, "option '--leave-stopped' is not supported yet");
	case OPT_TCP_EST:
		o->tcp_established = true;
		return 0;
	case OPT_SKIP_IN_FLIGHT:
		o->skip_in_flight = true;
		return 0;
	case OPT_EXT_SHARING:
		o->ext_sharing = true;
		return 0;
	case OPT_EXT_MASTERS:
		o->ext_masters = true;
		return 0;
	case OPT_TCP_CLOSE:
		o->tcp_close = true;
		return 0;
	case OPT_NETLOCK:
		if (strcmp(optarg, "nftables") && strcmp(optarg, "iptables") && strcmp(optarg, "skip"))
			return fail(msg, len, "--network-lock %s: nftables, iptables or skip", optarg);
		o->network_lock = optarg;
		return 0;
	case OPT_RESTORE_SIBLING:
		o->restore_sibling = true;
		return 0;
	case OPT_CHECK_ONLY: /* restore: engine/restore-check.c */
		o->check_only = true;
		return 0;
	case OPT_FILE_LOCKS:
		o->file_locks = true;
		return 0;
	case OPT_AUTO_DEDUP: /* engine/image/pagemap.c pm_dedup */
		o->auto_dedup = true;
		return 0;
	case OPT_TRACK_MEM: /* dirty-page tracking: engine/mem/track.c */
		o->track_mem = true;
		return 0;
	case OPT_PREV_IMAGES:
		o->prev_images_dir = optarg;
		return 0;
	case OPT_ROOT:
		o->root = optarg;
		return 0;
	case OPT_PIDFILE:
		o->pidfile = optarg;
		return 0;
	case OPT_FEATURE:
		c->feature = optarg;
		return 0;
	case OPT_BUNDLE:
		c->bundle = optarg;
		return 0;
	case OPT_OCI_PID:
		if (parse_int(optarg, 1, INT_MAX, &v))
			return fail(msg, len, "invalid PID '%s' for --pid", optarg);
		o->pid = (pid_t)v;
		return 0;
	case OPT_IMAGE_PATH:
		o->images_dir = optarg;
		return 0;
	case OPT_WORK_PATH:
		o->work_dir = optarg;
		return 0;
	case OPT_PID_FILE:
		o->pidfile = optarg;
		return 0;
	case OPT_CONSOLE_SOCKET:
		c->console_socket = optarg;
		return 0;
	case OPT_ORPHAN_PTS:
		o->orphan_pts = true;
		return 0;
	case OPT_DETACH:
		o->detach = true;
		return 0;
	case OPT_FORCE:
		c->oci_force = true;
		return 0;
	case OPT_FAULTS:
		c->faults = true;
		return 0;
	case OPT_PAGE_SERVER:
		o->page_server = true;
		return 0;
	case OPT_ADDRESS:
		o->ps_address = optarg;
		return 0;
	case OPT_PORT:
		if (parse_int(optarg, 0, 65535, &v))
			return fail(msg, len, "invalid port '%s' for --port (0-65535)", optarg);
		o->ps_port = (int)v;
		return 0;
	case OPT_DAEMON:
		c->ps_daemon = true;
		return 0;
	case OPT_LAZY_PAGES:
		o->lazy_pages = true;
		return 0;
	case OPT_STATUS_FD:
		if (parse_int(optarg, 0, INT_MAX, &v))
			return fail(msg, len, "invalid fd '%s' for --status-fd", optarg);
		c->status_fd = (int)v;
		return 0;
	}
	return parse_special(c, opt, idx, msg, len);
}

static int bad_option(int opt, int argc, char **argv, char *msg, size_t len)
{
	const char *word = optind - 1 < argc && optind >= 1 ? argv[optind - 1] : "?";
	if (opt == ':') {
		if (optopt && optopt < 256)
			return fail(msg, len, "option '-%c' needs an argument", optopt);
		return fail(msg, len, "option '%s' needs an argument", word);
	}
	if (optopt && optopt < 256)
		return fail(msg, len, "unknown option '-%c'", optopt);
	return fail(msg, len, "unknown option '%s'", word);
}

/* checkpoint [ID], restore --bundle [ID], state ID, kill ID [SIG], delete ID, list */
static int parse_oci_operands(struct shim_cmd *c, int n, char **args, char *msg, size_t len)
{
	const char *v = verb_names[c->verb];
	int max = c->verb == VERB_LIST ? 0 : c->verb == VERB_KILL ? 2 : 1;
	bool need_id = c->verb == VERB_STATE || c->verb == VERB_KILL || c->verb == VERB_DELETE;
	if (n > max)
		return fail(msg, len, "unexpected argument '%s'", args[max]);
	if (need_id && n < 1)
		return fail(msg, len, "'%s' needs a container ID", v);
	c->oci_id = n >= 1 ? args[0] : NULL;
	c->oci_signal = n >= 2 ? args[1] : NULL;
	return 0;
}

static int parse_verb(struct shim_cmd *c, int argc, char **argv, char *msg, size_t len)
{
	int nargs = argc - optind;
	if (nargs == 0)
		return c->help || c->version ? 0 : fail(msg, len, "no command given");
	const char *v = argv[optind];
	for (int i = VERB_DUMP; i <= VERB_LIST; i++)
		if (!strcmp(v, verb_names[i]))
			c->verb = (enum shim_verb)i;
	if (c->verb == VERB_NONE)
		return fail(msg, len, "unknown command '%s'", v);
	if (c->verb >= VERB_CHECKPOINT || (c->verb == VERB_RESTORE && c->bundle))
		return parse_oci_operands(c, nargs - 1, argv + optind + 1, msg, len);
	bool wants_operand = c->verb == VERB_SHOW || c->verb == VERB_SWRK;
	if (wants_operand && nargs < 2)
		return fail(msg, len, "'%s' needs an argument (%s)", v,
			    c->verb == VERB_SHOW ? "DIR|FILE" : "FD");
	if (nargs > (wants_operand ? 2 : 1))
		return fail(msg, len, "unexpected argument '%s'", argv[optind + (wants_operand ? 2 : 1)]);
	if (wants_operand)
		c->operand = argv[optind + 1];
	return 0;
}

static int check_required(struct shim_cmd *c, char *msg, size_t len)
{
	bool dumping = c->verb == VERB_DUMP || c->verb == VERB_PRE_DUMP;
	if (c->help || c->version)
		return 0;
	if (dumping && !c->opts.pid)
		return fail(msg, len, "%s needs -t/--tree PID", shim_verb_name(c->verb));
	if (c->verb == VERB_CHECKPOINT && !c->opts.images_dir)
		return fail(msg, len, "checkpoint needs --image-path DIR");
	if (c->verb == VERB_CHECKPOINT && !c->oci_id && !c->opts.pid)
		return fail(msg, len, "checkpoint needs a container ID or --pid PID");
	if (c->verb == VERB_RESTORE && c->bundle && !c->opts.images_dir)
		return fail(msg, len, "restore --bundle needs --image-path DIR");
	if ((dumping || c->verb == VERB_RESTORE) && !c->opts.images_dir)
		return fail(msg, len, "%s needs -D/--images-dir DIR", shim_verb_name(c->verb));
	if (c->bundle && c->verb != VERB_CHECKPOINT && c->verb != VERB_RESTORE)
		return fail(msg, len, "--bundle is only valid with checkpoint and restore");
	if (c->feature && c->verb != VERB_CHECK)
		return fail(msg, len, "--feature is only valid with check");
	if (c->faults && c->verb != VERB_CHECK)
		return fail(msg, len, "--faults is only valid with check");
	if (c->verb == VERB_PAGE_SERVER && !c->opts.images_dir)
		return fail(msg, len, "page-server needs -D/--images-dir DIR");
	if (c->verb == VERB_LAZY_PAGES && !c->opts.images_dir)
		return fail(msg, len, "lazy-pages needs -D/--images-dir DIR");
	if (c->opts.lazy_pages && c->verb != VERB_RESTORE && c->verb != VERB_DUMP)
		return fail(msg, len, "--lazy-pages is only valid with dump and restore");
	if (c->opts.lazy_pages && c->verb == VERB_DUMP && c->opts.page_server)
		return fail(msg, len, "dump --lazy-pages serves the pages itself: not with --page-server");
	if (c->opts.lazy_pages && c->bundle)
		return fail(msg, len, "--lazy-pages is not supported with restore --bundle");
	if (c->opts.page_server && !dumping && c->verb != VERB_LAZY_PAGES)
		return fail(msg, len, "--page-server is only valid with dump, pre-dump and lazy-pages");
	if (c->opts.page_server && (!c->opts.ps_address || !c->opts.ps_port))
		return fail(msg, len, "--page-server needs --address ADDR and --port PORT");
	if (c->ps_daemon && c->verb != VERB_PAGE_SERVER && c->verb != VERB_LAZY_PAGES)
		return fail(msg, len, "--daemon is only valid with page-server and lazy-pages");
	return 0;
}

static void save_cmdline(struct shim_cmd *c, int argc, char **argv)
{
	size_t off = 0;
	for (int i = 0; i < argc && off < sizeof(c->cmdline); i++)
		off += (size_t)snprintf(c->cmdline + off, sizeof(c->cmdline) - off, "%s%s", i ? " " : "",
					argv[i]);
}

int shim_parse_options(int argc, char **argv, struct shim_cmd *c, char *msg, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->status_fd = -1;
	save_cmdline(c, argc, argv);
	eng_opts_init(&c->opts);
	msg[0] = '\0';
	optind = 0; /* full reset of glibc getopt state */
	opterr = 0;
	for (;;) {
		int idx = -1;
		int opt = getopt_long(argc, argv, short_opts, long_opts, &idx);
		if (opt == -1)
			break;
		if (opt == '?' || opt == ':')
			return bad_option(opt, argc, argv, msg, len);
		if (parse_one(c, opt, idx, argc, argv, msg, len))
			return -1;
	}
	return 0;
}

int shim_parse(int argc, char **argv, struct shim_cmd *c, char *msg, size_t len)
{
	if (shim_parse_options(argc, argv, c, msg, len) || parse_verb(c, argc, argv, msg, len))
		return -1;
	c->log_to_stderr = !c->opts.log_file || !strcmp(c->opts.log_file, "-");
	c->opts.inherit_fd = c->inherit_fd;
	c->opts.n_inherit_fd = c->n_inherit_fd;
	c->opts.external = c->external;
	c->opts.n_external = c->n_external;
	c->opts.ext_mount_map = c->ext_mount_map;
	c->opts.n_ext_mount_map = c->n_ext_mount_map;
	c->opts.join_ns = c->join_ns;
	c->opts.n_join_ns = c->n_join_ns;
	c->opts.cgroup_root = c->cgroup_root;
	c->opts.n_cgroup_root = c->n_cgroup_root;
	return check_required(c, msg, len);
}

/* The value of option shrt / lng in argv ("-o X", "-oX", "--log-file X", "--log-file=X"); the last wins.
 * A plain scan: getopt stopped at the bad option, the log options may come after it. */
static const char *scan_opt(int argc, char **argv, char shrt, const char *lng)
{
	const char *v = NULL;
	size_t l = strlen(lng);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!a || !strcmp(a, "--"))
			break;
		if (a[0] == '-' && a[1] == shrt)
			v = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : v;
		else if (!strncmp(a, "--", 2) && !strncmp(a + 2, lng, l) && (a[2 + l] == '=' || !a[2 + l]))
			v = a[2 + l] ? a + 3 + l : i + 1 < argc ? argv[++i] : v;
	}
	return v;
}

void shim_log_early_error(int argc, char **argv, const char *line)
{
	const char *log = scan_opt(argc, argv, 'o', "log-file");
	if (!log || !*log || !strcmp(log, "-"))
		return;
	const char *dir = scan_opt(argc, argv, 'W', "work-dir");
	if (!dir)
		dir = scan_opt(argc, argv, 'D', "images-dir");
	char path[PATH_MAX];
	if (log[0] != '/' && dir && *dir)
		snprintf(path, sizeof(path), "%s/%s", dir, log);
	else
		snprintf(path, sizeof(path), "%s", log);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "%s\n", line);
	close(fd);
}

int shim_fault_env(struct shim_cmd *c, const char *crshim_fault, const char *criu_fault, char *msg,
		   size_t len)
{
	struct cr_err e = {0};
	int id = 0;
	if (crshim_fault && *crshim_fault) {
		if (fault_parse(crshim_fault, &id, &e))
			return fail(msg, len, "CRSHIM_FAULT: %s", e.msg);
		c->fault_src = "CRSHIM_FAULT";
	} else if (criu_fault && *criu_fault) {
		if (fault_parse_criu(criu_fault, &id, &e))
			return fail(msg, len, "CRIU_FAULT: %s", e.msg);
		c->fault_src = "CRIU_FAULT";
	}
	c->opts.fault = id;
	return 0;
}
