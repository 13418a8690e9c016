/* nsmnt_ghostfile_bindrmdir with the first fd (fd 7, for which the ghost is made) on the bind: the ghost is
 * made at /nsmnt_gfr2/b/d/f on the bind's mount (b/d made again); the tmpfs's fd (fd 8, p/d/f) is opened by
 * its own name in that directory as the tmpfs shows it (/nsmnt_gfr2/p/d), kept till it has its fds. */
#define BINDRMDIR_GHOST_ON_BIND 1
#include "nsmnt_ghostfile_bindrmdir.c"
