/* Fault injection: named points with stable numbers where a dump or restore can really fail ("fatal": the run
 * fails there, as if that step had failed) or where a fallback exists ("degrade": the run must succeed
 * through the fallback). One point is selected per run, in struct cr_opts.fault (CRSHIM_FAULT=<name|number>,
 * CRIU_FAULT=<CRIU number>, read by shim/ before anything is touched; the OCI annotation cr.fault=<name> uses
 * the same names). The numbers never change: new points get new numbers. */
#ifndef CRSHIM_FAULT_H
#define CRSHIM_FAULT_H

#include <stdbool.h>
#include <stdio.h>
#include "base/err.h"
#include "base/fault-ids.h"

struct cr_opts;

enum fault_kind { FAULT_FATAL, FAULT_DEGRADE };

struct fault_point {
	int id;		  /* enum fault_id, stable */
	const char *name; /* stable, e.g. "dump-early" */
	enum fault_kind kind;
	int criu_nr;	   /* CRIU_FAULT number that selects this point, 0 = none */
	const char *where; /* one line for `crshim check --faults` and the docs */
};

/* The table, in number order; n gets the count. */
const struct fault_point *fault_table(size_t *n);
/* The point with this id, NULL if none. */
const struct fault_point *fault_point(int id);
/* Name of a point ("?" if unknown). */
const char *fault_name(int id);
/* CRSHIM_FAULT value: a name or a number of the table. 0 and *id set, or -1 with a one-line error. */
int fault_parse(const char *s, int *id, struct cr_err *e);
/* CRIU_FAULT value: a CRIU fault number (1 = dump-early, 2 = restore-root-only, ...). */
int fault_parse_criu(const char *s, int *id, struct cr_err *e);
/* Is point id selected (by a run's fault value)? Logs the hit. For code without the opts (the restore child).
 */
bool fault_hit(int selected, int id);
/* Is point id selected for this run? Logs the hit. */
bool fault_injected(const struct cr_opts *o, int id);
/* Fail with "fault injected at NAME" (errno EIO). Returns -1. */
#define fault_fail(e, id) cr_fail_errno((e), EIO, "fault injected at %s", fault_name(id))
/* For chains of steps: -1 with the error set if point id is selected for this run, else 0. */
int fault_check(const struct cr_opts *o, int id, struct cr_err *e);
/* The listing of `crshim check --faults`. */
void fault_list(FILE *out);

#endif
