/* The restorer blob: runs in the restored task after crshim's C code jumped here (arch_jump_to_blob).
 * It replaces crshim's address space with the image's, restores what only the task itself can set,
 * drops credentials last, reports through args->state and stops with a trap for the tracer (crshim),
 * which then sets the registers. Freestanding: raw syscalls only, no data/bss, position independent. */
#include <stddef.h>
#include <stdint.h>
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/ioctl.h>
#include <linux/futex.h>
#include <linux/userfaultfd.h>
#include <linux/sched.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <linux/securebits.h>

#include "base/fault-ids.h"
#include "restorer-args.h"
#include "rst-svm.h"
#include "rst-sys.h"
#include "rst-arch.h"
#include "base/vma-flags.h"

#ifndef PR_TIMER_CREATE_RESTORE_IDS
#define PR_TIMER_CREATE_RESTORE_IDS 77
#endif
#define RST_SS_ONSTACK 1
#define RST_SS_DISABLE 2
#define RST_SIGKILL 9
#define RST_SIGSTOP 19
#define RST_SIGTRAP 5
#define RST_READ_CHUNK (4ul << 20)
#define RST_THREAD_MIN (64ul << 20)

void rst_main(struct rst_args *a);

/* UFFDIO_MOVE (Linux 6.8), newer than the build host's headers */
struct rst_uffdio_move {
	uint64_t dst, src, len, mode;
	int64_t move;
};
#define RST_UFFDIO_MOVE_NR 0x05
#define RST_UFFDIO_MOVE _IOWR(UFFDIO, RST_UFFDIO_MOVE_NR, struct rst_uffdio_move)

/* The compiler may emit calls to these. */
__attribute__((used)) void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *dp = d;
	const uint8_t *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}

__attribute__((used)) void *memset(void *d, int c, size_t n)
{
	uint8_t *dp = d;
	while (n--)
		*dp++ = (uint8_t)c;
	return d;
}

__attribute__((noreturn)) static void fail(struct rst_args *a, const char *step, long ret, uint64_t x,
					   uint64_t y)
{
	size_t i = 0;
	for (const char *s = step; *s && i < sizeof(a->err_step) - 1; s++) /* up to its NUL, truncated */
		a->err_step[i++] = *s;
	a->err_step[i] = 0;
	a->err_errno = (int32_t)-ret;
	a->err_a = x;
	a->err_b = y;
	__atomic_store_n(&a->state, RST_FAILED, __ATOMIC_SEQ_CST);
	for (;;)
		sys1(__NR_exit_group, 1);
}

static inline void check(struct rst_args *a, long r, const char *step, uint64_t x, uint64_t y)
{
	if (RST_ISERR(r))
		fail(a, step, r, x, y);
}

/* ---------------- address space ---------------- */

static void specials_park(struct rst_args *a)
{
	for (int i = 0; i < RST_NR_SPECIAL; i++) {
		struct rst_special *s = &a->special[i];
		if (!s->cur || !s->len)
			continue;
		long r = sys5(__NR_mremap, s->cur, s->len, s->len, MREMAP_MAYMOVE | MREMAP_FIXED, s->park);
		if (RST_ISERR(r) || (uint64_t)r != s->park)
			fail(a, "park vdso/vvar", RST_ISERR(r) ? r : -22, s->cur, s->cur + s->len);
	}
}

static void specials_place(struct rst_args *a)
{
	for (int i = 0; i < RST_NR_SPECIAL; i++) {
		struct rst_special *s = &a->special[i];
		if (!s->cur || !s->len)
			continue;
		if (!s->target) {
			check(a, sys2(__NR_munmap, s->park, s->len), "unmap vdso/vvar", s->park, s->len);
			continue;
		}
		long r = sys5(__NR_mremap, s->park, s->len, s->len, MREMAP_MAYMOVE | MREMAP_FIXED, s->target);
		if (RST_ISERR(r) || (uint64_t)r != s->target)
			fail(a, "move vdso/vvar", RST_ISERR(r) ? r : -22, s->target, s->target + s->len);
	}
}

static void unmap_old(struct rst_args *a)
{
	const struct rst_range *u = (const struct rst_range *)a->unmap;
	for (uint32_t i = 0; i < a->nr_unmap; i++)
		check(a, sys2(__NR_munmap, u[i].start, u[i].len), "munmap", u[i].start,
		      u[i].start + u[i].len);
}

static uint64_t now_ns(void)
{
	int64_t ts[2] = {0, 0};
	sys2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, ts);
	return (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
}

static void read_into(struct rst_args *a, int src, uint64_t vaddr, uint64_t len, uint64_t off)
{
	long fd = src ? ((const int32_t *)a->mfd)[a->src_mfile + (uint32_t)src - 1] : a->pages_fd;
	for (uint64_t got = 0; got < len;) {
		long r = sys4(__NR_pread64, fd, vaddr + got, len - got, off + got);
		if (r == -4)
			continue;
		if (r == 0)
			r = -5; /* EIO: the page file shrank after it was verified */
		check(a, r, "read pages", vaddr + got, vaddr + len);
		got += (uint64_t)r;
	}
}

/* Fill [vaddr, vaddr + len) from the pages file at off, in chunks: prefault a chunk in one go (much
 * cheaper than a fault per page inside pread), then read it while it is still in the cache. */
static void read_small(struct rst_args *a, int src, uint64_t vaddr, uint64_t len, uint64_t off)
{
	uint64_t done = 0;
	while (done < len) {
		uint64_t n = len - done;
		if (n > RST_READ_CHUNK)
			n = RST_READ_CHUNK;
		long r =
		    a->fault == FI_NO_POPULATE ? 0 : sys3(__NR_madvise, vaddr + done, n, MADV_POPULATE_WRITE);
		if (RST_ISERR(r) && r != -22)
			fail(a, "prefault pages", r, vaddr + done, vaddr + done + n);
		read_into(a, src, vaddr + done, n, off + done);
		done += n;
	}
}

/* Huge pages: fill a 2 MiB aligned window of the thread with huge pages (the window has MADV_HUGEPAGE,
 * the task's VMA keeps its own flags), read the data into it and move the pages to their place with
 * UFFDIO_MOVE. Much faster than small pages; 0 if done, -1 to fall back to small pages. */
static int read_huge(struct rst_args *a, int src, int k, uint64_t dst, uint64_t len, uint64_t off,
		     uint32_t prot)
{
	uint64_t w = a->win[k];
	long r = sys6(__NR_mmap, (long)w, (long)len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (RST_ISERR(r) || RST_ISERR(sys3(__NR_madvise, w, len, MADV_HUGEPAGE)) ||
	    RST_ISERR(sys3(__NR_madvise, w, len, MADV_POPULATE_WRITE)))
		return -1;
	read_into(a, src, w, len, off);
	/* Register only the range being moved, only while it is moved: a fault anywhere in a registered
	 * range would wait for a userfault handler that does not exist. */
	struct uffdio_register reg = {{dst, len}, UFFDIO_REGISTER_MODE_MISSING, 0};
	if (RST_ISERR(sys3(__NR_ioctl, a->uffd, UFFDIO_REGISTER, &reg)))
		return -1;
	struct rst_uffdio_move mv = {dst, w, len, 0, 0};
	r = sys3(__NR_ioctl, a->uffd, RST_UFFDIO_MOVE, &mv);
	struct uffdio_range ur = {dst, len};
	check(a, sys3(__NR_ioctl, a->uffd, UFFDIO_UNREGISTER, &ur), "userfaultfd unregister", dst, dst + len);
	if (RST_ISERR(r)) {
		uint64_t moved = mv.move > 0 && (uint64_t)mv.move < len ? (uint64_t)mv.move : 0;
		read_small(a, src, dst + moved, len - moved, off + moved);
		return 1;
	}
	a->thp_bytes[k] += len;
	return 0;
}

/* One run of page data (part [s, e) of block b), by thread k. */
static void read_run(struct rst_args *a, const struct rst_pblock *b, uint64_t s, uint64_t e, int k)
{
	uint64_t vaddr = b->vaddr + s, end = b->vaddr + e, off = b->off + s;
	uint64_t hs = (vaddr + RST_THP_SIZE - 1) & ~(RST_THP_SIZE - 1), he = end & ~(RST_THP_SIZE - 1);

	if (b->lazy) /* lazy-pages fills it (mem/lazy.md) */
		return;
	if (!b->thp || a->uffd < 0 || !a->thp_ok || he <= hs) {
		read_small(a, b->src, vaddr, end - vaddr, off);
		return;
	}
	read_small(a, b->src, vaddr, hs - vaddr, off);
	for (uint64_t c = hs, n; c < he; c += n) {
		n = he - c < RST_THP_WIN ? he - c : RST_THP_WIN;
		int r = a->thp_ok ? read_huge(a, b->src, k, c, n, off + (c - vaddr), b->prot) : -1;
		if (r)
			a->thp_ok = 0;
		if (r < 0)
			read_small(a, b->src, c, n, off + (c - vaddr));
	}
	read_small(a, b->src, he, end - he, off + (he - vaddr));
}

/* Read the bytes [from, to) of the concatenated page runs, as thread k. */
static void read_part(struct rst_args *a, uint64_t from, uint64_t to, int k)
{
	const struct rst_pblock *b = (const struct rst_pblock *)a->blocks;
	uint64_t pos = 0;
	for (uint32_t i = 0; i < a->nr_blocks && pos < to; pos += b[i].len, i++) {
		uint64_t s = from > pos ? from - pos : 0, e = to - pos < b[i].len ? to - pos : b[i].len;
		if (s < e)
			read_run(a, &b[i], s, e, k);
	}
}

static void helper_main(void *arg)
{
	struct rst_args *a = arg;
	read_part(a, a->helper_from, a->helper_to, 1);
}

/* An fd made for the blob before the turn of a sharer of an fd table ended (pre_fd), else 0. */
static long made(const struct rst_args *a, int which)
{
	return a->pre_fd[which] > 0 ? a->pre_fd[which] : 0;
}

/* That fd, else a new one: syscall nr (userfaultfd or eventfd2) with arg, flags. */
static long made_or(const struct rst_args *a, int which, long nr, long arg, long flags)
{
	return made(a, which) ? made(a, which)
			      : (nr == __NR_userfaultfd ? sys1(nr, flags) : sys2(nr, arg, flags));
}

/* A userfaultfd and a window per thread for huge pages. Any failure: no huge pages (a->uffd = -1). */
static void thp_setup(struct rst_args *a)
{
	const struct rst_vma *v = (const struct rst_vma *)a->vmas;
	struct uffdio_api api = {UFFD_API, 0, 0};
	uint32_t i;

	a->uffd = -1;
	if (!a->use_thp)
		return;
	for (i = 0; i < a->nr_vmas && !v[i].thp; i++)
		;
	if (i == a->nr_vmas)
		return;
	long fd = made_or(a, RST_PRE_THP_UFFD, __NR_userfaultfd, 0, O_CLOEXEC | O_NONBLOCK);
	if (RST_ISERR(fd))
		return;
	if (RST_ISERR(sys3(__NR_ioctl, fd, UFFDIO_API, &api)))
		goto fail;
	for (int k = 0; k < 2; k++) {
		long w = sys6(__NR_mmap, 0, (long)(RST_THP_WIN + RST_THP_SIZE), PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (RST_ISERR(w))
			goto fail;
		a->win_raw[k] = (uint64_t)w;
		a->win[k] = ((uint64_t)w + RST_THP_SIZE - 1) & ~(RST_THP_SIZE - 1);
	}
	a->uffd = (int32_t)fd;
	a->thp_ok = 1;
	return;
fail:
	if (fd != made(a, RST_PRE_THP_UFFD))
		sys1(__NR_close, fd);
	for (int k = 0; k < 2; k++)
		if (a->win_raw[k])
			sys2(__NR_munmap, a->win_raw[k], RST_THP_WIN + RST_THP_SIZE);
	a->win_raw[0] = a->win_raw[1] = 0;
}

static void thp_teardown(struct rst_args *a)
{
	if (a->uffd < 0)
		return;
	if (a->uffd != made(a, RST_PRE_THP_UFFD))
		check(a, sys1(__NR_close, a->uffd), "close userfaultfd", 0, 0);
	for (int k = 0; k < 2; k++)
		check(a, sys2(__NR_munmap, a->win_raw[k], RST_THP_WIN + RST_THP_SIZE), "unmap window",
		      a->win_raw[k], 0);
	a->uffd = -1;
}

/* Page data: with a lot of it, a helper thread reads the second half (2 CPUs fill memory faster). */
static void read_pages(struct rst_args *a)
{
	const struct rst_pblock *b = (const struct rst_pblock *)a->blocks;
	uint64_t total = 0, half;
	for (uint32_t i = 0; i < a->nr_blocks; i++)
		total += b[i].len;
	thp_setup(a);
	half = (total / 2) & ~(uint64_t)(RST_THP_SIZE - 1);
	if (total < RST_THREAD_MIN || !half) {
		read_part(a, 0, total, 0);
		thp_teardown(a);
		return;
	}
	a->helper_from = half;
	a->helper_to = total;
	a->helper_tid = 1;
	long tid = rst_clone_thread(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
					CLONE_SYSVSEM | CLONE_CHILD_CLEARTID,
				    (void *)(a->stack_top - RST_STACK_SIZE / 2), (int32_t *)&a->helper_tid,
				    helper_main, a);
	if (RST_ISERR(tid)) { /* no thread: do it all here */
		a->helper_tid = 0;
		read_part(a, 0, total, 0);
		thp_teardown(a);
		return;
	}
	read_part(a, 0, half, 0);
	for (int32_t v; (v = a->helper_tid) != 0;)
		sys6(__NR_futex, (long)&a->helper_tid, FUTEX_WAIT, v, 0, 0, 0);
	thp_teardown(a);
}

static void madv(struct rst_args *a, const struct rst_vma *v, uint32_t bit, int advice)
{
	if (v->madv & bit)
		check(a, sys3(__NR_madvise, v->start, v->end - v->start, advice), "madvise", v->start,
		      v->end);
}

/* Protection while the pages are written: the final one, plus write if there is data. */
static uint32_t map_prot(const struct rst_vma *v)
{
	if (v->prefilled)
		return PROT_READ | PROT_WRITE;
	return v->prot | (v->nr_blocks ? PROT_WRITE : 0);
}

/* A System V shared memory attach: the VMA at offset 0 attaches the whole segment, the parts after it (split
 * by mprotect) are in it already; each gets its own protection. */
static void map_sysv(struct rst_args *a, const struct rst_vma *v)
{
	uint32_t attach_prot = PROT_READ | ((v->flags & RST_SHM_RDONLY) ? 0 : PROT_WRITE) |
			       ((v->flags & RST_SHM_EXEC) ? PROT_EXEC : 0);
	if (!v->pgoff) {
		long r = sys3(__NR_shmat, v->mfile, (long)v->start, v->flags);
		if (RST_ISERR(r) || (uint64_t)r != v->start)
			fail(a, "shmat", RST_ISERR(r) ? r : -22, v->start, (uint64_t)v->mfile);
	}
	if (v->prot != attach_prot)
		check(a, sys3(__NR_mprotect, v->start, v->end - v->start, v->prot), "mprotect shm attach",
		      v->start, v->end);
}

static void map_vma(struct rst_args *a, const struct rst_vma *v)
{
	const int32_t *mfd = (const int32_t *)a->mfd;
	uint64_t len = v->end - v->start;
	long fd = v->kind == RST_VMA_FILE ? mfd[v->mfile] : -1;

	if (v->prefilled)
		goto advice;
	if (v->kind == RST_VMA_SYSV) {
		map_sysv(a, v);
		goto advice;
	}
	if (v->kind == RST_VMA_ANON_SHARED && v->shm_lead >= 0) { /* a placeholder: map_shm_group */
		long p = sys6(__NR_mmap, (long)v->start, (long)len, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (RST_ISERR(p) || (uint64_t)p != v->start)
			fail(a, "mmap vma", RST_ISERR(p) ? p : -22, v->start, v->end);
		return;
	}
	long r = sys6(__NR_mmap, (long)v->start, (long)len, map_prot(v), v->flags | MAP_FIXED, fd,
		      v->kind == RST_VMA_FILE ? (long)v->pgoff : 0);
	if (RST_ISERR(r) || (uint64_t)r != v->start)
		fail(a, "mmap vma", RST_ISERR(r) ? r : -22, v->start, v->end);
advice:
	madv(a, v, VMA_F_HUGEPAGE, MADV_HUGEPAGE);
	madv(a, v, VMA_F_NOHUGEPAGE, MADV_NOHUGEPAGE);
}

/* One shared anonymous object in several VMAs: map it whole, move each part to its place. */
static void map_shm_group(struct rst_args *a, uint32_t lead)
{
	const struct rst_vma *v = (const struct rst_vma *)a->vmas;
	long tmp = sys6(__NR_mmap, 0, (long)v[lead].shm_size, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(a, tmp, "mmap shared anonymous object", v[lead].start, v[lead].shm_size);
	for (uint32_t j = lead; j < a->nr_vmas; j++) {
		uint64_t len = v[j].end - v[j].start;
		if (v[j].kind != RST_VMA_ANON_SHARED || v[j].shm_lead != (int32_t)lead)
			continue;
		long r = sys5(__NR_mremap, (uint64_t)tmp + v[j].pgoff, len, len,
			      MREMAP_MAYMOVE | MREMAP_FIXED, v[j].start);
		if (RST_ISERR(r) || (uint64_t)r != v[j].start)
			fail(a, "move shared anonymous vma", RST_ISERR(r) ? r : -22, v[j].start, v[j].end);
		check(a, sys3(__NR_mprotect, v[j].start, len, map_prot(&v[j])), "mprotect vma", v[j].start,
		      v[j].end);
		madv(a, &v[j], VMA_F_HUGEPAGE, MADV_HUGEPAGE);
		madv(a, &v[j], VMA_F_NOHUGEPAGE, MADV_NOHUGEPAGE);
	}
	check(a, sys2(__NR_munmap, tmp, v[lead].shm_size), "munmap shared anonymous object", (uint64_t)tmp,
	      v[lead].shm_size);
}

static void finish_vma(struct rst_args *a, const struct rst_vma *v)
{
	uint64_t len = v->end - v->start;
	if (map_prot(v) != v->prot)
		check(a, sys3(__NR_mprotect, v->start, len, v->prot), "mprotect vma", v->start, v->end);
	madv(a, v, VMA_F_DONTFORK, MADV_DONTFORK);
	madv(a, v, VMA_F_DONTDUMP, MADV_DONTDUMP);
	madv(a, v, VMA_F_MERGEABLE, MADV_MERGEABLE);
	if (a->ksm_merge_any && !(v->madv & VMA_F_MERGEABLE))
		check(a, sys3(__NR_madvise, v->start, len, MADV_UNMERGEABLE), "madvise(MADV_UNMERGEABLE)",
		      v->start, v->end);
	madv(a, v, VMA_F_WIPEONFORK, MADV_WIPEONFORK);
	madv(a, v, VMA_F_SEQ_READ, MADV_SEQUENTIAL);
	madv(a, v, VMA_F_RAND_READ, MADV_RANDOM);
	if (v->madv & VMA_F_LOCKED) {
		/* mlock of a PROT_NONE range (as mlockall(MCL_FUTURE) leaves a reservation) locks it, then
		 * fails with ENOMEM as it cannot fault its pages in: locked is what it was */
		long r = sys3(__NR_mlock2, v->start, len, (v->madv & VMA_F_LOCKONFAULT) ? MLOCK_ONFAULT : 0);
		if (!(r == -12 /* ENOMEM */ && v->prot == PROT_NONE))
			check(a, r, "mlock", v->start, v->end);
	}
}

/* ---------------- AIO rings ---------------- */

struct aio_ring_hdr { /* the kernel's struct aio_ring */
	uint32_t id, nr, head, tail, magic, compat, incompat, header_length;
};
struct rst_iocb { /* struct iocb */
	uint64_t data;
	uint32_t key, rw_flags;
	uint16_t opcode;
	int16_t prio;
	uint32_t fildes;
	uint64_t buf, nbytes;
	int64_t offset;
	uint64_t reserved2;
	uint32_t flags, resfd;
};
struct rst_io_event {
	uint64_t data, obj;
	int64_t res, res2;
};
#define RST_IOCB_CMD_POLL 5
#define RST_POLLOUT 4

/* A new context whose ring takes the place of the saved one (v holds it, filled), brought to the same head
 * and tail with requests that complete at once (a poll for POLLOUT of an eventfd): head times one submitted
 * and read back, then the events in the ring at the dump submitted and left there (so that the kernel
 * counts them as completed and not read, as before); then the saved events are copied over them and the
 * ring moved to the saved address (the context's id). */
static void aio_restore(struct rst_args *a, const struct rst_vma *v)
{
	const struct aio_ring_hdr *old = (const struct aio_ring_hdr *)v->start;
	uint64_t ctx = 0, len = v->end - v->start;
	check(a, sys2(__NR_io_setup, v->aio_nr, &ctx), "io_setup", v->start, v->aio_nr);
	struct aio_ring_hdr *nw = (struct aio_ring_hdr *)ctx;
	if (nw->nr != old->nr || old->tail >= old->nr || old->head >= old->nr)
		fail(a, "AIO ring of another size", -22, v->start, nw->nr);
	uint32_t held = (old->tail + old->nr - old->head) % old->nr;
	if (old->head || held) {
		long efd = made_or(a, RST_PRE_AIO_EFD, __NR_eventfd2, 0, O_CLOEXEC);
		check(a, efd, "eventfd (AIO ring)", v->start, 0);
		struct rst_iocb cb = {
		    .opcode = RST_IOCB_CMD_POLL, .fildes = (uint32_t)efd, .buf = RST_POLLOUT};
		struct rst_iocb *cbp = &cb;
		struct rst_io_event ev;
		int64_t ts[2] = {5, 0};
		for (uint32_t i = 0; i < old->head + held; i++) {
			long r = sys3(__NR_io_submit, ctx, 1, &cbp);
			if (r == 1 && i < old->head)
				r = sys5(__NR_io_getevents, ctx, 1, 1, &ev, ts);
			if (r != 1)
				fail(a, "move the AIO ring's head and tail", RST_ISERR(r) ? r : -5, v->start,
				     i);
		}
		for (int k = 0; k < 5000 && __atomic_load_n(&nw->tail, __ATOMIC_ACQUIRE) != old->tail; k++)
			sys2(__NR_sched_yield, 0, 0);
		if (efd != made(a, RST_PRE_AIO_EFD))
			sys1(__NR_close, efd);
	}
	if (nw->tail != old->tail)
		fail(a, "move the AIO ring's tail", -5, v->start, nw->tail);
	if (nw->head != old->head)
		fail(a, "move the AIO ring's head and tail", -5, v->start, nw->head);
	memcpy((char *)nw + sizeof(*nw), (const char *)old + sizeof(*old), (uint64_t)old->nr * 32);
	long r = sys5(__NR_mremap, ctx, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, v->start);
	if (RST_ISERR(r) || (uint64_t)r != v->start)
		fail(a, "move the AIO ring", RST_ISERR(r) ? r : -22, v->start, ctx);
}

/* The VMAs' NUMA memory policies (mbind; it splits a VMA mapped over several of the image's, as at the dump):
 * before their pages are read, so that the pages follow them; an AIO ring's (late) once its ring is in. */
static void vma_mpols(struct rst_args *a, int32_t late)
{
	const struct rst_vma_mpol *m = (const struct rst_vma_mpol *)a->vma_mpols;
	for (uint32_t i = 0; i < a->nr_vma_mpols; i++)
		if (m[i].late == late)
			check(a,
			      sys6(__NR_mbind, (long)m[i].start, (long)m[i].len, m[i].mode, (long)m[i].nodes,
				   RST_MPOL_NODES + 1, 0),
			      "mbind", m[i].start, m[i].start + m[i].len);
}

static void restore_mm(struct rst_args *a)
{
	const struct rst_vma *v = (const struct rst_vma *)a->vmas;

	specials_park(a);
	unmap_old(a);
	specials_place(a);
	if (a->ksm_merge_any) /* each VMA mapped from here on is mergeable: finish_vma takes out the others */
		check(a, sys5(__NR_prctl, 67 /* PR_SET_MEMORY_MERGE */, 1, 0, 0, 0),
		      "prctl(PR_SET_MEMORY_MERGE)", 0, 0);
	for (uint32_t i = 0; i < a->nr_vmas; i++)
		map_vma(a, &v[i]);
	for (uint32_t i = 0; i < a->nr_vmas; i++)
		if (v[i].kind == RST_VMA_ANON_SHARED && v[i].shm_lead == (int32_t)i)
			map_shm_group(a, i);
	vma_mpols(a, 0);
	a->t_ns[1] = now_ns();
	read_pages(a);
	a->t_ns[2] = now_ns();
	for (uint32_t i = 0; i < a->nr_vmas; i++)
		if (v[i].kind == RST_VMA_AIO)
			aio_restore(a, &v[i]);
	vma_mpols(a, 1);
	/* the guard regions, in the VMAs filled (no pages there) and before mlock (which they refuse) */
	const struct rst_range *g = (const struct rst_range *)a->guards;
	for (uint32_t i = 0; i < a->nr_guards; i++)
		check(a, sys3(__NR_madvise, g[i].start, g[i].len, 102 /* MADV_GUARD_INSTALL */),
		      "madvise(MADV_GUARD_INSTALL)", g[i].start, g[i].start + g[i].len);
	for (uint32_t i = 0; i < a->nr_vmas; i++)
		finish_vma(a, &v[i]);
	for (uint32_t i = 0; i < a->nr_vmas; i++) /* last: a sealed VMA takes no mprotect or madvise */
		if (v[i].madv & VMA_F_SEALED)
			check(a, sys3(__NR_mseal, v[i].start, v[i].end - v[i].start, 0), "mseal", v[i].start,
			      v[i].end);
	check(a, sys5(__NR_prctl, PR_SET_MM, PR_SET_MM_MAP, &a->mm, sizeof(a->mm), 0), "prctl(PR_SET_MM_MAP)",
	      a->mm.start_code, a->mm.brk);
	/* pages fd, mapped files, exe, error pipe: none of them belongs to the restored task */
	check(
	    a,
	    sys3(__NR_close_range, a->helper_fd_lo, a->helper_fd_hi > 0 ? (uint32_t)a->helper_fd_hi : ~0u, 0),
	    "close helper fds", (uint64_t)a->helper_fd_lo, (uint64_t)a->helper_fd_hi);
}

/* ---------------- restore --lazy-pages (engine/mem/lazy.md) ---------------- */

/* The userfaultfd, made while the blob still has crshim's privileges (UFFD_FEATURE_EVENT_FORK needs
 * CAP_SYS_PTRACE; without UFFD_USER_MODE_ONLY, faults of the kernel's own accesses are caught too). */
static void lazy_make(struct rst_args *a)
{
	a->lazy_uffd = -1;
	if (!a->lazy)
		return;
	long fd = made_or(a, RST_PRE_LAZY_UFFD, __NR_userfaultfd, 0, O_CLOEXEC | O_NONBLOCK);
	check(a, fd, "userfaultfd (lazy pages)", 0, 0);
	struct uffdio_api api = {UFFD_API,
				 UFFD_FEATURE_EVENT_FORK | UFFD_FEATURE_EVENT_REMAP |
				     UFFD_FEATURE_EVENT_REMOVE | UFFD_FEATURE_EVENT_UNMAP,
				 0};
	check(a, sys3(__NR_ioctl, fd, UFFDIO_API, &api), "userfaultfd API (lazy pages)", 0, 0);
	a->lazy_uffd = (int32_t)fd;
}

/* Registered last: from here on a touch of a lazy page waits for lazy-pages, which gets the userfaultfd
 * from crshim (pidfd_getfd) once the blob has trapped. */
static void lazy_register(struct rst_args *a)
{
	const struct rst_vma *v = (const struct rst_vma *)a->vmas;
	if (a->lazy_uffd < 0)
		return;
	for (uint32_t i = 0; i < a->nr_vmas; i++) {
		if (!v[i].lazy)
			continue;
		struct uffdio_register reg = {
		    {v[i].start, v[i].end - v[i].start}, UFFDIO_REGISTER_MODE_MISSING, 0};
		check(a, sys3(__NR_ioctl, a->lazy_uffd, UFFDIO_REGISTER, &reg),
		      "userfaultfd register (lazy pages)", v[i].start, v[i].end);
	}
}

/* ---------------- signals, timers, task ---------------- */

struct k_stack {
	uint64_t sp;
	int32_t flags, pad;
	uint64_t size;
};

static void restore_signals(struct rst_args *a)
{
	for (int sig = 1; sig <= RST_NSIG; sig++) {
		if (sig == RST_SIGKILL || sig == RST_SIGSTOP)
			continue;
		check(a, sys4(__NR_rt_sigaction, sig, &a->sigact[sig - 1], 0, 8), "rt_sigaction",
		      (uint64_t)sig, 0);
	}
	if (a->has_sas) {
		struct k_stack ss = {a->sas_sp, a->sas_flags & ~RST_SS_ONSTACK, 0, a->sas_size};
		if (ss.flags & RST_SS_DISABLE)
			ss = (struct k_stack){0, RST_SS_DISABLE, 0, 0};
		check(a, sys2(__NR_sigaltstack, &ss, 0), "sigaltstack", a->sas_sp, a->sas_size);
	}
}

struct k_sigevent {
	uint64_t value;
	int32_t signo, notify;
	int32_t tid;
	int32_t pad[11];
};

#define NSEC 1000000000LL
#define MSEC 1000000LL

static int64_t clock_ns(struct rst_args *a, const struct rst_timer *t)
{
	int64_t now[2] = {0, 0};
	check(a, sys2(__NR_clock_gettime, t->clock_id, now), "clock_gettime (timer)", (uint64_t)t->id,
	      (uint64_t)t->clock_id);
	return now[0] * NSEC + now[1];
}

static void timer_arm_abs(struct rst_args *a, const struct rst_timer *t, int64_t at, const char *step)
{
	int64_t its[4] = {t->isec, t->insec, at / NSEC, at % NSEC};
	check(a, sys4(__NR_timer_settime, t->id, 1 /* TIMER_ABSTIME */, its, 0), step, (uint64_t)t->id, 0);
}

/* A timer whose own signal was pending (engine/task/restore-sig.c timer_of): armed to expire at once so that
 * the kernel queues that signal again (blocked here) as its own; a periodic one on the grid of its next
 * expiry (the one the dump read, at, when it has it: the expiries since count too, as in timer_arm_rel;
 * else its value from now, at most one interval), as many intervals before the last as it had counted
 * missed at the dump (pend_overrun), from which the kernel moves it on when the signal is taken, counting
 * the expiries missed (si_overrun): those too. Then wait until it fired: a one-shot one is disarmed, a
 * periodic one's value is no longer the 1 ns of a due timer. A CPU-time one fires in timer_settime; one of
 * the other clocks at the next timer interrupt, which also ends a sleep begun after it was armed: check,
 * sleep 20 us (a few times at most when the interrupt came on another CPU), check again; 2 s at most. A
 * timer armed again after it fired (its signal is stale: Linux 6.13+ drops it) is armed again by the
 * caller, which makes it stale here too. */
static void timer_fire_now(struct rst_args *a, const struct rst_timer *t)
{
	int64_t cur[4] = {0, 0, 0, 0}, iv = t->isec * NSEC + t->insec, v = t->vsec * NSEC + t->vnsec;
	int64_t next = t->at ? t->at : clock_ns(a, t) + v; /* (the expiry the dump read: those since count) */
	int64_t at =
	    iv && v < iv ? next - iv - (t->pend_overrun > 0 ? t->pend_overrun : 0) * iv : clock_ns(a, t);
	timer_arm_abs(a, t, at < 1 ? 1 : at, "timer_settime (pending)");
	for (int n = 0;; n++) {
		check(a, sys2(__NR_timer_gettime, t->id, cur), "timer_gettime (pending)", (uint64_t)t->id, 0);
		if (iv ? cur[2] || cur[3] != 1 : !cur[2] && !cur[3])
			return;
		if (n == 100000)
			fail(a, "timer signal (not queued)", -62 /* ETIME */, (uint64_t)t->id, 0);
		int64_t nap[2] = {0, 20000};
		sys4(__NR_clock_nanosleep, 1 /* CLOCK_MONOTONIC */, 0, nap, 0);
	}
}

/* The thread that takes a timer's signal: the one it names (SIGEV_THREAD_ID), else the first. */
static int32_t timer_taker(const struct rst_args *a, const struct rst_timer *t)
{
	return (t->notify & 4 /* SIGEV_THREAD_ID */) ? t->notify_tid : a->pid;
}

/* Whether a stale signal of t's number made before the timers (gone 2, restore_timers) is where taking
 * t's signal would take it first (dropped): in the queue of the thread that takes t's, or the process's
 * when t's goes there too. */
static int stale_before(const struct rst_args *a, const struct rst_timer *t)
{
	const struct rst_timer *all = (const struct rst_timer *)a->timers;
	for (uint32_t i = 0; i < a->nr_timers; i++)
		if (all[i].gone == 2 && all[i].signo == t->signo &&
		    ((all[i].notify & 4) ? all[i].notify_tid == timer_taker(a, t) : !(t->notify & 4)))
			return 1;
	return 0;
}

/* Whether timer_overrun gives t its overrun count back: a periodic timer without its signal pending (that
 * signal's taking would count anew), nor a stale one in the way; thread tid takes its signal (tid 0: any
 * thread). Not a CLOCK_REALTIME one armed relative (rel): the dance arms it with TIMER_ABSTIME, on the
 * kernel's CLOCK_REALTIME base, where it would stay, following clock_settime; it is armed relative and its
 * count reads 0 (timer_arm, warn_overrun). */
static int overrun_here(const struct rst_args *a, const struct rst_timer *t, int32_t tid)
{
	int64_t iv = t->isec * NSEC + t->insec, v = t->vsec * NSEC + t->vnsec;
	return !t->gone && !t->rel && t->overrun > 0 && !t->pending && iv && v && v <= iv &&
	       t->notify != 1 /* SIGEV_NONE */ && (!tid || timer_taker(a, t) == tid) && !stale_before(a, t);
}

/* Signals of a timer's number a dance took before the timer's own (sent from outside during the restore;
 * the fault point timer-signals-early queues the image's early): queued back in order once this thread's
 * dances are done, to the thread for a tkill() one or one a SIGEV_THREAD_ID timer's dance took (taken
 * from this thread's own queue, which comes first), else to the process. */
#define RST_KEPT_SIGS 8
struct kept_sigs {
	uint32_t n;
	int32_t own[RST_KEPT_SIGS];
	uint8_t si[RST_KEPT_SIGS][RST_SIGINFO_SIZE];
};

static void kept_queue(struct rst_args *a, int32_t tid, const struct kept_sigs *k)
{
	for (uint32_t i = 0; i < k->n; i++) {
		int32_t sig = *(const int32_t *)k->si[i];
		if (k->own[i])
			check(a, sys4(__NR_rt_tgsigqueueinfo, a->pid, tid, sig, k->si[i]),
			      "queue a signal taken during the restore", (uint64_t)tid, (uint64_t)sig);
		else
			check(a, sys3(__NR_rt_sigqueueinfo, a->pid, sig, k->si[i]),
			      "queue a signal taken during the restore", (uint64_t)tid, (uint64_t)sig);
	}
}

/* Takes signals of t's number (blocked) until t's own: its si_overrun. One of another timer of ours (one
 * danced before, expired since: taking it counted anew) has that timer danced again (redo); any other is
 * kept, crshim's copy of a timer's signal too (timer_sig_queue). */
static int32_t take_timer_sig(struct rst_args *a, const struct rst_timer *t, struct kept_sigs *k)
{
	struct rst_timer *all = (struct rst_timer *)a->timers;
	uint64_t set = 1ull << (t->signo - 1);
	for (int n = 0; n < 64; n++) {
		uint8_t si[RST_SIGINFO_SIZE];
		int64_t ts[2] = {1, 0};
		check(a, sys4(__NR_rt_sigtimedwait, &set, si, ts, 8), "rt_sigtimedwait (timer)",
		      (uint64_t)t->id, (uint64_t)t->signo);
		int32_t code = 0, id = -1, ov = 0;
		uint32_t i = 0;
		uint64_t copy = 0;
		memcpy(&code, si + 8, sizeof(code));
		memcpy(&id, si + 16, sizeof(id)); /* si_timerid */
		memcpy(&ov, si + 20, sizeof(ov)); /* si_overrun */
		memcpy(&copy, si + RST_SI_COPY_AT, sizeof(copy));
		if (copy == RST_SI_COPY_MAGIC) /* (crshim's copy of a timer's signal: a plain one, kept) */
			code = 0;
		if (code == -2 /* SI_TIMER */ && id == t->id)
			return ov;
		while (code == -2 && i < a->nr_timers && all[i].id != id)
			i++;
		if (code == -2 && i < a->nr_timers) {
			all[i].redo = overrun_here(a, &all[i], 0);
			continue;
		}
		if (k->n == RST_KEPT_SIGS)
			break;
		k->own[k->n] = code == -6 /* SI_TKILL */ || (t->notify & 4 /* SIGEV_THREAD_ID */);
		memcpy(k->si[k->n++], si, RST_SIGINFO_SIZE);
	}
	fail(a, "rt_sigtimedwait (too many other signals of the timer's number)", -105 /* ENOBUFS */,
	     (uint64_t)t->id, (uint64_t)t->signo);
}

/* A periodic timer whose last signal taken counted N expiries missed (timer_getoverrun() N: the kernel sets
 * it only when a signal is taken, timer_settime() clears it). Armed N+1 intervals before its next expiry (its
 * value from now), it expires at once; its signal (blocked), taken here, moves it on to that next expiry
 * counting N missed. Taken after that next expiry, the count is one more: armed again, the next expiry 1, 2
 * then 4 ms later at most. Not possible (the clock is younger than N+1 intervals, a CPU-time one mostly):
 * armed as usual, overrun 0, and crshim says so (warn_overrun). */
static void timer_overrun(struct rst_args *a, const struct rst_timer *t, struct kept_sigs *kept)
{
	int64_t iv = t->isec * NSEC + t->insec, v = t->vsec * NSEC + t->vnsec;
	for (int k = 0; k < 4; k++) {
		int64_t vk = k && v < (MSEC << (k - 1)) ? MSEC << (k - 1) : v, from;
		from = clock_ns(a, t) + (vk > iv ? iv : vk);
		if (from / iv <= (int64_t)t->overrun)
			break;
		timer_arm_abs(a, t, from - ((int64_t)t->overrun + 1) * iv, "timer_settime (overrun)");
		if (take_timer_sig(a, t, kept) == t->overrun)
			return;
	}
	a->warn_overrun = t->id + 1;
	int64_t its[4] = {t->isec, t->insec, t->vsec, t->vnsec};
	check(a, sys4(__NR_timer_settime, t->id, 0, its, 0), "timer_settime", (uint64_t)t->id, 0);
}

/* The overrun dances (timer_overrun) of the timers whose signal thread tid takes, while no timer's signal
 * is pending (taking it would drop a stale one of its number) and no other timer is armed but those danced
 * before, one thread at a time (engine/restorer/restorer-args.h timer_turn): a timer's signal in a thread's
 * own queue can only be taken by that thread. A timer danced before whose signal a dance took is danced
 * again (a process's timer here, whichever thread's turn it is). */
static void timer_dances(struct rst_args *a, int32_t tid)
{
	struct rst_timer *t = (struct rst_timer *)a->timers;
	struct kept_sigs kept;
	int left = 1;
	kept.n = 0;
	for (uint32_t i = 0; i < a->nr_timers; i++)
		t[i].redo = overrun_here(a, &t[i], tid);
	for (int round = 0; left && round < 8; round++) {
		left = 0;
		for (uint32_t i = 0; i < a->nr_timers; i++)
			if (t[i].redo) {
				t[i].redo = 0;
				timer_overrun(a, &t[i], &kept);
			}
		for (uint32_t i = 0; i < a->nr_timers; i++)
			left |= t[i].redo;
	}
	for (uint32_t i = 0; i < a->nr_timers; i++)
		if (t[i].redo) /* armed, its count that of the last signal taken here */
			a->warn_overrun = t[i].id + 1, t[i].redo = 0;
	kept_queue(a, tid, &kept);
}

/* Thread th's turn in the dances (timer_dances): 1 + the threads before it with a timer to dance; 0: none
 * of its own. th NULL: the turn after the last. */
static int32_t dance_turn(const struct rst_args *a, const struct rst_thread *th)
{
	const struct rst_thread *all = (const struct rst_thread *)a->threads;
	const struct rst_timer *t = (const struct rst_timer *)a->timers;
	int32_t turn = 1;
	for (uint32_t j = 0; j < a->nr_threads; j++) {
		int has = 0;
		for (uint32_t i = 0; i < a->nr_timers && !has; i++)
			has = overrun_here(a, &t[i], all[j].tid);
		if (&all[j] == th)
			return has ? turn : 0;
		turn += has;
	}
	return turn;
}

/* Waits for turn (of a->timer_turn), or passes the turn on to turn + 1. */
static void dance_wait(struct rst_args *a, int32_t turn)
{
	for (int32_t v; (v = __atomic_load_n(&a->timer_turn, __ATOMIC_SEQ_CST)) < turn;)
		sys6(__NR_futex, (long)&a->timer_turn, FUTEX_WAIT, v, 0, 0, 0);
}

static void dance_pass(struct rst_args *a, int32_t turn)
{
	__atomic_store_n(&a->timer_turn, turn + 1, __ATOMIC_SEQ_CST);
	sys6(__NR_futex, (long)&a->timer_turn, FUTEX_WAKE, 0x7fffffff, 0, 0, 0);
}

/* The signal of t, as its own would read (si_code SI_TIMER, its id, value and overrun ov), queued by the
 * task to thread tid's own queue (0: the process's). A plain siginfo: its taking does not move the timer
 * on, nor set its overrun count, and the timer's next expiry queues another (its own, beside this one).
 * Marked as crshim's copy (RST_SI_COPY_MAGIC), which the program does not see: a later dump takes it for
 * what it is, not for the timer's own. */
static void timer_sig_queue(struct rst_args *a, const struct rst_timer *t, int32_t tid, int64_t ov)
{
	uint8_t si[RST_SIGINFO_SIZE];
	int32_t head[3] = {t->signo, 0, -2 /* SI_TIMER */}, id = t->id;
	int32_t ovr = ov > 0x7fffffff ? 0x7fffffff : (int32_t)ov;
	uint64_t copy = RST_SI_COPY_MAGIC;
	memset(si, 0, sizeof(si));
	memcpy(si, head, sizeof(head));
	memcpy(si + 16, &id, 4), memcpy(si + 20, &ovr, 4), memcpy(si + 24, &t->sival, 8);
	memcpy(si + RST_SI_COPY_AT, &copy, sizeof(copy));
	if (tid)
		check(a, sys4(__NR_rt_tgsigqueueinfo, a->pid, tid, t->signo, si), "queue timer signal",
		      (uint64_t)t->id, (uint64_t)tid);
	else
		check(a, sys3(__NR_rt_sigqueueinfo, a->pid, t->signo, si), "queue timer signal",
		      (uint64_t)t->id, 0);
}

/* A CLOCK_REALTIME timer armed relative (rel), armed so again (TIMER_ABSTIME would put it on the kernel's
 * CLOCK_REALTIME base, where clock_settime moves its expiry), to expire at the expiry the dump read (at),
 * and a periodic one on its grid (at plus intervals). Relative, it cannot be armed in the past (as the
 * kernel has a periodic one that expired while nothing took its signal: its signal counts the expiries
 * missed). An expiry passed meanwhile (k of them): a one-shot one expires at once (1 ns); a periodic one is
 * armed at the next on its grid and a signal counting the k (si_overrun k - 1) is queued now as the
 * kernel's would be (timer_sig_queue; no signal for SIGEV_NONE). pend (>= 0): its own signal was pending at
 * the dump, counting pend expiries missed (queued at its place in thread tid's queue, 0: the process's):
 * queued so, counting the k too. */
static void timer_arm_rel(struct rst_args *a, const struct rst_timer *t, int64_t pend, int32_t tid)
{
	int64_t iv = t->isec * NSEC + t->insec, left = t->at - clock_ns(a, t), k = 0;
	if (left < 1 && iv) {
		k = -left / iv + 1;
		left += k * iv;
	}
	left = left < 1 ? 1 : left;
	int64_t its[4] = {t->isec, t->insec, left / NSEC, left % NSEC};
	check(a, sys4(__NR_timer_settime, t->id, 0, its, 0), "timer_settime (relative)", (uint64_t)t->id, 0);
	if (pend >= 0 && pend + k > 0) /* (taken, it leaves timer_getoverrun 0) */
		a->warn_overrun = t->id + 1;
	if (pend >= 0)
		timer_sig_queue(a, t, tid, pend + k);
	else if (k && t->notify != 1 /* SIGEV_NONE */)
		timer_sig_queue(a, t, (t->notify & 4) ? t->notify_tid : 0, k - 1);
}

/* t armed: at the expiry the dump read when it has it (an expiry passed meanwhile: at once, a periodic one
 * counting the expiries missed), relative for a rel one (timer_arm_rel), else with the time left. */
static void timer_arm_value(struct rst_args *a, const struct rst_timer *t)
{
	int64_t its[4] = {t->isec, t->insec, t->vsec, t->vnsec};
	if (t->at && t->rel)
		timer_arm_rel(a, t, -1, 0);
	else if (t->at)
		timer_arm_abs(a, t, t->at, "timer_settime (expiry)");
	else
		check(a, sys4(__NR_timer_settime, t->id, 0, its, 0), "timer_settime", (uint64_t)t->id, 0);
}

/* A timer not danced (timer_dances): armed (timer_arm_value); one whose own signal was pending is armed
 * when it queued it again (timer_requeue, in the walk of its queue). */
static void timer_arm(struct rst_args *a, const struct rst_timer *t)
{
	if (t->overrun > 0)
		a->warn_overrun = t->id + 1;
	if (!t->pending)
		timer_arm_value(a, t);
}

/* A timer whose own signal was pending (in thread tid's queue, 0: the process's): it queues it again
 * (timer_fire_now). That signal is stale when its timer was armed again since: a one-shot one not
 * disarmed, or a periodic one further away than an interval (taking its signal moves it to one interval
 * ahead at most), or one the dump found stale (pend_overrun -1): armed again after it fired, as it was
 * (timer_arm_value), it is stale here too. A periodic rel one not stale would stay on the CLOCK_REALTIME
 * base once fired so: armed relative, its signal queued by the task (timer_arm_rel). */
static void timer_requeue(struct rst_args *a, const struct rst_timer *t, int32_t tid)
{
	int64_t iv = t->isec * NSEC + t->insec;
	int stale =
	    (!iv && (t->vsec || t->vnsec)) || (iv && t->vsec * NSEC + t->vnsec > iv) || t->pend_overrun < 0;
	if (iv && t->rel && t->at && !stale) {
		timer_arm_rel(a, t, t->pend_overrun > 0 ? t->pend_overrun : 0, tid);
		return;
	}
	timer_fire_now(a, t);
	if (stale)
		timer_arm_value(a, t);
}

#define WALK_ORDINARY 1
#define WALK_TIMERS 2

/* The pending signals of one queue (n siginfos at si: thread tid's own, 0: the process's), in their order:
 * an ordinary one queued again, a timer's own (an RST_SI_TIMER mark, engine/task/restore-sig.c
 * copy_siginfos) by its timer (timer_requeue), but a deleted timer's (restore_timers did it: such a signal
 * is dropped when taken, wherever it is); what: WALK_ORDINARY, WALK_TIMERS or both (the fault point
 * timer-signals-early queues the ordinary ones before the timers are made). A SIGTRAP of the first thread
 * is queued by the parent after the final trap (engine/restore.c requeue_sigtrap). */
static void queue_walk(struct rst_args *a, uint64_t at, uint32_t n, int32_t tid, int what)
{
	const struct rst_timer *t = (const struct rst_timer *)a->timers;
	const uint8_t *si = (const uint8_t *)at;
	for (uint32_t i = 0; i < n; i++, si += RST_SIGINFO_SIZE) {
		int32_t sig = *(const int32_t *)si, k = *(const int32_t *)(si + 4);
		if (sig == RST_SI_TIMER) {
			if ((what & WALK_TIMERS) && k >= 0 && (uint32_t)k < a->nr_timers && !t[k].gone)
				timer_requeue(a, &t[k], tid);
		} else if (!(what & WALK_ORDINARY) || (sig == RST_SIGTRAP && tid == a->pid)) {
			continue;
		} else if (tid) {
			check(a, sys4(__NR_rt_tgsigqueueinfo, a->pid, tid, sig, si), "queue pending signal",
			      (uint64_t)tid, (uint64_t)sig);
		} else if (sig != RST_SIGTRAP) {
			check(a, sys3(__NR_rt_sigqueueinfo, a->pid, sig, si), "queue shared pending signal",
			      (uint64_t)sig, 0);
		}
	}
}

/* Whether n siginfos at si hold the mark of a live timer's own signal. */
static int queue_has_timer(const struct rst_args *a, uint64_t at, uint32_t n)
{
	const struct rst_timer *t = (const struct rst_timer *)a->timers;
	const uint8_t *si = (const uint8_t *)at;
	for (uint32_t i = 0; i < n; i++, si += RST_SIGINFO_SIZE) {
		int32_t k = *(const int32_t *)(si + 4);
		if (*(const int32_t *)si == RST_SI_TIMER && k >= 0 && (uint32_t)k < a->nr_timers &&
		    !t[k].gone)
			return 1;
	}
	return 0;
}

/* The stale signal of a timer deleted since it queued it (engine/task/restore-sig.c timer_of): a timer of
 * that id queues it and is deleted; taken, the kernel drops it. Without PR_TIMER_CREATE_RESTORE_IDS, left
 * out. */
static void timer_gone(struct rst_args *a, const struct rst_timer *t, long ids_on)
{
	struct k_sigevent sev = {t->sival, t->signo, t->notify, t->notify_tid, {0}};
	int32_t id = t->id;
	if (RST_ISERR(ids_on))
		return;
	check(a, sys3(__NR_timer_create, t->clock_id, &sev, &id), "timer_create (deleted timer)",
	      (uint64_t)t->id, 0);
	if (id != t->id)
		fail(a, "timer_create (deleted timer: id differs)", -17, (uint64_t)t->id, (uint64_t)id);
	timer_fire_now(a, t);
	check(a, sys1(__NR_timer_delete, id), "timer_delete (deleted timer)", (uint64_t)id, 0);
}

static void restore_timers(struct rst_args *a)
{
	const struct rst_timer *t = (const struct rst_timer *)a->timers;
	for (int w = 0; w < 3; w++) {
		const struct rst_itimer *it = &a->itimer[w];
		if (it->isec || it->iusec || it->vsec || it->vusec)
			check(a, sys3(__NR_setitimer, w, it, 0), "setitimer", (uint64_t)w, 0);
	}
	if (!a->nr_timers)
		return;
	long on = a->fault == FI_NO_TIMER_RESTORE_IDS
		      ? -22
		      : sys5(__NR_prctl, PR_TIMER_CREATE_RESTORE_IDS, 1, 0, 0, 0);
	if (RST_ISERR(on))
		a->warn_timer_ids = 1;
	/* the stale signals of deleted timers whose id a timer of the image took since: first */
	for (uint32_t i = 0; i < a->nr_timers; i++)
		if (t[i].gone == 2)
			timer_gone(a, &t[i], on);
	/* /proc/PID/timers lists the newest first: create in reverse to get the same order back (with
	 * PR_TIMER_CREATE_RESTORE_IDS the ids do not depend on the order; without it the kernel hands out
	 * ids in increasing order: the oldest first, and ids below the wanted one are taken and freed) */
	for (uint32_t j = a->nr_timers; j-- > 0;) {
		uint32_t i = j;
		if (t[i].gone)
			continue;
		struct k_sigevent sev = {t[i].sival, t[i].signo, t[i].notify, t[i].notify_tid, {0}};
		int32_t id = t[i].id;
		check(a, sys3(__NR_timer_create, t[i].clock_id, &sev, &id), "timer_create", (uint64_t)t[i].id,
		      0);
		for (int n = 0; RST_ISERR(on) && id < t[i].id && n < 65536; n++) {
			sys1(__NR_timer_delete, id);
			check(a, sys3(__NR_timer_create, t[i].clock_id, &sev, &id), "timer_create",
			      (uint64_t)t[i].id, 0);
		}
		if (id != t[i].id)
			fail(a, "timer_create (id differs)", -17, (uint64_t)t[i].id, (uint64_t)id);
	}
	/* those that take their own signal first, the first thread's then the other threads' (thread_main) */
	timer_dances(a, a->pid);
	dance_pass(a, 0);
	dance_wait(a, dance_turn(a, 0));
	for (uint32_t i = 0; i < a->nr_timers; i++)
		if (!t[i].gone && !overrun_here(a, &t[i], 0))
			timer_arm(a, &t[i]);
	for (uint32_t i = 0; i < a->nr_timers; i++)
		if (t[i].gone == 1)
			timer_gone(a, &t[i], on);
	if (!RST_ISERR(on))
		sys5(__NR_prctl, PR_TIMER_CREATE_RESTORE_IDS, 0, 0, 0, 0);
}

static void restore_rlimits(struct rst_args *a)
{
	for (int r = 0; r < RST_NR_RLIMITS; r++) {
		struct rst_rlimit cur, want = a->rlimit[r];
		if (!a->has_rlimit[r])
			continue;
		check(a, sys4(__NR_prlimit64, 0, r, 0, &cur), "prlimit64 get", (uint64_t)r, 0);
		if (want.max >
		    cur.max) { /* raising a hard limit needs CAP_SYS_RESOURCE: keep the current one */
			want.max = cur.max;
			a->warn_rlimit |= 1ull << r;
		}
		if (want.cur > want.max)
			want.cur = want.max;
		long ret = sys4(__NR_prlimit64, 0, r, &want, 0);
		if (ret == -1 /* EPERM */)
			a->warn_rlimit |= 1ull << r;
		else
			check(a, ret, "prlimit64 set", (uint64_t)r, want.max);
	}
}

static void restore_task(struct rst_args *a)
{
	check(a, sys2(__NR_set_tid_address, a->tid_address, 0), "set_tid_address", a->tid_address, 0);
	if (a->has_robust)
		check(a, sys2(__NR_set_robust_list, a->robust_list, a->robust_len), "set_robust_list",
		      a->robust_list, a->robust_len);
	if (a->has_rseq)
		check(a, sys4(__NR_rseq, a->rseq_ptr, a->rseq_len, 0, a->rseq_sig), "rseq register",
		      a->rseq_ptr, a->rseq_len);
	restore_signals(a);
	/* fault point timer-signals-early: the process's pending signals (a signal sent from outside) are
	 * there before the timers take their own (timer_dances keeps and queues them back) */
	if (a->fault == FI_TIMER_SIGNALS_EARLY)
		queue_walk(a, a->pending_shared, a->nr_pending_shared, 0, WALK_ORDINARY);
	restore_timers(a);
	restore_rlimits(a);
	queue_walk(a, a->pending, a->nr_pending, a->pid, WALK_ORDINARY | WALK_TIMERS);
	queue_walk(a, a->pending_shared, a->nr_pending_shared, 0,
		   a->fault == FI_TIMER_SIGNALS_EARLY ? WALK_TIMERS : WALK_ORDINARY | WALK_TIMERS);
}

/* ---------------- creds (last) ---------------- */

static void capset(struct rst_args *a, uint64_t eff, uint64_t prm, uint64_t inh, const char *step)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {
	    {(uint32_t)eff, (uint32_t)prm, (uint32_t)inh},
	    {(uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32)},
	};
	check(a, sys2(__NR_capset, &h, d), step, eff, prm);
}

static uint64_t cur_permitted(struct rst_args *a)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	check(a, sys2(__NR_capget, &h, d), "capget", 0, 0);
	return d[0].permitted | ((uint64_t)d[1].permitted << 32);
}

/* All but the last capset (what the thread keeps of its capabilities: see thread_main). */
static void restore_creds_ids(struct rst_args *a, const struct rst_creds *c)
{
	if (c->nr_groups != RST_GROUPS_KEEP)
		check(a, sys2(__NR_setgroups, c->nr_groups, c->groups), "setgroups", c->nr_groups, 0);
	check(a, sys3(__NR_setresgid, c->gid, c->egid, c->sgid), "setresgid", c->gid, c->egid);
	check(a, sys5(__NR_prctl, PR_SET_KEEPCAPS, 1, 0, 0, 0), "prctl(PR_SET_KEEPCAPS)", 0, 0);
	check(a, sys3(__NR_setresuid, c->uid, c->euid, c->suid), "setresuid", c->uid, c->euid);
	/* Effective = permitted again (lost with a non-zero euid), for CAP_SETPCAP below and for the
	 * fs ids (CAP_SETGID, CAP_SETUID when they differ from the effective ones). */
	uint64_t prm = cur_permitted(a);
	capset(a, prm, prm, c->cap_inh, "capset (inheritable)");
	sys1(__NR_setfsgid, c->fsgid);
	sys1(__NR_setfsuid, c->fsuid);
	for (int cap = 0; cap < 64; cap++)
		if (c->cap_amb & (1ull << cap))
			check(a, sys5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0),
			      "ambient raise", (uint64_t)cap, 0);
	/* PR_SET_SECUREBITS needs CAP_SETPCAP; keep-caps alone (set above) is PR_SET_KEEPCAPS, which does not
	 */
	long sb = sys5(__NR_prctl, PR_GET_SECUREBITS, 0, 0, 0, 0);
	const long kc = 1L << SECURE_KEEP_CAPS;
	if ((sb & ~kc) != ((long)c->securebits & ~kc))
		check(a, sys5(__NR_prctl, PR_SET_SECUREBITS, c->securebits, 0, 0, 0), "securebits",
		      c->securebits, 0);
	else if ((sb & kc) != ((long)c->securebits & kc))
		check(a, sys5(__NR_prctl, PR_SET_KEEPCAPS, !!(c->securebits & kc), 0, 0, 0),
		      "prctl(PR_SET_KEEPCAPS)", c->securebits, 0);
}

static void restore_creds(struct rst_args *a, const struct rst_creds *c)
{
	restore_creds_ids(a, c);
	capset(a, c->cap_eff, c->cap_prm, c->cap_inh, "capset");
}

/* ---------------- seccomp filters of a thread's own ---------------- */

struct k_sock_fprog {
	uint16_t len, pad[3];
	uint64_t filter;
};

/* The filters past those the whole process shares (installed before the blob): each thread's own, while
 * crshim traces it with PTRACE_O_SUSPEND_SECCOMP (a thread: once seized). Without no_new_privs that needs
 * CAP_SYS_ADMIN: a thread installs them before it drops the capabilities its creds do not have (EACCES for
 * a thread of another uid, else). */
static void install_seccomp(struct rst_args *a, uint64_t filters, uint32_t n, int32_t tid)
{
	const struct rst_seccomp *f = (const struct rst_seccomp *)filters;
	for (uint32_t i = 0; i < n; i++) {
		struct k_sock_fprog prog = {(uint16_t)f[i].len, {0}, f[i].insns};
		check(a,
		      sys3(__NR_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, f[i].flags & 2 /* _FLAG_LOG */,
			   &prog),
		      "seccomp(SECCOMP_SET_MODE_FILTER)", (uint64_t)tid, i);
	}
}

/* ---------------- threads other than the leader ---------------- */

static void futex_wait_while(volatile int32_t *p, int32_t v)
{
	while (__atomic_load_n(p, __ATOMIC_SEQ_CST) == v)
		sys6(__NR_futex, (long)p, FUTEX_WAIT, v, 0, 0, 0);
}

/* Settings reset by a credentials change (per thread: no_new_privs, the parent death signal). */
static void after_creds_thread(struct rst_args *a, const struct rst_thread *th)
{
	if (th->no_new_privs)
		check(a, sys5(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)", 0,
		      0);
	if (th->pdeathsig)
		check(a, sys5(__NR_prctl, PR_SET_PDEATHSIG, th->pdeathsig, 0, 0, 0),
		      "thread prctl(PR_SET_PDEATHSIG)", (uint64_t)th->tid, (uint64_t)th->pdeathsig);
}

/* Per thread: its NUMA memory policy (last: what the blob allocates does not follow it). */
static void mpol(struct rst_args *a, int32_t tid, const struct rst_mpol *m)
{
	if (m->has)
		check(a, sys3(__NR_set_mempolicy, m->mode, m->nodes, RST_MPOL_NODES + 1), "set_mempolicy",
		      (uint64_t)tid, (uint64_t)m->mode);
}

/* Per thread: PR_SET_TSC (its rdtsc faulting or not) and PR_MCE_KILL (machine check kill policy). */
static void tsc_mce(struct rst_args *a, int32_t tid, int32_t tsc, int32_t has_mce, int32_t mce)
{
	if (tsc)
		check(a, sys5(__NR_prctl, PR_SET_TSC, tsc, 0, 0, 0), "prctl(PR_SET_TSC)", (uint64_t)tid,
		      (uint64_t)tsc);
	if (has_mce)
		check(a, sys5(__NR_prctl, PR_MCE_KILL, PR_MCE_KILL_SET, mce, 0, 0), "prctl(PR_MCE_KILL)",
		      (uint64_t)tid, (uint64_t)mce);
}

/* A new thread: its own state, its creds, then wait until crshim has seized every thread; the caller
 * (rst_clone3_thread) stops with a trap afterwards, where crshim sets the registers. */
static void thread_main(void *arg)
{
	struct rst_thread *th = arg;
	struct rst_args *a = (struct rst_args *)th->args;
	check(a, sys2(__NR_set_tid_address, th->tid_address, 0), "thread set_tid_address", (uint64_t)th->tid,
	      0);
	if (th->has_robust)
		check(a, sys2(__NR_set_robust_list, th->robust_list, th->robust_len),
		      "thread set_robust_list", (uint64_t)th->tid, th->robust_list);
	if (th->has_rseq)
		check(a, sys4(__NR_rseq, th->rseq_ptr, th->rseq_len, 0, th->rseq_sig), "thread rseq register",
		      (uint64_t)th->tid, th->rseq_ptr);
	if (th->has_sas) {
		struct k_stack ss = {th->sas_sp, th->sas_flags & ~RST_SS_ONSTACK, 0, th->sas_size};
		if (ss.flags & RST_SS_DISABLE)
			ss = (struct k_stack){0, RST_SS_DISABLE, 0, 0};
		check(a, sys2(__NR_sigaltstack, &ss, 0), "thread sigaltstack", (uint64_t)th->tid, th->sas_sp);
	}
	check(a, sys5(__NR_prctl, PR_SET_NAME, th->comm, 0, 0, 0), "thread prctl(PR_SET_NAME)",
	      (uint64_t)th->tid, 0);
	if (th->timerslack)
		check(a, sys5(__NR_prctl, PR_SET_TIMERSLACK, th->timerslack, 0, 0, 0),
		      "thread prctl(PR_SET_TIMERSLACK)", (uint64_t)th->tid, th->timerslack);
	tsc_mce(a, th->tid, th->tsc, th->has_mce, th->mce_kill);
	/* its pending signals after its timers took their own (timer_dances), the ordinary ones before, at
	 * the fault point timer-signals-early; a timer's own once the timers are made (the first thread's
	 * dances, turn 0, done) */
	int32_t turn = dance_turn(a, th);
	int early = a->fault == FI_TIMER_SIGNALS_EARLY;
	if (early)
		queue_walk(a, th->pending, th->nr_pending, th->tid, WALK_ORDINARY);
	if (turn) {
		dance_wait(a, turn);
		timer_dances(a, th->tid);
		dance_pass(a, turn);
	} else if (queue_has_timer(a, th->pending, th->nr_pending)) {
		dance_wait(a, 1);
	}
	queue_walk(a, th->pending, th->nr_pending, th->tid,
		   early ? WALK_TIMERS : WALK_ORDINARY | WALK_TIMERS);
	if (th->creds) { /* credentials of its own (they are per thread) */
		for (int cap = 0; cap < 64; cap++)
			if (th->cap_bnd_drop & (1ull << cap))
				check(a, sys5(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0),
				      "thread bounding set drop", (uint64_t)th->tid, (uint64_t)cap);
	}
	/* its ids (a change of euid resets the process's dumpable flag: the leader sets it once all threads
	 * are ready), its capabilities still all it had */
	const struct rst_creds *c = th->creds	   ? (const struct rst_creds *)th->creds
				    : a->has_creds ? &a->creds
						   : 0;
	if (c)
		restore_creds_ids(a, c);
	__atomic_add_fetch(&a->threads_ready, 1, __ATOMIC_SEQ_CST);
	sys6(__NR_futex, (long)&a->threads_ready, FUTEX_WAKE, 1, 0, 0, 0);
	futex_wait_while(&a->threads_go, 0);
	/* seized now, with PTRACE_O_SUSPEND_SECCOMP: its filters cannot refuse what the blob still does; then
	 * its capabilities (a drop: the dumpable flag stays) and no_new_privs */
	install_seccomp(a, th->seccomp, th->nr_seccomp, th->tid);
	if (c)
		capset(a, c->cap_eff, c->cap_prm, c->cap_inh, "thread capset");
	after_creds_thread(a, th);
	mpol(a, th->tid, &th->mpol);
	if (th->cpuid_fault)
		check(a, rst_arch_cpuid_fault(), "thread cpuid faulting", (uint64_t)th->tid, 0);
}

struct k_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
	    set_tid_size;
};

static void create_threads(struct rst_args *a)
{
	struct rst_thread *th = (struct rst_thread *)a->threads;
	for (uint32_t i = 0; i < a->nr_threads; i++) {
		int32_t tid = th[i].tid;
		struct k_clone_args ca = {CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
					      CLONE_SYSVSEM,
					  0,
					  0,
					  0,
					  0,
					  th[i].stack_top - RST_THREAD_STACK,
					  RST_THREAD_STACK,
					  0,
					  th[i].set_tid_size ? (uint64_t)th[i].set_tid : (uint64_t)&tid,
					  th[i].set_tid_size ? th[i].set_tid_size : 1};
		th[i].args = (uint64_t)a;
		long r;
		/* EEXIST: the page-reading helper thread may still hold the tid for a moment */
		for (int n = 0;
		     (r = rst_clone3_thread(&ca, sizeof(ca), thread_main, &th[i])) == -17 && n < 10000; n++)
			sys0(__NR_sched_yield);
		check(a, r, "clone3 thread", (uint64_t)tid, 0);
		if (r != tid)
			fail(a, "clone3 thread (tid differs)", -22, (uint64_t)tid, (uint64_t)r);
	}
}

static void wait_threads(struct rst_args *a)
{
	for (int32_t v; (v = __atomic_load_n(&a->threads_ready, __ATOMIC_SEQ_CST)) < (int32_t)a->nr_threads;)
		sys6(__NR_futex, (long)&a->threads_ready, FUTEX_WAIT, v, 0, 0, 0);
}

/* Creds, then what a credentials change resets. */
void rst_task_creds(struct rst_args *a)
{
	if (a->has_creds)
		restore_creds(a, &a->creds);
	if (a->dumpable == 0 || a->dumpable == 1)
		check(a, sys5(__NR_prctl, PR_SET_DUMPABLE, a->dumpable, 0, 0, 0), "prctl(PR_SET_DUMPABLE)", 0,
		      0);
	check(a, sys5(__NR_prctl, PR_SET_PDEATHSIG, a->pdeathsig, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)", 0, 0);
	if (a->no_new_privs)
		check(a, sys5(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)", 0,
		      0);
}

/* For sharedvm.c (the helpers here stay static to this file). */
void rst_fail(struct rst_args *a, const char *step, long ret, uint64_t x, uint64_t y)
{
	fail(a, step, ret, x, y);
}

void rst_task_state(struct rst_args *a)
{
	restore_task(a);
}

uint64_t rst_now_ns(void)
{
	return now_ns();
}

void rst_wait_while(volatile int32_t *p, int32_t v)
{
	futex_wait_while(p, v);
}

void rst_main(struct rst_args *a)
{
	if (a->magic != RST_MAGIC || a->size != sizeof(*a))
		fail(a, "bad args", -22, a->magic, a->size);
	a->t_ns[0] = now_ns();
	if (a->fault == FI_RESTORER_BEFORE_MM)
		fail(a, "fault injected at restorer-before-mm", -5, 0, 0);
	restore_mm(a);
	lazy_make(a);
	if (a->fault == FI_RESTORER_AFTER_MM)
		fail(a, "fault injected at restorer-after-mm", -5, 0, 0);
	rst_svm_clone_all(a); /* the processes sharing this address space */
	rst_svm_userns(a);    /* ... with their pids from outside the user namespace: it now */
	create_threads(a);    /* before restore_task: timers may notify a thread */
	install_seccomp(a, a->seccomp, a->nr_seccomp, a->pid); /* after: the threads have their own */
	restore_task(a);
	if (a->fault == FI_RESTORER_BEFORE_CREDS)
		fail(a, "fault injected at restorer-before-creds", -5, 0, 0);
	wait_threads(a); /* their credentials first: a change of euid resets the process's dumpable flag */
	rst_task_creds(a);
	tsc_mce(a, a->pid, a->tsc, a->has_mce, a->mce_kill);
	mpol(a, a->pid, &a->mpol);
	lazy_register(a);
	if (a->mlockall) /* last: the mappings made from here on are locked */
		check(a, sys1(__NR_mlockall, a->mlockall), "mlockall", a->mlockall, 0);
	if (a->mdwe) /* after the last mapping: from here on no mapping gains PROT_EXEC */
		check(a, sys5(__NR_prctl, 65 /* PR_SET_MDWE */, a->mdwe, 0, 0, 0), "prctl(PR_SET_MDWE)",
		      a->mdwe, 0);
	if (a->cpuid_fault)
		check(a, rst_arch_cpuid_fault(), "cpuid faulting", (uint64_t)a->pid, 0);
	a->t_ns[3] = now_ns();
	__atomic_store_n(&a->state, RST_DONE, __ATOMIC_SEQ_CST);
}
