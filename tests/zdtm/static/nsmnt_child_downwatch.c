/* nsmnt_child_downfile with an inotify watch of the directory of the child's tmpfs instead of an open file
 * (CRIU's inotify01): refused at dump with one line. */
#define NSMNT_DOWN_WATCH 1
#include "nsmnt_child_downfile.c"
