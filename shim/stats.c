/* stats-dump / stats-restore: two magics, a u32 LE size, then a stats_entry (proto/stats.proto). */
#define LOG_PREFIX "stats: "
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "stats.h"
#include "base/log.h"
#include "stats.pb-c.h"

static uint32_t us32(uint64_t us)
{
	return us > 4000000000u ? 4000000000u : (uint32_t)us;
}

static void show_count(FILE *f, const char *what, uint64_t n)
{
	fprintf(f, "%s: %" PRIu64 " (0x%" PRIx64 ")\n", what, n, n);
}

/* The lines of CRIU's --display-stats, then crshim's own. */
static void display(FILE *f, const StatsEntry *se)
{
	if (se->dump) {
		const StatsDumpEntry *d = se->dump;
		fprintf(f, "Displaying dump stats:\n");
		fprintf(f, "Freezing time: %u us\n", d->freezing_time);
		fprintf(f, "Frozen time: %u us\n", d->frozen_time);
		fprintf(f, "Memory dump time: %u us\n", d->memdump_time);
		fprintf(f, "Memory write time: %u us\n", d->memwrite_time);
		show_count(f, "Memory pages scanned", d->pages_scanned);
		show_count(f, "Memory pages skipped from parent", d->pages_skipped_parent);
		show_count(f, "Memory pages written", d->pages_written);
		show_count(f, "Lazy memory pages", d->pages_lazy);
	} else if (se->restore) {
		const StatsRestoreEntry *r = se->restore;
		fprintf(f, "Displaying restore stats:\n");
		show_count(f, "Pages compared", r->pages_compared);
		show_count(f, "Pages skipped COW", r->pages_skipped_cow);
		show_count(f, "Pages restored", r->pages_restored);
		fprintf(f, "Restore time: %u us\n", r->restore_time);
		fprintf(f, "Forking time: %u us\n", r->forking_time);
		fprintf(f, "Address space load time: %u us\n", r->mm_load_time);
	}
	fflush(f);
}

void shim_stats_write(const char *dir, const struct cr_stats *st, bool dump, FILE *show)
{
	StatsEntry se = STATS_ENTRY__INIT;
	StatsDumpEntry de = STATS_DUMP_ENTRY__INIT;
	StatsRestoreEntry re = STATS_RESTORE_ENTRY__INIT;
	static const struct cr_stats none;
	if (!st)
		st = &none;
	if (dump) {
		de.has_freezing_time = de.has_frozen_time = de.has_memdump_time = de.has_memwrite_time = 1;
		de.freezing_time = us32(st->freezing_us);
		de.frozen_time = us32(st->frozen_us);
		de.memdump_time = us32(st->memdump_us);
		de.memwrite_time = us32(st->memwrite_us);
		de.has_pages_scanned = de.has_pages_skipped_parent = de.has_pages_written = 1;
		/* Go's protobuf (Podman) treats these as required too: all written */
		de.has_irmap_resolve = de.has_pages_lazy = de.has_page_pipes = de.has_page_pipe_bufs = 1;
		de.has_shpages_scanned = de.has_shpages_skipped_parent = de.has_shpages_written = 1;
		de.pages_scanned = st->pages_scanned;
		de.pages_skipped_parent = st->pages_skipped_parent;
		de.pages_written = st->pages_written;
		de.shpages_scanned = de.shpages_written = st->shpages_written; /* saved whole, every page */
		se.dump = &de;
	} else {
		re.has_pages_compared = re.has_pages_skipped_cow = re.has_forking_time = re.has_restore_time =
		    1;
		re.restore_time = us32(st->restore_us);
		re.forking_time = us32(st->forking_us);
		re.has_pages_restored = re.has_mm_load_time = 1;
		re.pages_restored = st->pages_restored;
		re.mm_load_time = us32(st->mm_load_us);
		se.restore = &re;
	}
	if (show)
		display(show, &se);
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

/* ---------------- progress on a terminal ---------------- */

struct shim_progress {
	const char *what;
	const struct cr_stats *st;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, shown;
	double after; /* seconds before the first line */
	struct timespec t0;
};

static double secs_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static uint64_t get(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static void progress_line(struct shim_progress *p)
{
	char line[160];
	double s = secs_since(&p->t0), mb = (double)get(&p->st->bytes_done) / 1e6;
	uint64_t tt = get(&p->st->tasks_total);
	char tasks[48] = "";
	if (tt)
		snprintf(tasks, sizeof(tasks), "%" PRIu64 "/%" PRIu64 " tasks, ", get(&p->st->tasks_done),
			 tt);
	int n = snprintf(line, sizeof(line), "\r%s: %s%.0f/%.0f MB of pages, %.0f MB/s\033[K", p->what, tasks,
			 mb, (double)get(&p->st->bytes_total) / 1e6, s > 0 ? mb / s : 0.0);
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) == n)
		p->shown = true;
}

static void *progress_main(void *arg)
{
	struct shim_progress *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (secs_since(&p->t0) >= p->after)
			progress_line(p);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 250 * 1000000L;
		if (until.tv_nsec >= 1000000000L)
			until.tv_sec++, until.tv_nsec -= 1000000000L;
		while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &until) != ETIMEDOUT)
			;
		if (p->stop)
			break;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct shim_progress *shim_progress_start(const char *what, const struct cr_stats *st)
{
	if (!st || !isatty(STDERR_FILENO))
		return NULL;
	struct shim_progress *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	if (!p)
		return NULL;
	const char *ms = getenv("CRSHIM_PROGRESS_AFTER_MS"); /* tests: sooner than the second */
	*p = (struct shim_progress){
	    .what = what, .st = st, .lock = PTHREAD_MUTEX_INITIALIZER, .after = ms ? atof(ms) / 1000 : 1.0};
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	if (pthread_condattr_init(&ca) || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&p->cond, &ca)) {
		free(p);
		return NULL;
	}
	pthread_condattr_destroy(&ca);
	/* every signal blocked in the thread: a Ctrl-C goes to the run's thread, which holds it while the
	 * tree is seized (engine/dump.c) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int r = pthread_create(&p->th, NULL, progress_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		pthread_cond_destroy(&p->cond);
		free(p);
		return NULL;
	}
	return p;
}

void shim_progress_stop(struct shim_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->th, NULL);
	if (p->shown && write(STDERR_FILENO, "\r\033[K", 4) != 4)
		pr_debug("clear the progress line: %s\n", strerror(errno));
	pthread_cond_destroy(&p->cond);
	free(p);
}
