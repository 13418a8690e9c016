/* The dump's pages copied out of the task into the pages image (dump-mm.c found them). */
#define LOG_PREFIX "dump-mm: "
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/log.h"
#include "mem/dump-mm-int.h"

/* ---------------- copying pages ---------------- */

#define PBUF_BLOCKS 1024

struct pbuf {
	uint8_t *data;
	size_t used;
	struct page_block b[PBUF_BLOCKS];
	size_t nb;
	int fd[PBUF_BLOCKS]; /* each block's run: read with process_vm_readv (< 0) or pread(fd, foff) */
	uint64_t foff[PBUF_BLOCKS];
};

struct pipe_state {
	struct page_writer *pw;
	struct cr_stats *stats;
	struct pbuf buf[PBUF_NR];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t head, tail; /* filled: [tail, head) (mod), by sequence number */
	bool done, failed;
	struct cr_err err;
};

static void *writer_main(void *arg)
{
	struct pipe_state *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->tail == p->head && !p->done)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->tail == p->head)
			break;
		struct pbuf *b = &p->buf[p->tail % PBUF_NR];
		pthread_mutex_unlock(&p->lock);
		int r = pw_add_batch(p->pw, b->data, b->used, b->b, b->nb, &p->err);
		CR_STAT_ADD(p->stats, bytes_done, b->used);
		pthread_mutex_lock(&p->lock);
		p->tail++;
		if (r) {
			p->failed = true;
			pthread_cond_broadcast(&p->cond);
			break;
		}
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Where the copy is: run ri of m->runs at offset off; in a scan-later run, run pi of m->part (the runs found
 * in its part up to spos) at offset off. */
struct copy_pos {
	size_t ri, pi;
	uint64_t off, spos;
	bool scanning;
};

/* The run at the copy's position; NULL at the end, or on a failure (then *err = -1). A scan-later run is
 * scanned here, SCAN_STEP at a time, into m->part. */
static const struct prange *cur_run(struct mm_state *m, struct copy_pos *k, int *err, struct cr_err *e)
{
	while (k->ri < m->runs.nr) {
		const struct prange *r = &m->runs.r[k->ri];
		if (!r->scan)
			return r;
		if (k->pi < m->part.nr)
			return &m->part.r[k->pi];
		if (!k->scanning)
			k->scanning = true, k->spos = r->vaddr;
		uint64_t end = r->vaddr + r->len, to = end - k->spos > SCAN_STEP ? k->spos + SCAN_STEP : end;
		if (k->spos >= end) {
			k->scanning = false, k->ri++;
			continue;
		}
		m->part.nr = 0, k->pi = 0;
		m->out = &m->part;
		int ret = dmm_scan_range(m, k->spos, to, r->skip_file, r->fd, 0, 0, e);
		m->out = &m->runs;
		if (ret) {
			*err = -1;
			return NULL;
		}
		uint64_t found = 0;
		for (size_t i = 0; i < m->part.nr; i++)
			found += m->part.r[i].len;
		CR_STAT_ADD(m->c->o->stats, bytes_total, found);
		k->spos = to;
	}
	return NULL;
}

static void advance(struct mm_state *m, struct copy_pos *k, const struct prange *r, uint64_t len)
{
	k->off += len;
	if (k->off < r->len)
		return;
	k->off = 0;
	if (m->runs.r[k->ri].scan)
		k->pi++;
	else
		k->ri++;
}

/* A read of the task's memory failed at a: guard pages get a message of their own. */
static int read_failed(const struct mm_state *m, int err, uint64_t a, const char *what, struct cr_err *e)
{
	uint64_t pe = 0;
	if (err == EFAULT && pread(m->pagemap_fd, &pe, 8, (off_t)(a / m->psz * 8)) == 8 &&
	    (pe >> PM_GUARD_BIT & 1))
		return cr_fail_errno(
		    e, ENOTSUP,
		    "task %d: guard pages (madvise MADV_GUARD_INSTALL) at 0x%llx that the dump did not find "
		    "(PAGEMAP_SCAN tells them since Linux 6.14)",
		    m->c->pid, (unsigned long long)(a & ~(m->psz - 1)));
	return cr_fail_errno(e, err, "vma 0x%llx: %s", (unsigned long long)a, what);
}

/* The blocks of one buffer from the runs at the copy's position k (nothing read yet). */
static int plan_buf(struct mm_state *m, struct pbuf *b, struct copy_pos *k, struct cr_err *e)
{
	const struct prange *r;
	int err = 0;
	b->used = b->nb = 0;
	while (b->used < PBUF_SIZE && b->nb < PBUF_BLOCKS && (r = cur_run(m, k, &err, e))) {
		uint64_t len = r->len - k->off;
		if (len > PBUF_SIZE - b->used)
			len = PBUF_SIZE - b->used;
		b->fd[b->nb] = r->fd;
		b->foff[b->nb] = r->foff + k->off;
		b->b[b->nb++] = (struct page_block){r->vaddr + k->off, b->used, len, 0, 0, 0};
		b->used += len;
		advance(m, k, r, len);
	}
	return err ? -1 : 0;
}

/* Read the planned blocks into b->data and checksum them there. */
static int read_buf(struct mm_state *m, struct pbuf *b, struct cr_err *e)
{
	struct iovec liov[PBUF_BLOCKS], riov[PBUF_BLOCKS];
	size_t niov = 0, iov_bytes = 0;
	for (size_t i = 0; i < b->nb; i++) {
		uint8_t *to = b->data + b->b[i].offset;
		uint64_t len = b->b[i].len, va = b->b[i].vaddr;
		if (b->fd[i] < 0) {
			liov[niov] = (struct iovec){to, len};
			riov[niov++] = (struct iovec){(void *)(uintptr_t)va, len};
			iov_bytes += len;
			continue;
		}
		for (size_t got = 0; got < len;) {
			ssize_t n = pread(b->fd[i], to + got, len - got, (off_t)(b->foff[i] + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return read_failed(m, n < 0 ? errno : EFAULT, va + got, "read pages", e);
			got += (size_t)n;
		}
	}
	if (niov) {
		ssize_t n = process_vm_readv(m->c->pid, liov, niov, riov, niov, 0);
		if (n < 0 || (size_t)n != iov_bytes) {
			/* find the failing address for the message */
			size_t off = n < 0 ? 0 : (size_t)n, i = 0;
			while (i + 1 < niov && off >= riov[i].iov_len)
				off -= riov[i++].iov_len;
			return read_failed(m, n < 0 ? errno : EFAULT, (uintptr_t)riov[i].iov_base + off,
					   "process_vm_readv", e);
		}
	}
	for (size_t i = 0; i < b->nb; i++)
		b->b[i].csum = pw_block_csum(b->data + b->b[i].offset, b->b[i].len);
	return 0;
}

/* Fill one buffer from the runs at the copy's position k. */
static int fill_buf(struct mm_state *m, struct pbuf *b, struct copy_pos *k, struct cr_err *e)
{
	return plan_buf(m, b, k, e) || read_buf(m, b, e) ? -1 : 0;
}

/* Up to this many bytes of pages, read and write in turn in this thread: a writer thread of its own costs
 * more than it overlaps (its start, and a wait for a CPU at each hand-over on a loaded machine). */
#ifndef PBUF_INLINE
#define PBUF_INLINE (2 * PBUF_SIZE)
#endif

static int copy_inline(struct mm_state *m, struct page_writer *pw, struct pbuf *b, uint64_t *total,
		       struct cr_err *e)
{
	struct copy_pos k = {0};
	while (k.ri < m->runs.nr) {
		if (fill_buf(m, b, &k, e) || pw_add_batch(pw, b->data, b->used, b->b, b->nb, e))
			return -1;
		*total += b->used;
		CR_STAT_ADD(m->c->o->stats, bytes_done, b->used);
		if (k.ri >= (m->runs.nr + 1) / 2 && fault_check(m->c->o, FI_DUMP_MM_MID, e))
			return -1; /* half of the runs written */
	}
	return 0;
}

int dmm_copy_pages(struct mm_state *m, struct page_writer *pw, uint64_t *total, struct cr_err *e)
{
	struct pipe_state p = {.pw = pw,
			       .stats = m->c->o->stats,
			       .lock = PTHREAD_MUTEX_INITIALIZER,
			       .cond = PTHREAD_COND_INITIALIZER};
	struct copy_pos k = {0};
	int ret = 0;
	pthread_t th;

	*total = 0;
	if (!m->runs.nr)
		return 0;
	uint8_t *mem = dmm_pagebuf(m->c->mmt, e);
	if (!mem)
		return -1;
	for (int i = 0; i < PBUF_NR; i++)
		p.buf[i].data = mem + (size_t)i * PBUF_SIZE;
	uint64_t bytes = 0;
	bool later = false; /* scan-later runs: their bytes are counted as they are found */
	for (size_t i = 0; i < m->runs.nr; i++) {
		later |= m->runs.r[i].scan;
		bytes += m->runs.r[i].scan ? 0 : m->runs.r[i].len;
	}
	CR_STAT_ADD(m->c->o->stats, bytes_total, bytes);
	if (bytes <= PBUF_INLINE && !later)
		return copy_inline(m, pw, &p.buf[0], total, e);
	if ((errno = pthread_create(&th, NULL, writer_main, &p)))
		return cr_fail_sys(e, "page writer thread");
	while (k.ri < m->runs.nr) {
		pthread_mutex_lock(&p.lock);
		while (p.head - p.tail == PBUF_NR && !p.failed)
			pthread_cond_wait(&p.cond, &p.lock);
		bool failed = p.failed;
		pthread_mutex_unlock(&p.lock);
		if (failed)
			break;
		struct pbuf *b = &p.buf[p.head % PBUF_NR];
		if (fill_buf(m, b, &k, e)) {
			ret = -1;
			break;
		}
		*total += b->used;
		pthread_mutex_lock(&p.lock);
		p.head++;
		pthread_cond_broadcast(&p.cond);
		pthread_mutex_unlock(&p.lock);
		if (k.ri >= (m->runs.nr + 1) / 2 &&
		    fault_check(m->c->o, FI_DUMP_MM_MID, e)) { /* half of the runs queued */
			ret = -1;
			break;
		}
	}
	pthread_mutex_lock(&p.lock);
	p.done = true;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	pthread_join(th, NULL);
	if (p.failed && !ret) {
		*e = p.err;
		ret = -1;
	}
	return ret;
}
