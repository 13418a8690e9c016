/* cleanup-attribute helpers: hand a resource over by setting the variable to NULL / -1. */
#ifndef CRSHIM_CLEANUP_H
#define CRSHIM_CLEANUP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>

static inline void cleanup_freep(void *p)
{
	void **pp = p;
	free(*pp);
}
static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
static inline void cleanup_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

struct cr_map {
	void *addr;
	size_t len;
};
static inline void cleanup_munmapp(struct cr_map *m)
{
	if (m->addr && m->addr != MAP_FAILED)
		munmap(m->addr, m->len);
}

#define __cleanup_free __attribute__((cleanup(cleanup_freep)))
#define __cleanup_close __attribute__((cleanup(cleanup_closep)))
#define __cleanup_fclose __attribute__((cleanup(cleanup_fclosep)))
#define __cleanup_closedir __attribute__((cleanup(cleanup_closedirp)))
#define __cleanup_munmap __attribute__((cleanup(cleanup_munmapp)))

/* Hand over ownership: returns the value and disarms the variable. */
#define steal_ptr(p)                                                                                         \
	({                                                                                                   \
		__typeof__(p) __tmp = (p);                                                                   \
		(p) = NULL;                                                                                  \
		__tmp;                                                                                       \
	})
#define steal_fd(fd)                                                                                         \
	({                                                                                                   \
		int __tmp = (fd);                                                                            \
		(fd) = -1;                                                                                   \
		__tmp;                                                                                       \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
