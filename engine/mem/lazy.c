/* restore --lazy-pages, the restore's side (engine/mem/lazy.md): which page runs are left to the
 * lazy-pages daemon, and the handover of each task's userfaultfd to it. */
#define LOG_PREFIX "lazy: "
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/scm.h"
#include "base/proc.h"
#include "base/vma-flags.h"
#include "mem/lazy.h"
#include "restore.h"

static uint64_t psize(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Private anonymous memory only; not a stack that grows (the kernel touches it), not locked (mlock
 * fills it), not droppable, not hugetlb (lazy-pages copies 4 KiB pages). Every other VMA is filled by the
 * blob as without --lazy-pages. */
/* Not a VMA whose final protection has no write: the restorer maps it writable, then takes write away; the
 * kernel then drops its commit charge (VM_ACCOUNT) unless a page was written into it (an anon_vma), and a
 * VMA without the charge merges with uncharged neighbours the task kept apart (PROT_NONE guards). Filled
 * at once, its layout stays as it was (such memory is rare and small: data made read-only). */
static bool vma_can_be_lazy(const VmaEntry *v)
{
	return (v->kind == VMA_KIND__VMA_ANON_PRIVATE || v->kind == VMA_KIND__VMA_HEAP) &&
	       (v->prot & PROT_WRITE) &&
	       !(v->flags & (MAP_GROWSDOWN | MAP_DROPPABLE_ | MAP_SHARED | MAP_HUGETLB)) &&
	       !(v->madv & VMA_F_LOCKED);
}

/* The kernel writes a thread's rseq area while the blob still runs (registration, every return to
 * user mode): a page it wrote would be present before lazy-pages could fill it. */
static bool holds_rseq(const struct rst_task *t, uint64_t s, uint64_t e)
{
	uint64_t ps = psize();
	for (size_t i = 0; i <= t->nr_tcores; i++) {
		const CoreEntry *c = i ? t->tcores[i - 1] : t->core;
		if (!c || !c->rseq || !c->rseq->ptr)
			continue;
		uint64_t p = c->rseq->ptr & ~(ps - 1),
			 pe = (c->rseq->ptr + c->rseq->len + ps - 1) & ~(ps - 1);
		if (p < e && pe > s)
			return true;
	}
	return false;
}

bool *rst_lazy_plan(const struct rst_task *t)
{
	const struct page_map *pm = &t->pm;
	bool *lazy = calloc(pm->nr + 1, sizeof(bool));
	size_t vi = 0;
	const struct rst_task *root = t->root ? t : t->tree;
	if (!lazy || !t->lazy || !t->mm || !root)
		return lazy;
	for (size_t i = 0; i < root->n_all_pst; i++) /* its address space is shared (restorer/sharedvm.c) */
		if (root->all_pst[i]->has_vm_owner && root->all_pst[i]->vm_owner == rst_ipid(t))
			return lazy;
	for (size_t bi = 0; bi < pm->nr; bi++) {
		const struct page_block *b = &pm->blocks[bi];
		uint64_t a = b->vaddr, end = b->vaddr + b->len;
		bool ok = !holds_rseq(t, a, end);
		while (vi < t->mm->n_vmas && t->mm->vmas[vi]->end <= a)
			vi++;
		for (size_t k = vi; ok && a < end; k++) { /* every VMA the block touches */
			if (k == t->mm->n_vmas || t->mm->vmas[k]->start > a ||
			    !vma_can_be_lazy(t->mm->vmas[k]))
				ok = false;
			else
				a = t->mm->vmas[k]->end;
		}
		lazy[bi] = ok;
	}
	return lazy;
}

int rst_lazy_connect(int dirfd, int *sk, struct cr_err *e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int n = snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dirfd, LZ_SOCK);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	struct timeval tv = {LZ_ACK_TIMEOUT, 0};
	*sk = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (*sk < 0)
		return cr_fail_sys(e, "socket");
	if (connect(*sk, (struct sockaddr *)&sa, len)) {
		int err = errno;
		close(*sk);
		*sk = -1;
		return cr_fail_errno(
		    e, err,
		    "--lazy-pages: no lazy-pages daemon on %s in the images dir (start `crshim "
		    "lazy-pages -D DIR` first)",
		    LZ_SOCK);
	}
	setsockopt(*sk, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pr_info("connected to the lazy-pages daemon\n");
	return 0;
}

static int wait_ack(int sk, const char *what, struct cr_err *e)
{
	struct lz_ack a;
	ssize_t n = recv(sk, &a, sizeof(a), 0);
	if (n < 0)
		return cr_fail_sys(e, "lazy-pages: no answer to %s", what);
	if ((size_t)n < sizeof(a.h) || a.h.magic != LZ_MAGIC || a.h.version != LZ_VERSION ||
	    a.h.cmd != LZ_ACK)
		return cr_fail_errno(e, EPROTO, "lazy-pages: %s answered with a bad message (%zd bytes)",
				     what, n);
	a.msg[sizeof(a.msg) - 1] = '\0';
	if (a.h.status)
		return cr_fail_errno(e, a.h.status > 0 ? a.h.status : EPROTO, "lazy-pages refused %s: %s",
				     what, a.msg);
	return 0;
}

static int send_task(struct rst_task *t, int sk, const struct lz_range *r, uint32_t nr, struct cr_err *e)
{
	struct lz_hdr h = {LZ_MAGIC, LZ_VERSION, LZ_TASK, t->pid, rst_ipid(t), nr, 0};
	char what[64];
	__cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	if (pidfd < 0)
		return cr_fail_sys(e, "pidfd_open %d", t->pid);
	__cleanup_close int uffd = (int)syscall(SYS_pidfd_getfd, pidfd, t->args->lazy_uffd, 0);
	if (uffd < 0)
		return cr_fail_sys(e, "task %d: take its userfaultfd (fd %d)", t->pid, t->args->lazy_uffd);
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)(uintptr_t)r, nr * sizeof(*r)}};
	const int fds[2] = {uffd, pidfd};
	if (scm_send(sk, iov, 2, fds, 2) < 0)
		return cr_fail_sys(e, "lazy-pages: send task %d", t->pid);
	snprintf(what, sizeof(what), "task %d", t->pid);
	if (wait_ack(sk, what, e))
		return -1;
	pr_info("task %d: %u lazy VMAs handed to lazy-pages\n", t->pid, nr);
	return 0;
}

int rst_lazy_send(struct rst_task *t, int sk, struct cr_err *e)
{
	const struct rst_vma *v = (const struct rst_vma *)(uintptr_t)t->args->vmas;
	struct lz_range *r = calloc(t->args->nr_vmas + 1, sizeof(*r));
	uint32_t nr = 0;
	if (!r)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (uint32_t i = 0; i < t->args->nr_vmas; i++)
		if (v[i].lazy)
			r[nr++] = (struct lz_range){v[i].start, v[i].end};
	int ret = nr > LZ_MAX_RANGES ? cr_fail_errno(e, E2BIG, "task %d: %u lazy VMAs, at most %d", t->pid,
						     nr, LZ_MAX_RANGES)
				     : send_task(t, sk, r, nr, e);
	free(r);
	return ret;
}

int rst_lazy_fetch(const struct rst_task *t, struct cr_err *e)
{
	const struct rst_task *root = t->root ? t : t->tree;
	const struct page_map *pm = &t->pm;
	struct lz_range *r = calloc(LZ_MAX_RANGES, sizeof(*r));
	uint32_t nr = 0;
	int ret = 0;
	if (!r)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i <= pm->nr; i++) {
		const struct page_block *b = i < pm->nr ? &pm->blocks[i] : NULL;
		if (b && (b->src || t->blk_lazy[i])) /* a parent's (here), or lazy-pages fills it */
			continue;
		if (b && nr && r[nr - 1].end == b->offset) {
			r[nr - 1].end += b->len;
			continue;
		}
		if (nr && (!b || nr == LZ_MAX_RANGES)) { /* send what we have */
			struct lz_hdr h = {LZ_MAGIC, LZ_VERSION, LZ_FETCH, t->pid, rst_ipid(t), nr, 0};
			struct iovec iov[2] = {{&h, sizeof(h)}, {r, nr * sizeof(*r)}};
			struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
			if (sendmsg(root->lazy_sk, &mh, MSG_NOSIGNAL) < 0)
				ret = cr_fail_sys(e, "lazy-pages: ask for the pages of task %d", t->pid);
			else
				ret = wait_ack(root->lazy_sk, "the pages the restore fills itself", e);
			nr = 0;
		}
		if (b)
			r[nr++] = (struct lz_range){b->offset, b->offset + b->len};
	}
	free(r);
	return ret;
}

int rst_lazy_end(int sk, struct cr_err *e)
{
	struct lz_hdr h = {LZ_MAGIC, LZ_VERSION, LZ_END, 0, 0, 0, 0};
	if (send(sk, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		return cr_fail_sys(e, "lazy-pages: send the end of the restore");
	return wait_ack(sk, "the end of the restore", e);
}
