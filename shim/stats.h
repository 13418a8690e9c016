/* CRIU's stats-dump / stats-restore files (Podman's --print-stats reads them from the work dir), the
 * --display-stats table, and the progress line of a long dump or restore on a terminal. */
#ifndef SHIM_STATS_H
#define SHIM_STATS_H

#include <stdbool.h>
#include <stdio.h>
#include "crshim.h"

#define SHIM_STATS_MAGIC1 0x55105940u
#define SHIM_STATS_MAGIC2 0x57093306u

/* Write stats-dump (dump, pre-dump) or stats-restore into dir from what the run measured; with display,
 * print them to it as CRIU's --display-stats does. Failures are logged only (a dump is not failed for its
 * statistics). */
void shim_stats_write(const char *dir, const struct cr_stats *st, bool dump, FILE *display);

/* The progress of a run on stderr (tasks, MB of pages done of those known, MB/s), one line rewritten in
 * place, from one second after the start: only when stderr is a terminal (NULL else, and on any failure).
 * Stop clears the line. */
struct shim_progress;
struct shim_progress *shim_progress_start(const char *what, const struct cr_stats *st);
void shim_progress_stop(struct shim_progress *p);

#endif
