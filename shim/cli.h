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
};

#define SHIM_MAX_LIST 64
#define SHIM_MAX_NOTES 32

struct shim_cmd {
	enum shim_verb verb;
	bool help, version;
	bool log_to_stderr; /* no -o: log to stderr (like CRIU) */
	struct cr_opts opts;
	const char *feature;   /* check --feature */
	bool faults;	       /* check --faults: list the fault injection points */
	const char *fault_src; /* "CRSHIM_FAULT" or "CRIU_FAULT" when opts.fault was set from it */
	const char *operand;   /* show PATH, swrk FD */
	const char *inherit_fd[SHIM_MAX_LIST];
	int n_inherit_fd;
	const char *external[SHIM_MAX_LIST];
	int n_external;
	const char *join_ns[SHIM_MAX_LIST];
	int n_join_ns;
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

/* usage.c */
void shim_usage(FILE *f);

/* Verbs (verbs.c): return the process exit status. */
int shim_run(struct shim_cmd *c);

#endif
