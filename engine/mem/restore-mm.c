/* Restore: the restore area (blob + args + vDSO parking + stack) and the address-space part of the args.
 * The parent maps the area MAP_SHARED before clone3, so the child has it at the same address and the
 * blob's result is visible to the parent without reading the child's memory. */
#define LOG_PREFIX "restore-mm: "
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch.h"
#include "base/cleanup.h"
#include "base/fault.h"
#include "base/log.h"
#include "base/proc.h"
#include "files/ghost.h"
#include "mem/mpol.h"
#include "restore.h"
#include "base/vma-flags.h"

extern const char crshim_restorer_blob[], crshim_restorer_blob_end[];

/* The blob's size: its two ends are linker symbols of one section (engine/restorer-blob.S), not two C
 * objects, so compare them as addresses. */
static size_t blob_size(void)
{
	return (size_t)((uintptr_t)crshim_restorer_blob_end - (uintptr_t)crshim_restorer_blob);
}

static const char *const special_names[RST_NR_SPECIAL] = {"[vvar]", "[vvar_vclock]", "[vdso]"};
static const VmaKind special_kinds[RST_NR_SPECIAL] = {VMA_KIND__VMA_VVAR, VMA_KIND__VMA_VVAR_VCLOCK,
						      VMA_KIND__VMA_VDSO};

#define MMAP_MIN 0x10000ull
#define AREA_GUARD (1ull << 20)
#define STACK_ROOM (8ull << 20) /* kept free below crshim's stack (self_read) */

struct interval {
	uint64_t start, end;
};

static uint64_t page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Slot of a maps name in special_names, if the arch has it; -1 otherwise. */
static int special_slot(const char *name)
{
	for (int k = 0; k < RST_NR_SPECIAL; k++) {
		if (strcmp(name, special_names[k]))
			continue;
		for (const char *const *a = arch_vdso_names; *a; a++)
			if (!strcmp(*a, name))
				return k;
	}
	return -1;
}

/* Parse one /proc/self/maps line: range and name ("" if none). */
static int parse_maps_line(const char *line, uint64_t *s, uint64_t *e, const char **name)
{
	char *p;
	*s = strtoull(line, &p, 16);
	if (*p != '-')
		return -1;
	*e = strtoull(p + 1, &p, 16);
	for (int field = 0; field < 4 && *p; field++) { /* perms, offset, dev, inode */
		while (*p == ' ')
			p++;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	while (*p == ' ')
		p++;
	*name = p;
	return 0;
}

int rst_self_specials(struct rst_cur_special cur[RST_NR_SPECIAL], struct cr_err *e)
{
	__cleanup_fclose FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	memset(cur, 0, sizeof(*cur) * RST_NR_SPECIAL);
	if (!f)
		return cr_fail_sys(e, "open /proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		uint64_t s, en;
		const char *name;
		line[strcspn(line, "\n")] = '\0';
		if (parse_maps_line(line, &s, &en, &name))
			continue;
		int k = special_slot(name);
		if (k >= 0)
			cur[k] = (struct rst_cur_special){s, en - s};
	}
	return 0;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* crshim's own mappings, sorted: read once for the tree's areas, each new area added (reading
 * /proc/self/maps per task, with the areas of every task before it in there, made a tree O(n^2)). A mapping
 * crshim made since is found by MAP_FIXED_NOREPLACE (EEXIST): then the list is read again. */
struct self_maps {
	struct interval *iv;
	size_t n, cap;
};

static int self_add(struct self_maps *sm, uint64_t s, uint64_t en, struct cr_err *e)
{
	if (sm->n == sm->cap) {
		size_t ncap = sm->cap ? sm->cap * 2 : 256;
		struct interval *ni = realloc(sm->iv, ncap * sizeof(*ni));
		if (!ni)
			return cr_fail_errno(e, ENOMEM, "out of memory");
		sm->iv = ni, sm->cap = ncap;
	}
	size_t i = sm->n;
	while (i && sm->iv[i - 1].start > s) /* keep the order: an area goes below the others */
		i--;
	memmove(&sm->iv[i + 1], &sm->iv[i], (sm->n - i) * sizeof(*sm->iv));
	sm->iv[i] = (struct interval){s, en};
	sm->n++;
	return 0;
}

static int self_read(struct self_maps *sm, struct cr_err *e)
{
	__cleanup_fclose FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	sm->n = 0;
	if (!f)
		return cr_fail_sys(e, "busy ranges");
	while (fgets(line, sizeof(line), f)) {
		uint64_t s, en;
		const char *name;
		if (parse_maps_line(line, &s, &en, &name) || !strncmp(name, "[vsyscall]", 10))
			continue;
		/* crshim's stack grows down into this room: an area right below it (with the kernel's stack
		 * guard gap) stopped its growth, and a deep call later in the restore faulted */
		if (!strncmp(name, "[stack]", 7))
			s = s > STACK_ROOM ? s - STACK_ROOM : 0;
		if (self_add(sm, s, en, e))
			return -1;
	}
	return 0;
}

/* The image's VMAs and crshim's mappings, sorted: the area must avoid both. */
static int busy_intervals(const struct rst_task *t, const struct self_maps *sm, struct interval **out,
			  size_t *n, struct cr_err *e)
{
	size_t nv = 0;
	struct interval *iv = malloc((t->mm->n_vmas + sm->n + 1) * sizeof(*iv));
	*n = 0;
	if (!iv)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; i < t->mm->n_vmas; i++)
		if (t->mm->vmas[i]->kind != VMA_KIND__VMA_VSYSCALL)
			iv[nv++] = (struct interval){t->mm->vmas[i]->start, t->mm->vmas[i]->end};
	qsort(iv, nv, sizeof(*iv), cmp_interval);
	/* merge the two sorted lists from the end, in place */
	size_t a = nv, b = sm->n, k = nv + sm->n;
	while (b) {
		if (a && iv[a - 1].start > sm->iv[b - 1].start)
			iv[--k] = iv[--a];
		else
			iv[--k] = sm->iv[--b];
	}
	*n = nv + sm->n;
	*out = iv;
	return 0;
}

/* The highest gap with room for len plus guards on both sides, below the highest busy range. */
static int choose_area(const struct rst_task *t, const struct self_maps *sm, uint64_t len, uint64_t *addr,
		       struct cr_err *e)
{
	struct interval *iv;
	size_t n, m = 0;
	if (busy_intervals(t, sm, &iv, &n, e))
		return -1;
	for (size_t i = 0; i < n; i++) { /* merge in place (sorted by start) */
		if (m && iv[i].start <= iv[m - 1].end) {
			if (iv[i].end > iv[m - 1].end)
				iv[m - 1].end = iv[i].end;
		} else {
			iv[m++] = iv[i];
		}
	}
	uint64_t need = len + 2 * AREA_GUARD;
	*addr = 0;
	for (size_t i = m; i-- > 0;) {
		uint64_t lo = i ? iv[i - 1].end : MMAP_MIN;
		if (lo < MMAP_MIN)
			lo = MMAP_MIN;
		if (iv[i].start > lo && iv[i].start - lo >= need) {
			*addr = (iv[i].start - AREA_GUARD - len) & ~(page_size() - 1);
			break;
		}
	}
	free(iv);
	if (!*addr)
		return cr_fail_errno(e, ENOMEM, "no free address range of %llu KiB for the restorer",
				     (unsigned long long)len >> 10);
	return 0;
}

/* Map the area where crshim's list of its mappings says there is room; once more after reading the list
 * again if crshim mapped something there meanwhile. */
static void *map_area(const struct rst_task *t, struct self_maps *sm, uint64_t len, uint64_t *addr,
		      struct cr_err *e)
{
	for (int tries = 0;; tries++) {
		if ((tries || !sm->iv) && self_read(sm, e))
			return NULL;
		if (choose_area(t, sm, len, addr, e))
			return NULL;
		void *p = mmap((void *)(uintptr_t)*addr, len, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED && self_add(sm, *addr, *addr + len, e)) {
			munmap(p, len);
			return NULL;
		}
		if (p != MAP_FAILED)
			return p;
		if (errno != EEXIST || tries) {
			cr_fail_sys(e, "map the restore area at 0x%llx (%llu KiB)", (unsigned long long)*addr,
				    (unsigned long long)len >> 10);
			return NULL;
		}
	}
}

/* Every page block must lie inside VMAs of the image (sorted, non-overlapping, page aligned). */
static int check_layout(const struct rst_task *t, struct cr_err *e)
{
	const struct page_map *pm = &t->pm;
	size_t vi = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (v->start >= v->end || (i && v->start < t->mm->vmas[i - 1]->end) ||
		    (v->start | v->end) % page_size())
			return cr_fail_errno(
			    e, EBADMSG, "mm-%d.img: vma %zu (0x%llx-0x%llx) is unsorted or malformed", t->pid,
			    i, (unsigned long long)v->start, (unsigned long long)v->end);
	}
	for (size_t bi = 0; bi < pm->nr; bi++) {
		uint64_t a = pm->blocks[bi].vaddr, end = a + pm->blocks[bi].len;
		while (a < end) {
			while (vi < t->mm->n_vmas && t->mm->vmas[vi]->end <= a)
				vi++;
			if (vi == t->mm->n_vmas || t->mm->vmas[vi]->start > a)
				return cr_fail_errno(e, EBADMSG,
						     "pagemap-%d.img: page 0x%llx lies outside every vma",
						     t->pid, (unsigned long long)a);
			a = t->mm->vmas[vi]->end < end ? t->mm->vmas[vi]->end : end;
		}
	}
	return 0;
}

static bool vma_is_special(const VmaEntry *v)
{
	return v->kind == VMA_KIND__VMA_VSYSCALL || v->kind == VMA_KIND__VMA_VDSO ||
	       v->kind == VMA_KIND__VMA_VVAR || v->kind == VMA_KIND__VMA_VVAR_VCLOCK;
}

/* The data runs of one VMA: page blocks clipped to it, merged where contiguous in memory and file. */
static size_t vma_blocks(const struct rst_task *t, const VmaEntry *v, size_t *bi, struct rst_pblock *rb,
			 size_t nb)
{
	const struct page_map *pm = &t->pm;
	size_t first = nb;
	while (*bi < pm->nr && pm->blocks[*bi].vaddr + pm->blocks[*bi].len <= v->start)
		(*bi)++;
	if (v->kind == VMA_KIND__VMA_FILE_SHARED)
		return nb; /* its data is the file's */
	for (size_t j = *bi; j < pm->nr && pm->blocks[j].vaddr < v->end; j++) {
		const struct page_block *b = &pm->blocks[j];
		uint64_t s = b->vaddr > v->start ? b->vaddr : v->start;
		uint64_t en = b->vaddr + b->len < v->end ? b->vaddr + b->len : v->end;
		uint64_t off = b->offset + (s - b->vaddr);
		if (s >= en)
			continue;
		uint8_t lazy = t->blk_lazy && t->blk_lazy[j];
		if (nb > first && rb[nb - 1].vaddr + rb[nb - 1].len == s &&
		    rb[nb - 1].off + rb[nb - 1].len == off && rb[nb - 1].src == b->src &&
		    rb[nb - 1].lazy == lazy)
			rb[nb - 1].len += en - s;
		else
			rb[nb++] = (struct rst_pblock){s,    en - s,	      off, v->prot | PROT_WRITE, 0,
						       lazy, (uint16_t)b->src};
	}
	return nb;
}

/* Private anonymous memory with large runs of data is filled faster through huge pages (restorer.c);
 * not where the task asked for no huge pages. */
static void mark_thp(struct rst_vma *r, struct rst_pblock *rb)
{
	if (r->kind != RST_VMA_ANON || (r->flags & (MAP_GROWSDOWN | MAP_DROPPABLE_ | MAP_HUGETLB)) ||
	    (r->madv & (VMA_F_NOHUGEPAGE | VMA_F_LOCKED)))
		return;
	for (uint32_t i = r->first_block; i < r->first_block + r->nr_blocks; i++)
		if (rb[i].len >= RST_THP_MIN_RUN)
			r->thp = rb[i].thp = 1;
}

static bool has_member(const struct rst_vma *rv, size_t nv, size_t lead)
{
	for (size_t k = lead + 1; k < nv; k++)
		if (rv[k].shm_lead == (int32_t)lead)
			return true;
	return false;
}

/* Shared anonymous memory split into several VMAs (mprotect of a part) is one object: the blob maps it
 * once and moves the parts into place, so that they share it and keep their offsets in it. */
static void group_shm(struct rst_task *t, struct rst_vma *rv)
{
	// NOLINTNEXTLINE(bugprone-sizeof-expression): an array of message pointers
	const VmaEntry **by = calloc(t->args->nr_vmas + 1, sizeof(*by));
	size_t nv = 0;
	if (!by)
		return; /* no grouping: each part on its own */
	for (size_t i = 0; i < t->mm->n_vmas; i++)
		if (!vma_is_special(t->mm->vmas[i]))
			by[nv++] = t->mm->vmas[i];
	for (size_t k = 0; k < nv; k++) {
		rv[k].shm_lead = -1;
		if (rv[k].kind != RST_VMA_ANON_SHARED || !by[k]->has_shmid)
			continue;
		for (size_t j = 0; j < k && rv[k].shm_lead < 0; j++)
			if (rv[j].kind == RST_VMA_ANON_SHARED && by[j]->has_shmid &&
			    by[j]->shmid == by[k]->shmid)
				rv[k].shm_lead = rv[j].shm_lead >= 0 ? rv[j].shm_lead : (int32_t)j;
		int32_t lead = rv[k].shm_lead >= 0 ? rv[k].shm_lead : (int32_t)k;
		uint64_t size = rv[k].pgoff + (rv[k].end - rv[k].start);
		if (rv[lead].shm_size < size)
			rv[lead].shm_size = size;
	}
	for (size_t k = 0; k < nv; k++) /* a lone part at offset 0 needs no grouping */
		if (rv[k].kind == RST_VMA_ANON_SHARED && rv[k].shm_lead < 0 && rv[k].shm_size &&
		    (rv[k].pgoff || rv[k].shm_size != rv[k].end - rv[k].start ||
		     (k + 1 < nv && rv[k + 1].shm_lead == (int32_t)k) || has_member(rv, nv, k)))
			rv[k].shm_lead = (int32_t)k;
	free(by);
}

/* A System V shared memory attach (ipc-shm.h): the blob attaches the segment by id with these flags. */
static void sysv_vma(const VmaEntry *v, struct rst_vma *r)
{
	r->kind = RST_VMA_SYSV;
	r->mfile = (int32_t)v->shmid;
	r->flags = RST_SHM_REMAP | (v->has_file_flags && v->file_flags == O_RDONLY ? RST_SHM_RDONLY : 0) |
		   ((v->prot & PROT_EXEC) ? RST_SHM_EXEC : 0);
}

/* An AIO ring (restorer.c, aio_restore): io_setup(n) makes a ring of 2 * max(n, 4 * CPUs) + 2 events
 * rounded up to whole pages, so n = (nr - 2) / 2 gives the saved ring's nr (nr is what its pages hold). */
static int aio_vma(const struct rst_task *t, const VmaEntry *v, struct rst_vma *r, struct cr_err *e)
{
	if (!v->has_aio_nr || v->aio_nr < 4 || 32 + (uint64_t)v->aio_nr * 32 > v->end - v->start)
		return cr_fail_errno(e, EBADMSG, "mm-%d.img: AIO ring 0x%llx-0x%llx with %u events", t->pid,
				     (unsigned long long)v->start, (unsigned long long)v->end, v->aio_nr);
	r->kind = RST_VMA_AIO;
	r->flags = MAP_PRIVATE;
	r->prot |= PROT_READ | PROT_WRITE;
	r->aio_nr = (v->aio_nr - 2) / 2;
	return 0;
}

static int fill_vmas(struct rst_task *t, struct rst_vma *rv, struct rst_pblock *rb, struct cr_err *e)
{
	struct rst_args *a = t->args;
	size_t bi = 0, nb = 0, nv = 0;

	if (check_layout(t, e))
		return -1;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (vma_is_special(v))
			continue;
		struct rst_vma *r = &rv[nv++];
		*r = (struct rst_vma){.start = v->start,
				      .end = v->end,
				      .pgoff = v->pgoff,
				      .prot = v->prot,
				      .flags = v->flags & (MAP_SHARED | MAP_PRIVATE | MAP_DROPPABLE_ |
							   MAP_GROWSDOWN | MAP_NORESERVE | MAP_HUGETLB |
							   ((unsigned)MAP_HUGE_MASK << MAP_HUGE_SHIFT)),
				      .madv = v->madv,
				      .mfile = t->vma_mfile[i],
				      .first_block = (uint32_t)nb,
				      .shm_lead = -1};
		r->kind = t->vma_mfile[i] >= 0			 ? RST_VMA_FILE
			  : v->kind == VMA_KIND__VMA_ANON_SHARED ? RST_VMA_ANON_SHARED
								 : RST_VMA_ANON;
		if (v->kind == VMA_KIND__VMA_SYSV_SHM)
			sysv_vma(v, r);
		else if (v->kind == VMA_KIND__VMA_AIO_RING && aio_vma(t, v, r, e))
			return -1;
		else if (r->kind != RST_VMA_FILE)
			r->flags |= MAP_ANONYMOUS;
		nb = vma_blocks(t, v, &bi, rb, nb);
		if (t->vma_prefilled[i]) { /* its data is in place already */
			nb = r->first_block;
			r->prefilled = 1;
		}
		r->nr_blocks = (uint32_t)(nb - r->first_block);
		for (size_t k = r->first_block; k < nb; k++) /* registered with lazy-pages' userfaultfd */
			r->lazy |= rb[k].lazy;
		if (r->lazy && r->kind == RST_VMA_AIO) /* the blob reads the saved ring at once */
			return cr_fail_errno(e, EOPNOTSUPP, "task %d: AIO ring at 0x%llx with --lazy-pages",
					     t->pid, (unsigned long long)v->start);
		a->lazy |= (int32_t)r->lazy;
		mark_thp(r, rb);
	}
	a->nr_vmas = (uint32_t)nv;
	a->nr_blocks = (uint32_t)nb;
	group_shm(t, rv);
	return 0;
}

/* The guard regions of every VMA (mm.img vma_entry.guards: start, end pairs inside it, page-aligned). */
static int fill_guards(struct rst_task *t, struct rst_range *g, struct cr_err *e)
{
	uint64_t psz = page_size();
	uint32_t n = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		for (size_t k = 0; k + 1 < v->n_guards; k += 2) {
			uint64_t s = v->guards[k], end = v->guards[k + 1];
			if (v->n_guards % 2 || s < v->start || end > v->end || s >= end || s % psz ||
			    end % psz)
				return cr_fail_errno(
				    e, EBADMSG, "mm-%d.img: guard region 0x%llx-0x%llx in vma 0x%llx-0x%llx",
				    t->pid, (unsigned long long)s, (unsigned long long)end,
				    (unsigned long long)v->start, (unsigned long long)v->end);
			g[n++] = (struct rst_range){s, end - s};
		}
	}
	t->args->nr_guards = n;
	return 0;
}

static int fill_specials(struct rst_task *t, uint64_t park)
{
	struct rst_args *a = t->args;
	for (int k = 0; k < RST_NR_SPECIAL; k++) {
		struct rst_special *s = &a->special[k];
		s->len = t->cur_special[k].len;
		s->park = park;
		park += s->len;
		for (size_t i = 0; i < t->mm->n_vmas; i++)
			if (t->mm->vmas[i]->kind == special_kinds[k])
				s->target = t->mm->vmas[i]->start;
	}
	return 0;
}

static int fill_mm(struct rst_task *t, struct cr_err *e)
{
	struct rst_args *a = t->args;
	const MmEntry *m = t->mm;
	if (m->n_auxv > RST_AUXV_MAX)
		return cr_fail_errno(e, E2BIG, "mm-%d.img: %zu auxv words, at most %d supported", t->pid,
				     m->n_auxv, RST_AUXV_MAX);
	memcpy(a->auxv, m->auxv, m->n_auxv * sizeof(uint64_t));
	a->mm = (struct rst_mm_map){.start_code = m->start_code,
				    .end_code = m->end_code,
				    .start_data = m->start_data,
				    .end_data = m->end_data,
				    .start_brk = m->start_brk,
				    .brk = m->brk,
				    .start_stack = m->start_stack,
				    .arg_start = m->arg_start,
				    .arg_end = m->arg_end,
				    .env_start = m->env_start,
				    .env_end = m->env_end,
				    .auxv = (uint64_t)(uintptr_t)a->auxv,
				    .auxv_size = (uint32_t)(m->n_auxv * sizeof(uint64_t)),
				    .exe_fd = (uint32_t)-1};
	a->mlockall = m->mlockall;
	a->ksm_merge_any = m->ksm_merge_any;
	return 0;
}

/* Sizes of the variable parts of the args. */
struct area_layout {
	size_t code, args, vmas, blocks, unmap, guards, mpols, mfd, task, park, stack, total;
};

/* A chained restore: the parents' pages files the blocks point into (pm.src) go to the child as kept fds
 * after the mapped files (the blob finds them at mfd[src_mfile + src - 1]). */
static int add_page_srcs(struct rst_task *t, uint32_t *first, struct cr_err *e)
{
	*first = (uint32_t)t->nr_mfiles;
	if (!t->pm.nr_src)
		return 0;
	if (t->pm.nr_src > UINT16_MAX)
		return cr_fail_errno(e, E2BIG, "pagemap-%d.img: a chain of %u levels", t->pid, t->pm.nr_src);
	struct rst_mfile *n = img_arena_alloc(t->arena, (t->nr_mfiles + t->pm.nr_src + 1) * sizeof(*n));
	if (!n)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	if (t->nr_mfiles)
		memcpy(n, t->mfiles, t->nr_mfiles * sizeof(*n));
	if (!t->arena) /* (else the old one stays in it) */
		free(t->mfiles);
	t->mfiles = n;
	for (uint32_t k = 0; k < t->pm.nr_src; k++)
		t->mfiles[t->nr_mfiles++] = (struct rst_mfile){
		    "the pages of a parent images dir", O_RDONLY, t->pm.src[k].fd, 0, false, NULL};
	return 0;
}

static void layout(const struct rst_task *t, size_t task_bytes, struct area_layout *l)
{
	uint64_t psz = page_size();
	size_t park = 0;
	for (int k = 0; k < RST_NR_SPECIAL; k++)
		park += t->cur_special[k].len;
	l->code = 0;
	l->args = round_up((uint64_t)blob_size(), psz);
	l->vmas = l->args + round_up(sizeof(struct rst_args), 64);
	l->blocks = l->vmas + round_up((t->mm->n_vmas + 1) * sizeof(struct rst_vma), 64);
	l->unmap = l->blocks + round_up((t->pm.nr + t->mm->n_vmas + 1) * sizeof(struct rst_pblock), 64);
	size_t ng = 0;
	for (size_t i = 0; i < t->mm->n_vmas; i++)
		ng += t->mm->vmas[i]->n_guards / 2;
	l->guards = l->unmap + RST_MAX_UNMAP * sizeof(struct rst_range);
	l->mpols = l->guards + round_up((ng + 1) * sizeof(struct rst_range), 64);
	l->mfd = l->mpols + round_up((rst_mpol_count(t) + 1) * sizeof(struct rst_vma_mpol), 64);
	l->task = l->mfd + round_up((t->nr_mfiles + 1) * sizeof(int32_t), 64);
	l->park = round_up(l->task + task_bytes, psz);
	l->stack = l->park + park;
	l->total = l->stack + RST_STACK_SIZE;
}

static int area_build(struct rst_task *t, struct self_maps *sm, struct cr_err *e)
{
	struct area_layout l;
	uint64_t addr;
	size_t blob_len = blob_size();
	size_t insn_len;
	const uint8_t *insn = arch_syscall_insn(&insn_len);

	if (blob_len < RST_OFF_SYSCALL + insn_len ||
	    memcmp(crshim_restorer_blob + RST_OFF_SYSCALL, insn, insn_len))
		return cr_fail_errno(e, EINVAL, "the restorer blob has no syscall instruction at offset %d",
				     RST_OFF_SYSCALL);
	uint32_t src_mfile;
	if (add_page_srcs(t, &src_mfile, e))
		return -1;
	layout(t, rst_task_bytes(t), &l);
	void *p = map_area(t, sm, l.total, &addr, e);
	if (!p)
		return -1;
	t->area = p;
	t->area_len = l.total;
	memcpy(p, crshim_restorer_blob, blob_len);
	struct rst_args *a = t->args = (struct rst_args *)((char *)p + l.args);
	a->magic = RST_MAGIC;
	a->version = RST_VERSION;
	a->size = sizeof(*a);
	a->area_start = addr;
	a->area_len = l.total;
	a->stack_top = addr + l.total;
	a->vmas = addr + l.vmas;
	a->blocks = addr + l.blocks;
	a->unmap = addr + l.unmap;
	a->guards = addr + l.guards;
	a->vma_mpols = addr + l.mpols;
	a->nr_vma_mpols = (uint32_t)rst_mpol_fill(t, (struct rst_vma_mpol *)((char *)p + l.mpols));
	a->mfd = addr + l.mfd;
	a->nr_mfiles = (uint32_t)t->nr_mfiles;
	a->pages_fd = -1;
	a->src_mfile = src_mfile;
	a->fault = t->fault; /* the blob cannot log: say here that its degrade points are on */
	if (!fault_hit(t->fault, FI_NO_POPULATE) && !fault_hit(t->fault, FI_NO_TIMER_RESTORE_IDS))
		fault_hit(t->fault, FI_TIMER_SIGNALS_EARLY);
	const char *thp = getenv("CRSHIM_THP");
	a->use_thp = thp && !strcmp(thp, "1"); /* experimental */
	if (fill_vmas(t, (struct rst_vma *)((char *)p + l.vmas), (struct rst_pblock *)((char *)p + l.blocks),
		      e) ||
	    fill_guards(t, (struct rst_range *)((char *)p + l.guards), e) ||
	    fill_specials(t, addr + l.park) || fill_mm(t, e) || rst_args_task(t, (char *)p + l.task, e))
		return -1;
	if (mprotect(p, l.args, PROT_READ | PROT_EXEC))
		return cr_fail_sys(e, "mprotect the restorer code");
	pr_info("restore area 0x%llx-0x%llx: %u vmas, %u page runs\n", (unsigned long long)addr,
		(unsigned long long)(addr + l.total), a->nr_vmas, a->nr_blocks);
	return 0;
}

int rst_areas_build(struct rst_task *ts, size_t n, struct cr_err *e)
{
	struct self_maps sm = {0};
	int ret = 0;
	for (size_t i = 0; !ret && i < n; i++)
		if (!ts[i].zombie && !ts[i].helper)
			ret = area_build(&ts[i], &sm, e);
	free(sm.iv);
	return ret;
}

void rst_area_free(struct rst_task *t)
{
	if (t->area)
		munmap(t->area, t->area_len);
	t->area = NULL;
	t->args = NULL;
}

static int add_range(struct rst_args *a, uint64_t s, uint64_t e)
{
	struct rst_range *u = (struct rst_range *)(uintptr_t)a->unmap;
	if (s >= e)
		return 0;
	if (a->nr_unmap && u[a->nr_unmap - 1].start + u[a->nr_unmap - 1].len == s) {
		u[a->nr_unmap - 1].len += e - s; /* one munmap for neighbours (one TLB flush each) */
		return 0;
	}
	if (a->nr_unmap == RST_MAX_UNMAP)
		return -1;
	u[a->nr_unmap++] = (struct rst_range){s, e - s};
	return 0;
}

/* [s, e) minus the prefilled VMAs (a maps line may hold one merged with crshim's own memory). */
static int add_unmap(struct rst_task *t, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < t->mm->n_vmas && s < e; i++) {
		const VmaEntry *v = t->mm->vmas[i];
		if (!t->vma_prefilled[i] || v->end <= s || v->start >= e)
			continue;
		if (add_range(t->args, s, v->start < e ? v->start : e))
			return -1;
		s = v->end;
	}
	return s < e ? add_range(t->args, s, e) : 0;
}

/* Child, last step before the jump (no allocation: the list goes into the area, the text into the stack
 * area, which is not in use yet). Everything but the area, the vDSO blocks and [vsyscall] goes. */
int rst_child_fill_unmap(struct rst_task *t, char *msg, size_t msglen)
{
	struct rst_args *a = t->args;
	char *buf = (char *)(uintptr_t)(a->stack_top - RST_STACK_SIZE);
	size_t len = 0;
	/* (its mount tree may have no /proc; a sharer of an fd table opened it in its turn:
	 * restore-fdtable.c) */
	int fd = t->maps_fd > 0 ? t->maps_fd : rst_self_proc_open("maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return snprintf(msg, msglen, "open /proc/self/maps: %s", strerror(errno)), -1;
	for (ssize_t n; len < RST_STACK_SIZE - 1 &&
			(n = pread(fd, buf + len, RST_STACK_SIZE - 1 - len, (off_t)len)) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	if (fd != t->maps_fd) /* (a sharer's goes with its range, in the blob) */
		close(fd);
	buf[len] = '\0';
	a->nr_unmap = 0;
	for (char *line = buf, *nl; *line; line = nl + 1) {
		uint64_t s, en;
		const char *name;
		nl = strchr(line, '\n');
		if (!nl)
			return snprintf(msg, msglen, "/proc/self/maps: too long"), -1;
		*nl = '\0';
		if (parse_maps_line(line, &s, &en, &name))
			continue;
		int k = special_slot(name);
		if (k >= 0) {
			a->special[k].cur = s;
			continue;
		}
		if (!strcmp(name, "[vsyscall]") ||
		    (s >= a->area_start && en <= a->area_start + a->area_len) ||
		    rst_svm_keep(a, s, en)) /* the areas of the processes sharing its address space */
			continue;
		if (add_unmap(t, s, en)) /* all of it but the prefilled VMAs */
			return snprintf(msg, msglen, "too many mappings to remove"), -1;
	}
	return 0;
}
