/* The dump's pages copied out of the task into the pages image (dump-mm.c found them). */
#define LOG_PREFIX "dump-mm: "
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "base/fault.h"
#include "base/log.h"
#include "mem/dump-mm-int.h"
#include "mem/dump-splice.h"

/* ---------------- copying pages ---------------- */

#define PBUF_BLOCKS 1024

struct pbuf {
	uint8_t *data;
	size_t used;
	struct page_block b[PBUF_BLOCKS];
	size_t nb;
	int fd[PBUF_BLOCKS]; /* each block's run: read with process_vm_readv (< 0) or pread(fd, foff) */
	uint64_t foff[PBUF_BLOCKS];
	uint8_t *own; /* the buffer's memory (data: it, or a mapping of the pages file) */
	bool mapped;  /* the blocks were read straight into the pages file */
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
		int r = b->mapped ? pw_add_written(p->pw, b->used, b->b, b->nb, &p->err)
				  : pw_add_batch(p->pw, b->data, b->used, b->b, b->nb, &p->err);
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

/* Blocks of a batch the task's code did not do, read and written by crshim (one at a time: each is at most
 * PBUF_SIZE). */
static int copy_blocks(struct mm_state *m, struct page_writer *pw, struct pbuf *b,
		       const struct page_block *bl, size_t nb, struct cr_err *e)
{
	for (size_t i = 0; i < nb; i++) {
		struct iovec l = {b->data, bl[i].len}, r = {(void *)(uintptr_t)bl[i].vaddr, bl[i].len};
		ssize_t n = process_vm_readv(m->c->pid, &l, 1, &r, 1, 0);
		if (n != (ssize_t)bl[i].len)
			return read_failed(m, n < 0 ? errno : EFAULT, bl[i].vaddr, "process_vm_readv", e);
		struct page_block one = {bl[i].vaddr, 0, bl[i].len, pw_block_csum(b->data, bl[i].len), 0, 0};
		if (pw_add_batch(pw, b->data, bl[i].len, &one, 1, e))
			return -1;
	}
	return 0;
}

/* Bytes of a block the task's code splices: a quarter of its pipe (1 MiB), so that the task checksums the
 * next blocks while crshim's thread empties the pipe (1 MiB blocks: the two took turns, waiting for a CPU
 * at each on a loaded machine). At most PBUF_SIZE (copy_blocks). */
#ifndef SPLICE_BLOCK
#define SPLICE_BLOCK (256u << 10)
#endif

/* The next batch of blocks for the task's code: from the runs read by process_vm_readv (fd < 0) at k, up to
 * room blocks of up to SPLICE_BLOCK each; *len their bytes. */
static size_t splice_blocks(struct mm_state *m, struct copy_pos *k, struct page_block *bl, size_t room,
			    uint64_t *len, int *err, struct cr_err *e)
{
	const struct prange *r;
	size_t nb = 0;
	*len = 0;
	while (nb < room && (r = cur_run(m, k, err, e)) && r->fd < 0) {
		uint64_t n = r->len - k->off < SPLICE_BLOCK ? r->len - k->off : SPLICE_BLOCK;
		bl[nb++] = (struct page_block){r->vaddr + k->off, *len, n, 0, 0, 0};
		*len += n;
		advance(m, k, r, n);
	}
	return nb;
}

/* The pages through the task (dump-splice.c), the runs it cannot read (fd >= 0) and what follows them in
 * one buffer through crshim; after a failure of the task's code, all the rest through crshim. */
static int splice_loop(struct mm_state *m, struct page_writer *pw, struct dump_splice *s, struct pbuf *b,
		       struct page_block *bl, uint64_t *total, struct cr_err *e)
{
	struct copy_pos k = {0};
	size_t room = dump_splice_room(s);
	const struct prange *r;
	int err = 0;
	bool on = true;
	while ((r = cur_run(m, &k, &err, e))) {
		uint64_t len;
		size_t nb = on && r->fd < 0 ? splice_blocks(m, &k, bl, room, &len, &err, e) : 0;
		int ret = nb ? dump_splice_batch(s, pw, bl, nb, len, e) : 0;
		if (err || ret < 0)
			return -1;
		if (ret > 0 && copy_blocks(m, pw, b, bl, nb, e))
			return -1;
		on = on && !ret;
		if (!nb && (fill_buf(m, b, &k, e) || pw_add_batch(pw, b->data, b->used, b->b, b->nb, e)))
			return -1;
		len = nb ? len : b->used;
		*total += len;
		CR_STAT_ADD(m->c->o->stats, bytes_done, len);
		if (k.ri >= (m->runs.nr + 1) / 2 && fault_check(m->c->o, FI_DUMP_MM_MID, e))
			return -1; /* half of the runs written */
	}
	return err ? -1 : 0;
}

static int copy_spliced(struct mm_state *m, struct page_writer *pw, struct dump_splice *s, struct pbuf *b,
			uint64_t *total, struct cr_err *e)
{
	struct page_block *bl = calloc(dump_splice_room(s), sizeof(*bl));
	if (!bl)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	int ret = splice_loop(m, pw, s, b, bl, total, e);
	free(bl);
	return ret;
}

/* Pages through the task's code: a dump of a killed tree (one left running or pre-dumped reads
 * /proc/PID/mem), into a file (not to a page server), of enough memory to pay for the task's setup (a few
 * remote syscalls; CRSHIM_DUMP_COPY=splice: any). 1: not this way. */
#define SPLICE_MIN (4u << 20)

static int copy_by_splice(struct mm_state *m, struct page_writer *pw, struct pbuf *b, uint64_t bytes,
			  bool later, uint64_t *total, struct cr_err *e)
{
	struct dump_splice *s;
	uint64_t off;
	enum dump_copy how = dump_splice_mode();
	if ((how != DUMP_COPY_AUTO && how != DUMP_COPY_SPLICE) || m->no_readv || pw_data_fd(pw, &off) < 0 ||
	    (how == DUMP_COPY_AUTO && !later && bytes < SPLICE_MIN))
		return 1;
	int r = dump_splice_open(m->c, &s, e);
	if (r)
		return r;
	r = copy_spliced(m, pw, s, b, total, e);
	struct cr_err e2;
	if (dump_splice_close(s, r ? &e2 : e))
		r = -1;
	return r;
}

/* ---------------- the pages read straight into the pages file ---------------- */

/* On tmpfs a write() allocates and charges each page of the file under the file's lock: the writer thread
 * is the dump's limit (~0.5 s of CPU per GiB) while the reading thread waits for free buffers. When the
 * writer is behind (all buffers but the one to fill are waiting for it), the reading thread reads the next
 * buffer's blocks with process_vm_readv straight into a shared mapping of the pages file at their place
 * (the faults, populated ahead with MADV_POPULATE_WRITE, allocate the file's pages without that lock) and
 * checksums them there; the writer then only adds them to the pagemap, in their order. Copying into the
 * mapping never raises SIGBUS (MADV_POPULATE_WRITE fails, or process_vm_readv stops short, e.g. on a full
 * tmpfs): such a buffer is read into crshim's buffer as before and written, and the write says why. */
#define MAP_WINDOW (32ull << 20) /* of the file mapped at a time */
#define MAP_GROW (64ull << 20)	 /* the file is made longer this much at a time */

struct map_win {
	uint8_t *addr;
	uint64_t off;
};

/* The file's bytes [off, off + len) in the thread's window of it (mapped anew when they are not in it). */
static uint8_t *map_at(int fd, struct map_win *w, uint64_t off, uint64_t len)
{
	if (w->addr && off >= w->off && off + len <= w->off + MAP_WINDOW)
		return w->addr + (off - w->off);
	if (w->addr)
		munmap(w->addr, MAP_WINDOW);
	w->off = off & ~(MAP_WINDOW - 1);
	if (off + len > w->off + MAP_WINDOW)
		w->off = off; /* (a page multiple: the file holds whole pages) */
	void *a = mmap(NULL, MAP_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)w->off);
	w->addr = a == MAP_FAILED ? NULL : a;
	return w->addr ? w->addr + (off - w->off) : NULL;
}

/* A pages file the reading thread may map: on tmpfs (where the write is the limit); with map (a test of
 * that way) also on the local disk filesystems, whose writeback of the mapped pages is the write's. Never
 * on a network or FUSE filesystem, which might say only later that it could not write a mapped page. */
static bool map_fs(long type, bool any_local)
{
	if (type == TMPFS_MAGIC)
		return true;
	return any_local &&
	       (type == EXT4_SUPER_MAGIC || type == XFS_SUPER_MAGIC || type == BTRFS_SUPER_MAGIC);
}

/* The reader's way into the pages file past the writer (dmm_copy_pages): where the next buffer goes. */
struct map_side {
	int fd; /* -1: not this way */
	uint64_t end, size;
	uint64_t mapped; /* bytes read into the mapping */
	struct map_win w;
};

/* Fill one buffer: into a mapping of the pages file at its place when the writer is behind (map), else
 * (or when the mapping cannot take them) into the buffer. */
static int fill_side(struct mm_state *m, struct map_side *ms, struct pbuf *b, struct copy_pos *k, bool map,
		     struct cr_err *e)
{
	struct cr_err e2;
	b->data = b->own, b->mapped = false;
	if (plan_buf(m, b, k, e))
		return -1;
	uint64_t off = ms->end;
	ms->end += b->used;
	if (!map || ms->fd < 0 || !b->used)
		return read_buf(m, b, e);
	if (ms->end > ms->size) {
		uint64_t to = ms->size + MAP_GROW > ms->end ? ms->size + MAP_GROW : ms->end;
		if (ftruncate(ms->fd, (off_t)to))
			return read_buf(m, b, e);
		ms->size = to;
	}
	uint8_t *to = map_at(ms->fd, &ms->w, off, b->used);
	if (to && !madvise(to, b->used, MADV_POPULATE_WRITE)) {
		b->data = to;
		if (!read_buf(m, b, &e2)) {
			ms->mapped += b->used;
			b->mapped = true;
			return 0;
		}
	}
	b->data = b->own; /* the mapping could not take them (the writer's write says why) */
	return read_buf(m, b, e);
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
		p.buf[i].data = p.buf[i].own = mem + (size_t)i * PBUF_SIZE;
	uint64_t bytes = 0;
	bool later = false; /* scan-later runs: their bytes are counted as they are found */
	for (size_t i = 0; i < m->runs.nr; i++) {
		later |= m->runs.r[i].scan;
		bytes += m->runs.r[i].scan ? 0 : m->runs.r[i].len;
	}
	CR_STAT_ADD(m->c->o->stats, bytes_total, bytes);
	int r = copy_by_splice(m, pw, &p.buf[0], bytes, later, total, e);
	if (r <= 0)
		return r;
	if (bytes <= PBUF_INLINE && !later)
		return copy_inline(m, pw, &p.buf[0], total, e);
	struct map_side ms = {.fd = -1};
	struct statfs sf;
	enum dump_copy how = dump_splice_mode();
	if ((how == DUMP_COPY_MAP || how == DUMP_COPY_BEHIND) && (ms.fd = pw_data_fd(pw, &ms.end)) >= 0 &&
	    (fstatfs(ms.fd, &sf) || !map_fs(sf.f_type, how == DUMP_COPY_MAP)))
		ms.fd = -1; /* (the page server, or not such a filesystem: written) */
	ms.size = ms.end;
	if ((errno = pthread_create(&th, NULL, writer_main, &p)))
		return cr_fail_sys(e, "page writer thread");
	while (k.ri < m->runs.nr) {
		pthread_mutex_lock(&p.lock);
		while (p.head - p.tail == PBUF_NR && !p.failed)
			pthread_cond_wait(&p.cond, &p.lock);
		bool failed = p.failed, map = how == DUMP_COPY_MAP || p.head - p.tail >= PBUF_NR - 1;
		pthread_mutex_unlock(&p.lock);
		if (failed)
			break;
		struct pbuf *b = &p.buf[p.head % PBUF_NR];
		if (fill_side(m, &ms, b, &k, map, e)) {
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
	if (ms.w.addr)
		munmap(ms.w.addr, MAP_WINDOW);
	if (ms.fd >= 0)
		pr_info("task %d: %llu of %llu bytes of pages read straight into the pages file\n", m->c->pid,
			(unsigned long long)ms.mapped, (unsigned long long)*total);
	if (!ret && !p.failed && ms.size > ms.end && ftruncate(ms.fd, (off_t)ms.end))
		ret = cr_fail_sys(e, "pages of task %d: cut the pages file to %llu bytes", m->c->pid,
				  (unsigned long long)ms.end);
	if (p.failed && !ret) {
		*e = p.err;
		ret = -1;
	}
	return ret;
}
