/* stats-dump / stats-restore: two magics, a u32 LE size, then a stats_entry (proto/stats.proto). */
#define LOG_PREFIX "stats: "
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stats.h"
#include "base/log.h"
#include "stats.pb-c.h"

/* Pages in the raw page files (pages-*.img) of the images dir. */
static uint64_t image_pages(const char *images_dir)
{
	uint64_t bytes = 0;
	DIR *d = images_dir ? opendir(images_dir) : NULL;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!strncmp(e->d_name, "pages-", 6) && !fstatat(dirfd(d), e->d_name, &st, 0))
			bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return bytes / 4096;
}

void shim_stats_write(const char *dir, const char *images_dir, bool dump, double seconds)
{
	StatsEntry se = STATS_ENTRY__INIT;
	StatsDumpEntry de = STATS_DUMP_ENTRY__INIT;
	StatsRestoreEntry re = STATS_RESTORE_ENTRY__INIT;
	uint32_t us = seconds * 1e6 > 4e9 ? 4000000000u : (uint32_t)(seconds * 1e6);
	uint64_t pages = image_pages(images_dir);
	if (dump) {
		de.has_freezing_time = de.has_frozen_time = de.has_memdump_time = de.has_memwrite_time = 1;
		de.frozen_time = us; /* the tree is stopped for the whole dump */
		de.memdump_time = de.memwrite_time = 0;
		de.has_pages_scanned = de.has_pages_skipped_parent = de.has_pages_written = 1;
		/* Go's protobuf (Podman) treats these as required too: all written */
		de.has_irmap_resolve = de.has_pages_lazy = de.has_page_pipes = de.has_page_pipe_bufs = 1;
		de.has_shpages_scanned = de.has_shpages_skipped_parent = de.has_shpages_written = 1;
		de.pages_scanned = de.pages_written = pages;
		se.dump = &de;
	} else {
		re.has_pages_compared = re.has_pages_skipped_cow = re.has_forking_time = re.has_restore_time =
		    1;
		re.restore_time = us;
		re.has_pages_restored = 1;
		re.pages_restored = pages;
		se.restore = &re;
	}
	size_t len = stats_entry__get_packed_size(&se);
	uint8_t *buf = malloc(12 + len);
	char path[PATH_MAX];
	if (!dir || !buf ||
	    snprintf(path, sizeof(path), "%s/%s", dir, dump ? "stats-dump" : "stats-restore") >=
		(int)sizeof(path)) {
		free(buf);
		return;
	}
	uint32_t hdr[3] = {htole32(SHIM_STATS_MAGIC1), htole32(SHIM_STATS_MAGIC2), htole32((uint32_t)len)};
	memcpy(buf, hdr, 12);
	stats_entry__pack(&se, buf + 12);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, 12 + len) != (ssize_t)(12 + len))
		pr_warn("write %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(buf);
}
