/* posix_timer_fault_count.h, the fault mode's dump with --leave-running (fault-dump-opts: -R): a failed one
 * leaves the timer alone (its overrun count still 2) and says nothing of it. */
#include "posix_timer_fault_count.h"

int main(int argc, char **argv)
{
	return fault_count_main(argc, argv, 1);
}
