/* CRIU's stats-dump / stats-restore files (Podman's --print-stats reads them from the work dir). */
#ifndef SHIM_STATS_H
#define SHIM_STATS_H

#include <stdbool.h>

#define SHIM_STATS_MAGIC1 0x55105940u
#define SHIM_STATS_MAGIC2 0x57093306u

/* Write stats-dump (dump) or stats-restore into dir: the run's time and the pages of the images in
 * images_dir. Failures are logged only (a dump is not failed for its statistics). */
void shim_stats_write(const char *dir, const char *images_dir, bool dump, double seconds);

#endif
