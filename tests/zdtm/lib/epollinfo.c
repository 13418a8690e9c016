/* What /proc says of an epoll instance's interest list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zdtmtst.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

int epoll_tfds(int fd, char *out, size_t len)
{
	char *buf, *p, ent[16][48];
	size_t off = 0;
	int n = 0;
	out[0] = '\0';
	if (fdinfo_read(fd, &buf) < 0)
		return -1;
	for (p = strstr(buf, "tfd:"); p && n < 16; p = strstr(p + 4, "tfd:")) {
		int t;
		unsigned ev;
		unsigned long long d;
		if (sscanf(p, "tfd: %d events: %x data: %llx", &t, &ev, &d) == 3)
			snprintf(ent[n++], sizeof(ent[0]), "%d:%x:%llx", t, ev, d);
	}
	free(buf);
	qsort(ent, (size_t)n, sizeof(ent[0]), cmp_str);
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s ", ent[i]);
	return n;
}
