#include "netns_lock_whole.c"
