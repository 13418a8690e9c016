/* --manage-cgroups strict: see cgroup_test.h */
#define CG_KEEP_CHANGED 0
#include "cgroup_test.h"
