/* posix_timer_realtime_rel in a task that ignores SIGTRAP: the dump runs its remote syscalls one at a time
 * (no batch code, engine/task/infect.c), so on a loaded machine the task may wait for a CPU between the
 * clock's read and the timer's, and the expiry the dump reads is that much early. Before ec56afa, the dump
 * looked for the timer's hrtimer within 5 ms of it only: under load (run.sh --load 20) 1 run in 8 found
 * none, and the relative timers came back armed absolute (clock base 1). Now the dump reads the clock after
 * the timer too and looks that much further, and takes the expiry of the hrtimer it found
 * (/proc/timer_list) instead of the one it read: no timer may expire more than 20 us before its time (read
 * by the test as the kernel has it, pt_expiry; up to 20 ms after it: the restore's own wait). Before, the
 * restore kept the early one: 30-180 us early at load 12-17 (run.sh --load 2), up to 58 ms at load 38. */
#define PT_SIGTRAP_IGNORED 1
#define PT_EXPIRY_US 20
#define PT_LATE_US 20000 /* (late: a restorer waiting for a CPU under load, not the dump's fault) */
#include "posix_timer_realtime_rel.c"
