/* Growing arrays: room for one more element. */
#ifndef CRSHIM_BASE_ARRAY_H
#define CRSHIM_BASE_ARRAY_H

#include <stddef.h>

/* arrp points to the array's pointer (of any element type), *cap is its capacity in elements, n how many are
 * used. When n reaches *cap the array is reallocated to twice *cap (first for an empty one). 0, or -1 with
 * errno ENOMEM (the array and *cap unchanged). */
int arr_room(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);

/* arrp points to an array of *n pointers (of any type, such as a protobuf repeated message field, which has
 * no capacity): it is reallocated to one more, which points to a new zeroed object of size bytes, counted in
 * *n. The object, or NULL with errno ENOMEM (*n unchanged; the array may have been moved). */
void *arr_append_new(void *arrp, size_t *n, size_t size);

#endif
