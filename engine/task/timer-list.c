/* How CLOCK_REALTIME POSIX timers were armed (relative or TIMER_ABSTIME), read from /proc/timer_list. */
#define LOG_PREFIX "timer-list: "
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "task/timer-list.h"

struct tl_entry {
	int base;
	int64_t expires;
};

struct tl_list {
	struct tl_entry *v;
	size_t n, cap;
	int64_t real_offset; /* CLOCK_REALTIME less CLOCK_MONOTONIC (base 1's .offset) */
};

static int tl_add(struct tl_list *l, int base, int64_t expires)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct tl_entry *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v, l->cap = cap;
	}
	l->v[l->n++] = (struct tl_entry){base, expires};
	return 0;
}

/* The posix_timer_fn hrtimers of the list (bases 0 and 1) and base 1's offset; -1: not read. */
static int tl_read(struct tl_list *l)
{
	__cleanup_fclose FILE *f = fopen("/proc/timer_list", "re");
	__cleanup_free char *line = NULL;
	size_t len = 0;
	int base = -1, posix = 0, offset_seen = 0;
	long long v, soft;
	if (!f) {
		pr_warn("/proc/timer_list: %s: whether a CLOCK_REALTIME timer was armed relative is not "
			"known: it is restored armed absolute (at its expiry)\n",
			strerror(errno));
		return -1;
	}
	while (getline(&line, &len, f) > 0) {
		if (sscanf(line, " clock %d:", &base) == 1 || strstr(line, "cpu:")) {
			posix = 0;
			continue;
		}
		if (base == 1 && !offset_seen && sscanf(line, " .offset: %lld", &v) == 1) {
			l->real_offset = v, offset_seen = 1;
			continue;
		}
		if (strstr(line, "posix_timer_fn")) {
			posix = 1;
			continue;
		}
		if (posix && (base == 0 || base == 1) &&
		    sscanf(line, " # expires at %lld-%lld", &soft, &v) == 2 && tl_add(l, base, soft))
			return -1;
		posix = 0;
	}
	return offset_seen ? 0 : -1;
}

void timer_list_modes(int64_t *at, const int64_t *read_ns, int *mode, size_t n)
{
	const int64_t before = 100000, after = 5000000; /* ns around at (and the read's time) */
	struct tl_list l = {NULL, 0, 0, 0};
	size_t asked = 0;
	for (size_t i = 0; i < n; i++)
		mode[i] = TIMER_MODE_UNKNOWN, asked += at[i] != 0;
	if (!asked || tl_read(&l)) {
		free(l.v);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int found[2] = {0, 0};
		int64_t exact = 0;
		for (size_t k = 0; at[i] && k < l.n; k++) {
			int64_t d; /* (a timer armed for ever, near KTIME_MAX: no overflow) */
			if (__builtin_sub_overflow(l.v[k].expires, at[i], &d) ||
			    __builtin_add_overflow(d, l.v[k].base ? 0 : l.real_offset, &d) || d < -before ||
			    d > after + (read_ns[i] > 0 ? read_ns[i] : 0))
				continue;
			found[l.v[k].base]++;
			exact = at[i] + d;
		}
		if (!found[0] == !found[1])
			continue;
		mode[i] = found[0] ? TIMER_MODE_REL : TIMER_MODE_ABS;
		if (found[0] + found[1] == 1)
			at[i] = exact;
	}
	free(l.v);
}

int64_t timer_ns_sum(int64_t sec, int64_t nsec, int64_t vsec, int64_t vnsec)
{
	int64_t s, ns;
	if (__builtin_add_overflow(sec, vsec, &s) || __builtin_mul_overflow(s, 1000000000LL, &ns) ||
	    __builtin_add_overflow(ns, nsec, &ns) || __builtin_add_overflow(ns, vnsec, &ns))
		return INT64_MAX;
	return ns;
}
