/* Arenas of unpacked image records (image.h): bump allocation in mmap'd chunks of their own, so that a fork
 * can leave a whole arena out of the child (MADV_DONTFORK) and its page tables are not copied. The chunks of
 * the arenas of one pool lie next to each other: a child that gets them all has one mapping of them. They are
 * made readable and writable COMMIT_STEP at a time and unmapped with the pool's reservations, when the pool
 * and all its arenas are freed: a munmap (a TLB flush on every CPU crshim ran on, an IPI each in a VM) and an
 * mmap per arena cost 5% of the CPU of a dump of 2000 processes, whose restore check loads two arenas per
 * process (issue 13). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "image/image.h"

#define CHUNK_MIN (64u << 10)
#define SEG_MIN (4u << 20) /* a pool's first reservation; each next one twice the last, up to SEG_MAX */
#define SEG_MAX (256u << 20)
#define COMMIT_STEP (1u << 20) /* of a reservation made readable and writable at once */

struct chunk {
	struct chunk *next;
	size_t len, used;
};

struct img_arena {
	ProtobufCAllocator alloc; /* first: its allocator_data is the arena */
	struct chunk *head;	  /* the chunk allocated from; the others follow */
	struct img_pool *pool;	  /* where its chunks come from, NULL: mmap'd anywhere */
};

/* An earlier reservation of a pool: its part handed out, [start, end). */
struct pool_seg {
	struct pool_seg *next;
	uintptr_t start, end;
};

/* Address space reserved (PROT_NONE) for the chunks of its arenas, from base to end: handed out up to next,
 * readable and writable up to rw. */
struct img_pool {
	uintptr_t base, next, rw, end;
	size_t seg;	      /* the size of the last reservation */
	struct pool_seg *old; /* the earlier ones */
	size_t arenas;	      /* not freed yet */
	bool freed;	      /* img_pool_free was called: unmapped with its last arena */
};

struct img_pool *img_pool_new(void)
{
	return calloc(1, sizeof(struct img_pool));
}

/* Unmap all the pool's reservations (its arenas' chunks with them) and free it. */
static void pool_unmap(struct img_pool *p)
{
	if (p->end > p->base)
		munmap((void *)p->base, p->end - p->base);
	for (struct pool_seg *s = p->old, *next; s; s = next) {
		next = s->next;
		munmap((void *)s->start, s->end - s->start);
		free(s);
	}
	free(p);
}

void img_pool_free(struct img_pool *p)
{
	if (!p)
		return;
	p->freed = true;
	if (!p->arenas)
		pool_unmap(p);
}

/* A new reservation of at least len bytes; the rest of the old one unmapped, its part handed out kept. */
static int pool_reserve(struct img_pool *p, size_t len)
{
	size_t seg = p->seg ? p->seg * 2 : SEG_MIN;
	seg = seg > SEG_MAX ? SEG_MAX : seg;
	seg = seg < len ? len : seg;
	struct pool_seg *old = p->next > p->base ? malloc(sizeof(*old)) : NULL;
	if (p->next > p->base && !old)
		return -1;
	void *r = mmap(NULL, seg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED) {
		free(old);
		return -1;
	}
	if (old) {
		*old = (struct pool_seg){p->old, p->base, p->next};
		p->old = old;
	}
	if (p->end > p->next)
		munmap((void *)p->next, p->end - p->next);
	p->base = p->next = p->rw = (uintptr_t)r, p->end = (uintptr_t)r + seg, p->seg = seg;
	return 0;
}

/* len bytes (page aligned) of the pool, readable and writable: the rest of its reservation, or a new one. */
static void *pool_take(struct img_pool *p, size_t len)
{
	if (p->end - p->next < len && pool_reserve(p, len))
		return NULL;
	if (p->rw - p->next < len) { /* COMMIT_STEP more (or what len needs), within the reservation */
		size_t step = p->next + len - p->rw;
		step = step < COMMIT_STEP ? COMMIT_STEP : step;
		step = step > p->end - p->rw ? p->end - p->rw : step;
		if (mmap((void *)p->rw, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			return NULL;
		p->rw += step;
	}
	void *c = (void *)p->next;
	p->next += len;
	return c;
}

static struct chunk *chunk_new(struct img_pool *p, size_t want)
{
	size_t len = want + sizeof(struct chunk) > CHUNK_MIN ? want + sizeof(struct chunk) : CHUNK_MIN;
	len = (len + 4095) & ~(size_t)4095;
	struct chunk *c = p ? pool_take(p, len)
			    : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!c || c == MAP_FAILED)
		return NULL;
	*c = (struct chunk){.len = len, .used = sizeof(struct chunk)};
	return c;
}

static void *arena_alloc(void *data, size_t size)
{
	struct img_arena *a = data;
	size = (size + 15) & ~(size_t)15;
	if (!a->head || a->head->len - a->head->used < size) {
		struct chunk *c = chunk_new(a->pool, size);
		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)a->head + a->head->used;
	a->head->used += size;
	return p;
}

static void arena_nofree(void *data, void *p)
{
	(void)data, (void)p; /* all at once: img_arena_free */
}

struct img_arena *img_arena_new_in(struct img_pool *p)
{
	struct chunk *c = chunk_new(p, sizeof(struct img_arena));
	if (!c)
		return NULL;
	/* the arena's own struct lives in its first chunk: a child left without it has nothing of it */
	struct img_arena *a = (struct img_arena *)(c + 1);
	c->used += (sizeof(*a) + 15) & ~(size_t)15;
	*a = (struct img_arena){.alloc = {arena_alloc, arena_nofree, a}, .head = c, .pool = p};
	if (p)
		p->arenas++;
	return a;
}

struct img_arena *img_arena_new(void)
{
	return img_arena_new_in(NULL);
}

void *img_arena_alloc(struct img_arena *a, size_t size)
{
	return a ? arena_alloc(a, size) : calloc(1, size);
}

char *img_arena_strdup(struct img_arena *a, const char *s)
{
	if (!a)
		return strdup(s);
	size_t l = strlen(s) + 1;
	char *n = arena_alloc(a, l);
	if (n)
		memcpy(n, s, l);
	return n;
}

ProtobufCAllocator *img_arena_allocator(struct img_arena *a)
{
	return a ? &a->alloc : NULL;
}

void img_arena_fork(const struct img_arena *a, bool copy)
{
	for (struct chunk *c = a ? a->head : NULL; c; c = c->next)
		madvise(c, c->len, copy ? MADV_DOFORK : MADV_DONTFORK);
}

void img_arena_free(struct img_arena *a)
{
	struct img_pool *p = a ? a->pool : NULL;
	if (p) { /* (its chunks go with the pool's reservations) */
		if (!--p->arenas && p->freed)
			pool_unmap(p);
		return;
	}
	struct chunk *c = a ? a->head : NULL;
	while (c) { /* (a is in the last one) */
		struct chunk *next = c->next;
		munmap(c, c->len);
		c = next;
	}
}
