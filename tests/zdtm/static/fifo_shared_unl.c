/* fifo_shared_desc with the FIFO unlinked once open: one open file description of an unlinked FIFO (O_RDWR,
 * 100 bytes in flight) held by the test and a forked child is still one after restore (kcmp KCMP_FILE), its
 * O_NONBLOCK set by the test seen by the child, the data there once. */
#define FIFO_UNLINK 1
#include "fifo_shared_desc.c"
