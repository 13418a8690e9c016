/* nsmnt_child_ghostdir with the test holding the removed directory too (fd 8, on its own mount): after
 * restore both fds are that removed directory (before, mode cuns refused it at dump with one line: its child
 * made the directory again itself, another inode than the test's). */
#define NSMNT_DIR_HELD 1
#include "nsmnt_child_ghostdir.c"
