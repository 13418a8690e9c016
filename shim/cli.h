/* Command line of crshim (CRIU-compatible): parsing is separate from running so it can be unit tested. */
#ifndef SHIM_CLI_H
#define SHIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include "crshim.h"

enum shim_verb {
	VERB_NONE,
	VERB_DUMP,
	VERB_PRE_DUMP,
	VERB_RESTORE,
	VERB_CHECK,
	VERB_SHOW,
	VERB_SWRK,
	VERB_PAGE_SERVER,
	VERB_LAZY_PAGES,
	/* OCI verbs (shim/bundle*.c); restore --bundle is VERB_RESTORE with bundle set */
	VERB_CHECKPOINT,
	VERB_STATE,
	VERB_KILL,
	VERB_DELETE,
	VERB_LIST,
};

/* repeatable options (--external, --inherit-fd, ...): runc passes an --external mnt[] per device of a
 * privileged container, every device of the host */
#define SHIM_MAX_LIST 1024
#define SHIM_MAX_NOTES 32

struct shim_cmd {
	enum shim_verb verb;
	/* OCI verbs: --bundle, --console-socket, the container id operand, kill's signal, delete --force */
	const char *bundle, *console_socket, *oci_id, *oci_signal;
	bool oci_force;
	bool help, version;
	bool log_to_stderr; /* no -o: log to stderr (like CRIU) */
	bool display_stats; /* --display-stats: the stats table on stdout at the end of a dump or restore */
	struct cr_opts opts;
	const char *feature;   /* check --feature */
	bool faults;	       /* check --faults: list the fault injection points */
	bool ps_daemon;	       /* page-server, lazy-pages --daemon */
	int status_fd;	       /* page-server --status-fd: a zero byte once it listens (-1: none) */
	const char *fault_src; /* "CRSHIM_FAULT" or "CRIU_FAULT" when opts.fault was set from it */
	const char *operand;   /* show PATH, swrk FD */
	const char *inherit_fd[SHIM_MAX_LIST];
	int n_inherit_fd;
	const char *external[SHIM_MAX_LIST];
	int n_external;
	const char *ext_mount_map[SHIM_MAX_LIST];
	int n_ext_mount_map;
	const char *join_ns[SHIM_MAX_LIST];
	int n_join_ns;
	int n_cgroup_root;
	const char *cgroup_root[SHIM_MAX_LIST];
	char cmdline[1024];		   /* the command line as given, for the log */
	const char *notes[SHIM_MAX_NOTES]; /* accepted-and-ignored options, logged after the log opens */
	int n_notes;
};

/* Parse argv into c. Returns 0, or -1 with a one-line reason in msg ("unknown option '--foo'").
 * Pure: no I/O, no exit; resets getopt state so it may be called repeatedly. */
int shim_parse(int argc, char **argv, struct shim_cmd *c, char *msg, size_t len);
const char *shim_verb_name(enum shim_verb v);
/* Fault injection from the environment (CRSHIM_FAULT=<name|number> wins over CRIU_FAULT=<CRIU number>),
 * before anything is touched: sets c->opts.fault and c->fault_src; -1 with a one-line message for an unknown
 * value. */
int shim_fault_env(struct shim_cmd *c, const char *crshim_fault, const char *criu_fault, char *msg,
		   size_t len);

/* After a command-line error: line (no newline) also into the -o log (relative to -W, else -D), when
 * argv names one, so that a caller reading the log finds the error. Best effort. */
void shim_log_early_error(int argc, char **argv, const char *line);
/* The options alone (no verb, no required options): the getopt loop of shim_parse. */
int shim_parse_options(int argc, char **argv, struct shim_cmd *c, char *msg, size_t len);

/* A growing argv (NULL-terminated) and where each argument came from (a config file, an RPC field). */
struct shim_args {
	char **v;
	const char **src;
	int n, cap;
};
int shim_args_add(struct shim_args *a, const char *s, const char *src);
void shim_args_free(struct shim_args *a);

/* config.c: CRIU configuration files. Append the options of the file at path to a (src = path); a missing
 * file is an error only if must_exist. -1 with "FILE:LINE: ..." in msg. */
int shim_config_read(const char *path, bool must_exist, struct shim_args *a, char *msg, size_t len);
/* The same for the text of a config file in buf (n bytes; name is the file named in errors): the fuzzer's way
 * in. */
int shim_config_parse(const char *buf, size_t n, const char *name, struct shim_args *a, char *msg,
		      size_t len);
/* argv with the configuration files in front of its options, as CRIU reads them: the default files
 * (/etc/criu/default.conf, HOME/.criu/default.conf) unless --no-default-config or !defaults, then env_cfg
 * (CRIU_CONFIG_FILE), then --config FILE; the command line last (a later option wins). */
int shim_config_expand(int argc, char **argv, const char *home, const char *env_cfg, bool defaults,
		       struct shim_args *out, char *msg, size_t len);

/* swrk.c: CRIU's RPC service on the SOCK_SEQPACKET socket fd (the process's exit status). */
int shim_swrk(struct shim_cmd *c);

/* OCI verbs (bundle*.c): checkpoint, restore --bundle, state, kill, delete, list. The exit status. */
int shim_oci_run(struct shim_cmd *c);
/* verbs.c, for bundle*.c: report a failed run (names the fault point and its source), open the log
 * (resolving -D/-W/-o/--pidfile), write a pidfile, wait for a restored root (its exit status). */
int shim_report_run(const struct shim_cmd *c, const char *what, const struct cr_err *err);
int shim_setup_log(struct shim_cmd *c, struct cr_err *err);
int shim_write_pidfile(const char *path, pid_t pid, struct cr_err *err);
int shim_wait_root(pid_t root);

/* usage.c */
void shim_usage(FILE *f);

/* Verbs (verbs.c): return the process exit status. */
int shim_run(struct shim_cmd *c);

#endif
