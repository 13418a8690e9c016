/* The table of fd kinds (fd-kind.h): the entries every kind's file defines with FD_KIND, gathered by the
 * linker into the section crshim_fd_kinds, put in dump order once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "files/fd-kind.h"

extern const struct fd_kind *const __start_crshim_fd_kinds[];
extern const struct fd_kind *const __stop_crshim_fd_kinds[];

#define MAX_KINDS 64

static const struct fd_kind *sorted[MAX_KINDS];
static size_t nr_sorted;

static int by_prio(const void *a, const void *b)
{
	const struct fd_kind *x = *(const struct fd_kind *const *)a, *y = *(const struct fd_kind *const *)b;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* At start-up, before any thread or child. */
__attribute__((constructor)) static void sort_kinds(void)
{
	size_t total =
	    ((uintptr_t)__stop_crshim_fd_kinds - (uintptr_t)__start_crshim_fd_kinds) / sizeof(void *);
	nr_sorted = 0;
	for (size_t i = 0; i < total && nr_sorted < MAX_KINDS; i++)
		sorted[nr_sorted++] = __start_crshim_fd_kinds[i];
	qsort(sorted, nr_sorted, sizeof(void *), by_prio); /* an array of pointers */
}

const struct fd_kind *const *fd_kinds(size_t *n)
{
	*n = nr_sorted;
	return sorted;
}

const struct fd_kind *fd_kind_of(int k)
{
	size_t n;
	const struct fd_kind *const *all = fd_kinds(&n);
	for (size_t i = 0; i < n; i++)
		if (all[i]->kind == k)
			return all[i];
	return NULL;
}

size_t fd_kind_index(const struct fd_kind *k)
{
	size_t n;
	const struct fd_kind *const *all = fd_kinds(&n);
	for (size_t i = 0; i < n; i++)
		if (all[i] == k)
			return i;
	return n;
}

void *fe_sub_new(FileEntry *fe, FileKind kind, const ProtobufCMessageDescriptor *d, struct cr_err *e)
{
	void *m = calloc(1, d->sizeof_message);
	if (!m) {
		cr_fail_errno(e, ENOMEM, "out of memory");
		return NULL;
	}
	protobuf_c_message_init(d, m);
	fe->kind = kind, fe->has_kind = 1;
	return m;
}
