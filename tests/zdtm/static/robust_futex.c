/* The robust futex list: get_robust_list() gives the same head and length,
 * the head still points at glibc's per-thread list, and a robust mutex held
 * across C/R works. */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct robust_list_head *h0, *h1;
	size_t len0, len1;
	pthread_mutexattr_t a;
	pthread_mutex_t m;

	test_init(argc, argv);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&m, &a);
	if (pthread_mutex_lock(&m))
		fail("lock");
	if (syscall(SYS_get_robust_list, 0, &h0, &len0))
		fail("get_robust_list");
	if (h0->list.next != (void *)&m.__data.__list.__next)
		fail("held robust mutex not on the list before dump");
	test_daemon();
	test_waitsig();

	if (syscall(SYS_get_robust_list, 0, &h1, &len1))
		fail("get_robust_list after");
	if (h1 != h0 || len1 != len0)
		fail("robust list %p/%zu, want %p/%zu", (void *)h1, len1, (void *)h0, len0);
	if (h1->list.next != (void *)&m.__data.__list.__next)
		fail("held robust mutex no longer on the list");
	if (pthread_mutex_unlock(&m) || pthread_mutex_lock(&m) || pthread_mutex_unlock(&m))
		fail("robust mutex ops");
	if (h1->list.next != &h1->list)
		fail("list not empty after unlock");
	pass();
	return 0;
}
