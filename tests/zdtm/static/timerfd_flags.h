/* What the timerfd tests share: the settime flags /proc/PID/fdinfo shows for a timerfd. */
#ifndef ZDTM_TIMERFD_FLAGS_H
#define ZDTM_TIMERFD_FLAGS_H
#include <stdio.h>
#include <sys/timerfd.h>

#ifndef TFD_TIMER_CANCEL_ON_SET
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#endif

/* fdinfo's "settime flags" of fd (octal there; -1: none) */
static inline int tfd_settime_flags(int fd)
{
	char path[64], line[256];
	unsigned v;
	int r = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "settime flags: %o", &v) == 1)
			r = (int)v;
	fclose(f);
	return r;
}
#endif
