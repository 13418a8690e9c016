/* --manage-cgroups none: see cgroup_test.h */
#define CG_KEEP_CHANGED 1
#include "cgroup_test.h"
