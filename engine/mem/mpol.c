/* NUMA memory policies of VMAs (mbind), see mpol.h.
 *
 * Read with get_mempolicy(MPOL_F_ADDR) in the task, not from /proc/PID/numa_maps: numa_maps shows the task's
 * own policy (set_mempolicy) for a VMA without one, and the nodes a policy has now, not those mbind was given
 * (with MPOL_F_RELATIVE_NODES or MPOL_F_STATIC_NODES they differ: bind=relative of node 1 shows as node 0 on
 * a host of one node), which a restore must give again. get_mempolicy answers the mode with its flags
 * (MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING) and mbind's nodemask; MPOL_DEFAULT
 * where the VMA has none. The VMAs come from /proc/PID/maps read while the task is frozen with the scratch
 * mapped (the scratch itself and [vsyscall], not a VMA of the task's, are left out); the calls run in
 * batches, their answers in the scratch (a slot each: the mode, then the nodemask). */
#define LOG_PREFIX "mpol: "
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/proc.h"
#include "dump.h"
#include "mem/mpol.h"
#include "restore.h"

#define MPOL_F_ADDR_ (1 << 1)
#define MPOL_FLAGS_ (0x8000 | 0x4000 | 0x2000) /* MPOL_F_STATIC_NODES, _RELATIVE_NODES, _NUMA_BALANCING */

/* A policy as numa_maps writes it ("bind=static:0-1", "prefer (many):2", "local"), for messages. */
static void mpol_str(int32_t mode, const uint8_t *nodes, size_t len, char *buf, size_t sz)
{
	static const char *const names[] = {
	    "default", "prefer", "bind", "interleave", "local", "prefer (many)", "weighted interleave"};
	int base = mode & ~MPOL_FLAGS_;
	size_t o = base >= 0 && (size_t)base < ARRAY_SIZE(names)
		       ? (size_t)snprintf(buf, sz, "%s", names[base])
		       : (size_t)snprintf(buf, sz, "mode %d", base);
	const char *nodes_flag = (mode & 0x8000) ? "static" : (mode & 0x4000) ? "relative" : NULL;
	if (o < sz && (mode & MPOL_FLAGS_))
		o += (size_t)snprintf(buf + o, sz - o, "=%s%s%s", nodes_flag ? nodes_flag : "",
				      nodes_flag && (mode & 0x2000) ? "|" : "",
				      (mode & 0x2000) ? "balancing" : "");
	const char *sep = ":";
	for (size_t b = 0; b < len * 8 && o < sz; b++) {
		if (!(nodes[b / 8] >> (b % 8) & 1) || (b && nodes[(b - 1) / 8] >> ((b - 1) % 8) & 1))
			continue;
		size_t end = b;
		while (end + 1 < len * 8 && nodes[(end + 1) / 8] >> ((end + 1) % 8) & 1)
			end++;
		o += end > b ? (size_t)snprintf(buf + o, sz - o, "%s%zu-%zu", sep, b, end)
			     : (size_t)snprintf(buf + o, sz - o, "%s%zu", sep, b);
		sep = ",";
	}
}

/* ---------------- dump ---------------- */

/* maxnode for get_mempolicy: the node ids this kernel may have (/sys/devices/system/node/possible, "0-3";
 * it refuses fewer than that), rounded up to whole words; 0: too many to keep. Read once per crshim. */
static unsigned long read_possible_nodes(void)
{
	__cleanup_fclose FILE *f = fopen("/sys/devices/system/node/possible", "re");
	char buf[256];
	if (!f || !fgets(buf, sizeof(buf), f))
		return 64; /* no NUMA in this kernel: get_mempolicy tells (ENOSYS) */
	char *p = buf + strlen(buf);
	while (p > buf && !isdigit((unsigned char)p[-1]))
		p--;
	while (p > buf && isdigit((unsigned char)p[-1]))
		p--;
	unsigned long n = (strtoul(p, NULL, 10) + 64) / 64 * 64;
	return n > DUMP_MPOL_NODES ? 0 : n;
}

static unsigned long possible_nodes(void)
{
	static long n = -1; /* (the same for every task and dump: fixed at boot) */
	long v = __atomic_load_n(&n, __ATOMIC_RELAXED);
	if (v < 0) {
		v = (long)read_possible_nodes();
		__atomic_store_n(&n, v, __ATOMIC_RELAXED);
	}
	return (unsigned long)v;
}

struct mpol_span {
	uint64_t start, end;
};

/* The VMAs from the maps infect_start read (c->in.maps: the scratch not mapped yet, which adds a VMA of its
 * own and changes no other), else from /proc/PID/maps now. */
static int list_vmas(const struct dump_ctx *c, struct mpol_span **v, size_t *n, struct cr_err *e)
{
	__cleanup_free char *buf = NULL;
	const char *text = c->in.maps;
	size_t cap = 0;
	if (!text && proc_read(c->pid, "maps", &buf, NULL, e))
		return -1;
	for (const char *l = text ? text : buf; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		unsigned long long s, en;
		if (sscanf(l, "%llx-%llx", &s, &en) == 2 && s != c->in.scratch &&
		    !memmem(l, len, "[vsyscall]", 10)) {
			if (arr_room(v, &cap, *n, sizeof(**v), 64))
				return cr_fail_errno(e, ENOMEM, "out of memory");
			(*v)[(*n)++] = (struct mpol_span){s, en};
		}
		l += len + (nl != NULL);
	}
	return 0;
}

/* The answers of one batch (slot bytes each in buf): the VMAs with a policy into c->vma_mpol. 1: this kernel
 * has no NUMA (every policy is the default). */
static int take(struct dump_ctx *c, const struct mpol_span *v, const struct infect_call *q, size_t k,
		const uint8_t *buf, size_t slot, size_t *cap, struct cr_err *e)
{
	for (size_t j = 0; j < k; j++, buf += slot) {
		if (q[j].ret == -ENOSYS)
			return 1;
		if (q[j].ret)
			return cr_fail_errno(
			    e, (int)-q[j].ret,
			    "task %d: remote get_mempolicy(MPOL_F_ADDR) of vma 0x%llx-0x%llx", c->pid,
			    (unsigned long long)v[j].start, (unsigned long long)v[j].end);
		int32_t mode;
		memcpy(&mode, buf, sizeof(mode));
		if (!mode) /* MPOL_DEFAULT */
			continue;
		if (arr_room(&c->vma_mpol, cap, c->n_vma_mpol, sizeof(*c->vma_mpol), 8))
			return cr_fail_errno(e, ENOMEM, "out of memory");
		struct dump_vma_mpol *m = &c->vma_mpol[c->n_vma_mpol++];
		memset(m, 0, sizeof(*m));
		m->start = v[j].start, m->end = v[j].end;
		m->pol.ok = true, m->pol.mode = mode;
		memcpy(m->pol.nodes, buf + 8, slot - 8);
		for (m->pol.len = slot - 8; m->pol.len && !m->pol.nodes[m->pol.len - 1]; m->pol.len--)
			;
		char s[128];
		mpol_str(mode, m->pol.nodes, m->pol.len, s, sizeof(s));
		pr_debug("task %d: vma 0x%llx-0x%llx: NUMA memory policy %s\n", c->pid,
			 (unsigned long long)m->start, (unsigned long long)m->end, s);
	}
	return 0;
}

/* The get_mempolicy(MPOL_F_ADDR) of VMA v, its answer in the slot at s. */
static struct infect_call ask_call(const struct mpol_span *v, uint64_t s, unsigned long maxnode)
{
	return (struct infect_call){__NR_get_mempolicy, {s, s + 8, maxnode, v->start, MPOL_F_ADDR_, 0}, 0};
}

/* get_mempolicy(MPOL_F_ADDR) of the n VMAs v in batches of what the scratch holds (a slot each). */
static int ask(struct dump_ctx *c, const struct mpol_span *v, size_t n, unsigned long maxnode, size_t *cap,
	       struct cr_err *e)
{
	size_t slot = 8 + maxnode / 8, per = INFECT_SCRATCH_USER / slot;
	struct infect_call *q = calloc(per, sizeof(*q));
	uint8_t *buf = malloc(per * slot);
	int r = !q || !buf ? cr_fail_errno(e, ENOMEM, "out of memory") : 0;
	for (size_t i = 0; !r && i < n; i += per) {
		size_t k = n - i < per ? n - i : per;
		for (size_t j = 0; j < k; j++)
			q[j] = ask_call(&v[i + j], c->in.scratch + j * slot, maxnode);
		if (infect_batch(&c->in, q, k, e) || infect_read(&c->in, c->in.scratch, buf, k * slot, e))
			r = -1;
		else
			r = take(c, v + i, q, k, buf, slot, cap, e);
	}
	free(q);
	free(buf);
	return r;
}

int dump_mm_mpol_queue(struct dump_ctx *c, struct dump_mpol_q *q, struct cr_err *e)
{
	dump_mm_mpol_free(c);
	*q = (struct dump_mpol_q){0};
	if (c->vm_owner) /* its owner's address space: dumped with the owner */
		return 0;
	q->maxnode = possible_nodes();
	if (!q->maxnode)
		return cr_fail_errno(e, E2BIG, "task %d: this host has more than %d NUMA node ids", c->pid,
				     DUMP_MPOL_NODES);
	clock_gettime(CLOCK_MONOTONIC, &q->t0);
	if (list_vmas(c, &q->vmas, &q->nvmas, e))
		return -1;
	size_t slot = 8 + q->maxnode / 8, room = (INFECT_SCRATCH_USER - DUMP_SCR_CORE) / slot;
	q->n = q->nvmas < room ? q->nvmas : room;
	q->n = q->n < DUMP_MPOL_Q ? q->n : DUMP_MPOL_Q;
	for (size_t j = 0; j < q->n; j++)
		q->calls[j] = ask_call(&q->vmas[j], c->in.scratch + DUMP_SCR_CORE + j * slot, q->maxnode);
	return 0;
}

int dump_mm_mpol_take(struct dump_ctx *c, struct dump_mpol_q *q, struct cr_err *e)
{
	size_t slot = 8 + q->maxnode / 8, cap = 0;
	int r = 0;
	if (q->n) {
		uint8_t *buf = malloc(q->n * slot);
		r = !buf ? cr_fail_errno(e, ENOMEM, "out of memory")
		    : infect_read(&c->in, c->in.scratch + DUMP_SCR_CORE, buf, q->n * slot, e)
			? -1
			: take(c, q->vmas, q->calls, q->n, buf, slot, &cap, e);
		free(buf);
	}
	if (!r && q->nvmas > q->n) /* (those past the queue's room: batches of their own) */
		r = ask(c, q->vmas + q->n, q->nvmas - q->n, q->maxnode, &cap, e);
	if (r < 0)
		return -1;
	pr_debug("task %d: NUMA memory policies of %zu vmas read in %llu us\n", c->pid, q->nvmas,
		 (unsigned long long)cr_us_since(&q->t0));
	if (c->n_vma_mpol)
		pr_info("task %d: %zu vmas with a NUMA memory policy of their own\n", c->pid, c->n_vma_mpol);
	return 0;
}

void dump_mm_mpol_q_free(struct dump_mpol_q *q)
{
	free(q->vmas);
	q->vmas = NULL;
	q->nvmas = q->n = 0;
}

void dump_mm_mpol_free(struct dump_ctx *c)
{
	free(c->vma_mpol);
	c->vma_mpol = NULL;
	c->n_vma_mpol = 0;
}

void dump_mm_mpol_fill(const struct dump_ctx *c, VmaEntry *ve)
{
	for (size_t i = 0; i < c->n_vma_mpol; i++) {
		const struct dump_vma_mpol *m = &c->vma_mpol[i];
		if (ve->start < m->start || ve->start >= m->end)
			continue;
		ve->mempolicy = m->pol.mode, ve->has_mempolicy = 1;
		ve->mempolicy_nodes = (ProtobufCBinaryData){m->pol.len, (uint8_t *)m->pol.nodes};
		ve->has_mempolicy_nodes = m->pol.len != 0;
		return;
	}
}

/* ---------------- restore ---------------- */

static bool has_mpol(const VmaEntry *v)
{
	return v->has_mempolicy && v->mempolicy;
}

static bool special(const VmaEntry *v)
{
	return v->kind == VMA_KIND__VMA_VSYSCALL || v->kind == VMA_KIND__VMA_VDSO ||
	       v->kind == VMA_KIND__VMA_VVAR || v->kind == VMA_KIND__VMA_VVAR_VCLOCK;
}

static void nodes_of(const VmaEntry *v, uint64_t nodes[RST_MPOL_NODES / 64])
{
	memset(nodes, 0, RST_MPOL_NODES / 8);
	if (v->has_mempolicy_nodes && v->mempolicy_nodes.len <= RST_MPOL_NODES / 8)
		memcpy(nodes, v->mempolicy_nodes.data, v->mempolicy_nodes.len);
}

int rst_mpol_apply(const VmaEntry *v, void *addr, size_t len)
{
	uint64_t nodes[RST_MPOL_NODES / 64];
	if (!has_mpol(v))
		return 0;
	nodes_of(v, nodes);
	return (int)syscall(SYS_mbind, addr, len, (unsigned long)v->mempolicy, nodes,
			    (unsigned long)RST_MPOL_NODES + 1, 0ul);
}

/* One policy that this host refuses: the line says which, where and why. */
static int refused(const struct rst_task *t, const VmaEntry *v, int err, const char *why, struct cr_err *e)
{
	char s[128];
	const ProtobufCBinaryData *n = &v->mempolicy_nodes;
	mpol_str(v->mempolicy, n->data, v->has_mempolicy_nodes ? n->len : 0, s, sizeof(s));
	return cr_fail_errno(e, err, "task %d: the NUMA memory policy %s of vma 0x%llx-0x%llx %s", t->pid, s,
			     (unsigned long long)v->start, (unsigned long long)v->end, why);
}

int rst_mpol_check(const struct rst_task *t, struct cr_err *e)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	void *page = MAP_FAILED;
	int ret = 0;
	for (size_t i = 0; !ret && t->mm && i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (!has_mpol(v))
			continue;
		if (special(v) || (v->has_mempolicy_nodes && v->mempolicy_nodes.len > RST_MPOL_NODES / 8)) {
			ret = refused(t, v, EBADMSG, "is not one crshim can set (mm image)", e);
			break;
		}
		if (page == MAP_FAILED)
			page = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			return cr_fail_sys(e, "map a page to try NUMA memory policies on");
		if (rst_mpol_apply(v, page, psz))
			ret = refused(t, v, errno, "cannot be set on this host (mbind)", e);
	}
	if (page != MAP_FAILED)
		munmap(page, psz);
	return ret;
}

size_t rst_mpol_count(const struct rst_task *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++)
		n += has_mpol(t->mm->vmas[i]) && !special(t->mm->vmas[i]);
	return n;
}

size_t rst_mpol_fill(const struct rst_task *t, struct rst_vma_mpol *p)
{
	size_t n = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (!has_mpol(v) || special(v))
			continue;
		struct rst_vma_mpol *m = &p[n++];
		m->start = v->start, m->len = v->end - v->start;
		m->mode = v->mempolicy, m->late = v->kind == VMA_KIND__VMA_AIO_RING;
		nodes_of(v, m->nodes);
	}
	return n;
}
