/* posix_timer_fault_count.h, a dump without --leave-running: a failed one says the timer's overrun count now
 * reads its taken signal's, and the tree sees that count. */
#include "posix_timer_fault_count.h"

int main(int argc, char **argv)
{
	return fault_count_main(argc, argv, 0);
}
