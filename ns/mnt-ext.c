/* External mounts: the mounts of the tree that come from outside it, which the restore binds from paths
 * of crshim's mount namespace. At dump, --external mnt[] finds them by themselves: each mount of a
 * filesystem the tree cannot make again (or a part of one it does not see, or a memory filesystem crshim's
 * namespace mounts too) that crshim's namespace shows is made external, keyed by its mount point, with the
 * path it was found at (mnt_entry.ext_auto); restore --ext-mount-map auto binds it from there. A mount that
 * was a slave of a peer group outside the tree (or shared with one) is linked to it again at restore,
 * through crshim's clone of its source (made before the tree: the root task's namespace is private). */
#define LOG_PREFIX "mnt-ext: "
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "mnt-int.h"

/* ---------------------------------------------------------------- dump: --external mnt[] */

static bool memory_fs(const char *t)
{
	return !strcmp(t, "tmpfs") || !strcmp(t, "ramfs");
}

static bool host_has_dev(MntEntry **h, size_t nh, uint32_t dev)
{
	for (size_t k = 0; k < nh; k++)
		if (h[k]->dev == dev)
			return true;
	return false;
}

/* Is mount i from outside the tree: a part of the root's filesystem the root does not show, or of a
 * filesystem whose widest mount in the tree (the named external ones left out) is one the restore cannot
 * make anew, a memory filesystem crshim's namespace mounts too (a copy would part from it), or shows less. */
static bool from_outside(MntEntry **m, size_t n, size_t i, const bool *named, MntEntry **h, size_t nh)
{
	if (m[i]->dev == m[0]->dev)
		return !ns_mnt_under(m[i]->root, m[0]->root);
	const MntEntry *first = m[i];
	for (size_t j = 1; j < n; j++)
		if (m[j]->dev == m[i]->dev && !named[j] && strlen(m[j]->root) < strlen(first->root))
			first = m[j];
	if (!ns_mnt_fresh_type(first->fstype) ||
	    (memory_fs(first->fstype) && host_has_dev(h, nh, first->dev)))
		return true;
	return !ns_mnt_under(m[i]->root, first->root);
}

/* Is x (of crshim's namespace) in m's peer group or in its master's? */
static bool same_group(const MntEntry *x, const MntEntry *m)
{
	return (m->shared && x->shared == m->shared) ||
	       (m->master && (x->shared == m->master || x->master == m->master));
}

/* Where crshim's namespace shows m's root: through a mount of the same filesystem whose root holds it, one
 * of m's peer group (or its master's) first, then the one with the deepest root; the path must lead to that
 * filesystem (not to a mount over it). *hm: that mount. */
static bool host_path(MntEntry **h, size_t nh, const MntEntry *m, char *out, size_t len, const MntEntry **hm)
{
	long best = -1;
	for (size_t k = 0; k < nh; k++) {
		const MntEntry *x = h[k];
		char p[PATH_MAX];
		struct stat st;
		if (x->dev != m->dev || !ns_mnt_under(m->root, x->root))
			continue;
		const char *rest = m->root + (strcmp(x->root, "/") ? strlen(x->root) : 0);
		int l = snprintf(p, sizeof(p), "%s%s", strcmp(x->mountpoint, "/") ? x->mountpoint : "", rest);
		if (l < 0 || (size_t)l >= sizeof(p) || stat(*p ? p : "/", &st) ||
		    (uint32_t)st.st_dev != m->dev)
			continue;
		long score = (long)strlen(x->root) + (same_group(x, m) ? PATH_MAX : 0);
		if (score > best) {
			best = score, *hm = x;
			snprintf(out, len, "%s", *p ? p : "/");
		}
	}
	return best >= 0;
}

static bool group_in_tree(MntEntry **m, size_t n, uint32_t g)
{
	for (size_t j = 0; g && j < n; j++)
		if (m[j]->shared == g)
			return true;
	return false;
}

/* As CRIU: a shared mount is made external automatically only with --enable-external-sharing, a slave of a
 * group outside the tree only with --enable-external-masters. */
static int may_be_external(const struct cr_opts *o, MntEntry **m, size_t n, size_t i, struct cr_err *e)
{
	const MntEntry *x = m[i];
	if (x->shared && !o->ext_sharing)
		return cr_fail(
		    e,
		    "mount %s comes from outside the tree and is shared (peer group %u): make it "
		    "external with --enable-external-sharing (or --external mnt[]:s), or name it with "
		    "--external mnt[%s]:KEY",
		    x->mountpoint, x->shared, x->mountpoint);
	if (x->master && !group_in_tree(m, n, x->master) && !o->ext_masters)
		return cr_fail(
		    e,
		    "mount %s comes from outside the tree and is a slave of peer group %u outside it: "
		    "make it external with --enable-external-masters (or --external mnt[]:m), or name "
		    "it with --external mnt[%s]:KEY",
		    x->mountpoint, x->master, x->mountpoint);
	return 0;
}

/* Mount i from outside the tree that crshim's namespace does not show: a memory filesystem (a part the tree
 * holds whole) is saved as a copy (0); a mount the restore could not make from the images fails the dump
 * with one line (-1). */
static int nowhere(MntEntry **m, size_t n, size_t i, const bool *named, struct cr_err *e)
{
	const MntEntry *x = m[i], *first = x;
	for (size_t j = 1; j < n; j++)
		if (m[j]->dev == x->dev && !named[j] && strlen(m[j]->root) < strlen(first->root))
			first = m[j];
	if (x->dev != m[0]->dev && ns_mnt_fresh_type(first->fstype) && ns_mnt_under(x->root, first->root)) {
		pr_info(
		    "mount %s (%s): its filesystem is mounted outside too, but crshim sees no path to its "
		    "root: its files are saved\n",
		    x->mountpoint, x->fstype);
		return 0;
	}
	return cr_fail(
	    e,
	    "mount %s (%s from %s, root %s) comes from outside the tree and crshim's mount namespace "
	    "shows no path to it (--external mnt[]): name it with --external mnt[%s]:KEY",
	    x->mountpoint, x->fstype, x->source, x->root, x->mountpoint);
}

int ns_mnt_ext_auto(const struct cr_opts *o, MntEntry **m, size_t n, char **arena, struct cr_err *e)
{
	if (!o->ext_mnt_auto || n < 2)
		return 0;
	MntEntry **h;
	size_t nh;
	void *keep;
	if (ns_mnt_own_table(&h, &nh, &keep, e))
		return -1;
	bool *named = calloc(n, sizeof(*named));
	char *a = *arena = calloc(n, PATH_MAX);
	int ret = 0;
	if (!named || !a)
		ret = cr_fail_errno(e, ENOMEM, "out of memory");
	for (size_t i = 0; !ret && i < n; i++)
		named[i] = m[i]->ext_key != NULL;
	for (size_t i = 1; !ret && i < n; i++) {
		const MntEntry *hm = NULL;
		char *p = a + i * PATH_MAX;
		if (named[i] || !from_outside(m, n, i, named, h, nh))
			continue;
		if (!host_path(h, nh, m[i], p, PATH_MAX, &hm)) {
			if ((ret = nowhere(m, n, i, named, e)))
				break;
			continue;
		}
		if ((ret = may_be_external(o, m, n, i, e)))
			break;
		m[i]->ext_key = m[i]->mountpoint;
		m[i]->ext_auto = p;
		pr_info("mount %u at %s (%s, root %s): external, its source found at %s (mount %u)\n",
			m[i]->mnt_id, m[i]->mountpoint, m[i]->fstype, m[i]->root, p, hm->mnt_id);
	}
	free(named);
	ns_mnt_own_free(h, nh, keep);
	return ret;
}

void ns_mnt_ext_binds(MntEntry **m, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		const MntEntry *x = NULL;
		if (m[i]->ext_key || m[i]->dev == m[0]->dev)
			continue;
		for (size_t j = 1; j < n; j++)
			if (m[j]->ext_key && m[j]->dev == m[i]->dev && ns_mnt_under(m[i]->root, m[j]->root) &&
			    (!x || strlen(m[j]->root) < strlen(x->root)))
				x = m[j];
		if (!x)
			continue;
		m[i]->fs_of = x->mnt_id, m[i]->has_fs_of = 1;
		m[i]->fs_root = x->root;
		pr_info("mount %u at %s (%s, root %s): a bind of external mount %s\n", m[i]->mnt_id,
			m[i]->mountpoint, m[i]->fstype, m[i]->root, x->mountpoint);
	}
}

/* ---------------------------------------------------------------- restore */

/* A source path as crshim's mount namespace sees it: a relative one from its root, as CRIU takes it. */
static const char *abs_src(const char *p, char *buf, size_t len)
{
	if (p[0] == '/')
		return p;
	snprintf(buf, len, "/%s", p);
	return buf;
}

int ns_mnt_ext_clone(const struct ns_mnt_state *s, size_t f, const MntEntry *m)
{
	char buf[PATH_MAX], p[PATH_MAX];
	const MntEntry *x = s->m[f];
	if (!s->src[f]) { /* the dump's check: made from nothing */
		errno = ENOENT;
		return -1;
	}
	const char *src = abs_src(s->src[f], buf, sizeof(buf)),
		   *rest = m == x ? "" : m->root + (strcmp(x->root, "/") ? strlen(x->root) : 0);
	if ((size_t)snprintf(p, sizeof(p), "%s%s", src, rest) >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return (int)syscall(SYS_open_tree, AT_FDCWD, p, OPEN_TREE_CLONE | O_CLOEXEC);
}

const char *ns_mnt_ext_opt(const struct cr_opts *o, const char *key)
{
	size_t l = strlen(key);
	for (int i = 0; i < o->n_external; i++) {
		const char *x = o->external[i];
		if (!strncmp(x, "mnt[", 4) && !strncmp(x + 4, key, l) && !strncmp(x + 4 + l, "]:", 2))
			return x + 6 + l;
	}
	return NULL;
}

/* --external mnt[KEY]:PATH (or --ext-mount-map KEY:PATH) */
static const char *ext_path(const struct cr_opts *o, const char *key)
{
	size_t l = strlen(key);
	const char *p = ns_mnt_ext_opt(o, key);
	if (p)
		return p;
	for (int i = 0; i < o->n_ext_mount_map; i++) {
		const char *x = o->ext_mount_map[i];
		if (!strncmp(x, key, l) && x[l] == ':')
			return x + l + 1;
	}
	return NULL;
}

int ns_mnt_ext_source(const struct cr_opts *o, const MntEntry *m, const char **src, struct cr_err *e)
{
	*src = ext_path(o, m->ext_key);
	if (!*src && m->ext_auto && o->ext_mnt_auto)
		*src = m->ext_auto;
	if (*src && !o->live_root)
		return 0;
	*src = NULL;
	if (o->live_root) { /* the dump's check: nothing is made from it */
		pr_info("mount %s is external (key %s): the live tree's stands in for its source\n",
			m->mountpoint, m->ext_key);
		return 0;
	}
	if (m->ext_auto)
		return cr_fail(
		    e,
		    "mount %s was made external by the dump's --external mnt[] (found at %s): restore "
		    "with --ext-mount-map auto, or give its source with --external mnt[%s]:PATH",
		    m->mountpoint, m->ext_auto, m->ext_key);
	return cr_fail(e,
		       "mount %s is external (key %s): give its source with --external mnt[%s]:PATH or "
		       "--ext-mount-map %s:PATH",
		       m->mountpoint, m->ext_key, m->ext_key, m->ext_key);
}

/* How mount i goes back to a peer group outside the tree, judged by the mount its source is on (hx, of
 * crshim's namespace): a slave of hx's group (or of hx's master) when it was a slave of a group not in the
 * tree, a peer of hx when it was in hx's group. */
static enum ns_mnt_out out_kind(const struct ns_mnt_state *s, size_t i, const MntEntry *hx)
{
	const MntEntry *m = s->m[i];
	bool master_in = false;
	for (size_t j = 0; m->master && j < s->n; j++)
		master_in |= s->m[j]->shared == m->master;
	if (m->master && !master_in && (hx->shared || hx->master))
		return NS_MNT_OUT_SLAVE;
	if (m->shared && hx->shared == m->shared)
		return NS_MNT_OUT_PEER;
	return NS_MNT_OUT_NONE;
}

/* The mount of crshim's namespace that path is on. */
static const MntEntry *mount_of(MntEntry **h, size_t nh, const char *path)
{
	struct statx sx;
	if (syscall(SYS_statx, AT_FDCWD, path, 0, STATX_MNT_ID, &sx) || !(sx.stx_mask & STATX_MNT_ID))
		return NULL;
	for (size_t k = 0; k < nh; k++)
		if (h[k]->mnt_id == sx.stx_mnt_id)
			return h[k];
	return NULL;
}

/* Where crshim's namespace has mount i, when it was a slave of a group (or, external, shared with one) not
 * in the tree: an external mount's source; the root, and a bind of its filesystem that was only a slave,
 * under --root (as the restore makes them). NULL otherwise. */
static const char *out_source(const struct ns_mnt_state *s, const struct cr_opts *o, size_t i, char *buf,
			      size_t len)
{
	const MntEntry *m = s->m[i], *r = s->m[0];
	if ((!m->master && !m->shared) || (!m->ext_key && m->shared))
		return NULL;
	if (m->ext_key)
		return s->src[i] ? abs_src(s->src[i], buf, len) : NULL;
	if (!i || !o->root || m->fs_of != r->mnt_id || !ns_mnt_under(m->root, r->root))
		return i ? NULL : o->root;
	const char *rest = m->root + (strcmp(r->root, "/") ? strlen(r->root) : 0);
	return (size_t)snprintf(buf, len, "%s%s", o->root, rest) < len ? buf : NULL;
}

int ns_mnt_ext_host(struct ns_mnt_state *s, const struct cr_opts *o, struct cr_err *e)
{
	s->host = malloc(s->n * sizeof(*s->host));
	s->hsrc = calloc(s->n, sizeof(*s->hsrc));
	s->out = calloc(s->n, sizeof(*s->out));
	if (!s->host || !s->hsrc || !s->out)
		return cr_fail_errno(e, ENOMEM, "out of memory");
	bool any = false;
	for (size_t i = 0; i < s->n; i++) {
		char buf[PATH_MAX];
		s->host[i] = -1;
		any |= out_source(s, o, i, buf, sizeof(buf)) != NULL;
	}
	if (!any || o->check_only || o->live_root)
		return 0;
	MntEntry **h;
	size_t nh;
	void *keep;
	int ret = 0;
	if (ns_mnt_own_table(&h, &nh, &keep, e))
		return -1;
	for (size_t i = 0; i < s->n && !ret; i++) {
		char buf[PATH_MAX];
		const char *src = out_source(s, o, i, buf, sizeof(buf));
		const MntEntry *hx = src ? mount_of(h, nh, src) : NULL;
		if (!hx || !(s->out[i] = (uint8_t)out_kind(s, i, hx)))
			continue;
		s->host[i] = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | O_CLOEXEC);
		s->hsrc[i] = strdup(src);
		if (s->host[i] < 0)
			ret = cr_fail_sys(e, "mount %s: clone its source %s", s->m[i]->mountpoint, src);
		else if (!s->hsrc[i])
			ret = cr_fail_errno(e, ENOMEM, "out of memory");
		else
			pr_info("mount %s: %s peer group %u outside the tree (mount %u at %s, master %u)\n",
				s->m[i]->mountpoint,
				s->out[i] == NS_MNT_OUT_SLAVE ? "a slave of the" : "back in the", hx->shared,
				hx->mnt_id, hx->mountpoint, hx->master);
	}
	ns_mnt_own_free(h, nh, keep);
	return ret;
}

void ns_mnt_ext_free(struct ns_mnt_state *s)
{
	for (size_t i = 0; s->host && i < s->n; i++) {
		if (s->host[i] >= 0)
			close(s->host[i]);
		free(s->hsrc[i]);
	}
	free(s->host), free(s->hsrc), free(s->out);
}

void ns_mnt_ext_own(const struct ns_mnt_state *s, int *own)
{
	for (size_t i = 0; i < s->n; i++)
		own[i] = s->host && s->host[i] >= 0 && s->hsrc[i]
			     ? (int)syscall(SYS_open_tree, AT_FDCWD, s->hsrc[i], OPEN_TREE_CLONE | O_CLOEXEC)
			     : -1;
}

int ns_mnt_ext_link(const struct ns_mnt_state *s, size_t i, int fd, int own, char *msg, size_t len)
{
	if (!s->host || s->host[i] < 0)
		return 0;
	const MntEntry *m = s->m[i];
	if (ns_mnt_join_fd(s->host[i], fd)) {
		if (errno != EPERM) {
			snprintf(msg, len, "mount %s: join its peer group outside the tree: %s",
				 m->mountpoint, strerror(errno));
			return -1;
		}
		/* crshim's clone, from a user namespace: its own clone, a slave of the group (if the copy
		 * of the namespace had it so: else the kernel refuses a private one, EINVAL) */
		if (own >= 0 && !ns_mnt_join_fd(own, fd)) {
			if (s->out[i] == NS_MNT_OUT_PEER && ns_mnt_prop_fd(fd, MS_SHARED)) {
				snprintf(msg, len, "mount %s: make it shared: %s", m->mountpoint,
					 strerror(errno));
				return -1;
			}
			pr_info("mount %s: a slave of its peer group outside the tree (from this user "
				"namespace%s)\n",
				m->mountpoint,
				s->out[i] == NS_MNT_OUT_PEER ? "; was a peer: shared again" : "");
			return 1;
		}
		return 0; /* left out of the group */
	}
	if (s->out[i] == NS_MNT_OUT_SLAVE && ns_mnt_prop_fd(fd, MS_SLAVE)) {
		snprintf(msg, len, "mount %s: make it a slave of its peer group outside the tree: %s",
			 m->mountpoint, strerror(errno));
		return -1;
	}
	return 1;
}
