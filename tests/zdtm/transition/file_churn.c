/* Files written all the time: a loop appends fixed-size sequence records to
 * one file through an O_APPEND fd and to another through a plain fd (offset
 * moves). After restore and SIGTERM both files hold exactly records 1..N with
 * no gap or duplicate, and the plain fd's offset is at the end of the last one. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

#define REC 16

static int verify(const char *name, unsigned long n)
{
	char *buf, want[32];
	ssize_t len = read_file(name, &buf);
	unsigned long i;

	if (len != (ssize_t)(n * REC)) {
		fail("%s: %zd bytes, want %lu records (%lu bytes)", name, len, n, n * REC);
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "rec %011lu\n", (i + 1) % 100000000000UL);
		if (memcmp(buf + i * REC, want, REC)) {
			fail("%s: record %lu is '%.15s'", name, i + 1, buf + i * REC);
			return -1;
		}
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	volatile unsigned long n = 0;
	char rec[32];
	int fa, fp;

	test_init(argc, argv);
	fa = open("churn_append.data", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	fp = open("churn_plain.data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fa < 0 || fp < 0) {
		fail("open");
		return 1;
	}
	test_daemon();
	while (test_go()) {
		/* the record number is decided before the writes: a dump between the
		 * two writes or after them must not lose or repeat a record */
		unsigned long k = n + 1;
		snprintf(rec, sizeof(rec), "rec %011lu\n", k % 100000000000UL);
		if (write(fa, rec, REC) != REC || write(fp, rec, REC) != REC) {
			fail("write %lu", k);
			break;
		}
		n = k;
		if ((k & 63) == 0)
			usleep(1000);
	}
	if (lseek(fp, 0, SEEK_CUR) != (off_t)(n * REC))
		fail("plain fd offset %ld, want %lu", (long)lseek(fp, 0, SEEK_CUR), n * REC);
	verify("churn_append.data", n);
	verify("churn_plain.data", n);
	test_msg("%lu records", n);
	pass();
	return 0;
}
