/* tree_big with 100 processes (the root, 20 children, 79 grandchildren). */
#include "tree_big.c"
