/* ghost_node_bound with a deleted FIFO (fd 7 O_PATH, fd 6 open for reading and writing). */
#define GHOST_NODE_FIFO 1
#include "ghost_node_bound.c"
