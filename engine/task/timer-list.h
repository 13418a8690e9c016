/* How a CLOCK_REALTIME POSIX timer was armed, told by the kernel's hrtimer list (/proc/timer_list): one armed
 * relative (timer_settime without TIMER_ABSTIME) sits on the CLOCK_MONOTONIC base ("clock 0") and does not
 * follow clock_settime; one armed with TIMER_ABSTIME sits on the CLOCK_REALTIME base ("clock 1") and does.
 * Nothing else the kernel shows (timer_gettime, /proc/PID/timers) tells them apart. */
#ifndef CRSHIM_TIMER_LIST_H
#define CRSHIM_TIMER_LIST_H

#include <stddef.h>
#include <stdint.h>

enum timer_mode {
	TIMER_MODE_UNKNOWN = 0, /* not armed, expired, list not readable, or no single answer */
	TIMER_MODE_REL = 1,
	TIMER_MODE_ABS = 2,
};

/* mode[i] of the n timers of one task (stopped) whose expiry, read in it, is at[i] (ns of CLOCK_REALTIME;
 * 0: not asked): the posix_timer_fn hrtimer expiring then (within read_ns[i], the time between the clock's
 * read before the timer's and one after it, and 5 ms after: the clock was read before the timer), on the
 * CLOCK_MONOTONIC base (its time plus the base offset of CLOCK_REALTIME) or on the CLOCK_REALTIME one.
 * When that hrtimer is the only one there, at[i] is set to its expiry (ns of CLOCK_REALTIME): the one read
 * in the task is early by the time it waited between the clock's read and the timer's (a task without the
 * batch code, one remote syscall at a time: up to 58 ms at load 38). Never fails: what cannot be told is
 * TIMER_MODE_UNKNOWN (at[i] as it was). */
void timer_list_modes(int64_t *at, const int64_t *read_ns, int *mode, size_t n);

/* A time (sec, nsec) plus a time left (vsec, vnsec), in ns: INT64_MAX (the kernel's KTIME_MAX, which it
 * clamps a timer to) when that overflows, as for a timer armed for ever (zdtm posix_timer_far). */
int64_t timer_ns_sum(int64_t sec, int64_t nsec, int64_t vsec, int64_t vnsec);

#endif
