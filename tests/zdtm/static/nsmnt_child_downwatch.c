/* nsmnt_child_downfile with an inotify watch of the root of a tmpfs only the child's namespace has instead
 * of an open file (CRIU's inotify01). */
#define NSMNT_DOWN_WATCH 1
#include "nsmnt_child_downfile.c"
