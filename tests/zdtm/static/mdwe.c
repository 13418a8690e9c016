/* Memory-deny-write-execute (prctl PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, Linux 6.3; cannot be undone): after
 * restore PR_GET_MDWE says it again and a writable executable mapping is still refused (EACCES); a plain one
 * is still allowed. */
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "zdtmtst.h"

#define SET_MDWE 65
#define GET_MDWE 66
#define REFUSE_EXEC_GAIN 1

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (prctl(SET_MDWE, REFUSE_EXEC_GAIN, 0, 0, 0)) {
		if (errno == EINVAL)
			test_skip("no PR_SET_MDWE (Linux 6.3+)");
		fail("PR_SET_MDWE");
		return 1;
	}
	test_daemon();
	test_waitsig();
	int got = prctl(GET_MDWE, 0, 0, 0, 0);
	if (got != REFUSE_EXEC_GAIN)
		fail("PR_GET_MDWE %d, want %d", got, REFUSE_EXEC_GAIN);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		fail("a writable executable mapping is allowed");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail("a plain mapping is refused");
	return test_pass();
}
