/* Growing arrays (base/array.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

int arr_room(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap : (first ? first : 1);
	while (ncap <= n)
		ncap *= 2;
	void *old, *p = NULL;
	memcpy(&old, arrp, sizeof(old)); /* the caller's pointer is of its own element type */
	if (elem && ncap <= SIZE_MAX / elem)
		p = realloc(old, ncap * elem);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(arrp, &p, sizeof(p));
	*cap = ncap;
	return 0;
}

void *arr_append_new(void *arrp, size_t *n, size_t size)
{
	void *old, *p = NULL;
	memcpy(&old, arrp, sizeof(old));
	if (*n < SIZE_MAX / sizeof(void *) - 1)
		p = realloc(old, (*n + 1) * sizeof(void *));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(arrp, &p, sizeof(p));
	void *o = calloc(1, size ? size : 1);
	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy((char *)p + *n * sizeof(void *), &o, sizeof(o));
	(*n)++;
	return o;
}
