/* posix_timer_abstime in a time namespace of its own whose monotonic and boottime clocks are 1000 and 2000
 * days ahead of the host's: the expiries kept are those of its clocks. */
#define PT_TIMENS "monotonic 86400000 500\nboottime 172800000 700\n"
#include "posix_timer_abstime.c"
