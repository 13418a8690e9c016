/* nsmnt_ghostfile_bindlink with the first fd (fd 7, for which the ghost is made) on the bind: the ghost is
 * made at /nsmnt_gfl2/b/g on the bind's mount; the tmpfs's fd (fd 8, p/f) is opened by the ghost's name in
 * its directory as the tmpfs shows it (/nsmnt_gfl2/q), then linked again at its own name for its open. */
#define BINDLINK_GHOST_ON_BIND 1
#include "nsmnt_ghostfile_bindlink.c"
