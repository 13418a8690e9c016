/* Unit tests of oci/: config.json and state JSON with yajl, the registry, runc's state, cr.fault. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "oci.h"
#include "base/fault.h"
#include "tap.h"

static const char full[] =
    "{\"ociVersion\":\"1.0.2\",\"hostname\":\"oci-h\",\"root\":{\"path\":\"rootfs\",\"readonly\":true},"
    "\"process\":{\"terminal\":false,\"user\":{\"uid\":1,\"gid\":2,\"additionalGids\":[5,6]},"
    "\"args\":[\"sh\",\"-c\",\"sleep 1\"],\"env\":[\"PATH=/bin\"],\"cwd\":\"/\","
    "\"capabilities\":{\"bounding\":[\"CAP_KILL\"],\"effective\":[\"CAP_KILL\"],\"permitted\":[]},"
    "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":512}],\"noNewPrivileges\":true},"
    "\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
    "{\"destination\":\"/data\",\"type\":\"bind\",\"source\":\"/srv\",\"options\":[\"rbind\",\"ro\"]}],"
    "\"hooks\":{\"poststart\":[{\"path\":\"/bin/true\",\"args\":[\"true\"],\"timeout\":5}]},"
    "\"annotations\":{\"cr.fault\":\"restore-root-only\",\"a\":\"b\"},"
    "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\",\"path\":\"/run/netns/x\"}],"
    "\"uidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":10}],"
    "\"maskedPaths\":[\"/proc/kcore\"],\"readonlyPaths\":[\"/proc/sys\"],\"cgroupsPath\":\"/oci-x\","
    "\"resources\":{\"memory\":{\"limit\":1048576},\"cpu\":{\"shares\":512},\"pids\":{\"limit\":64}},"
    "\"sysctl\":{\"net.ipv4.ip_forward\":\"1\"}}}";

static struct cr_err err;

static int bad(const char *js, const char *want)
{
	cr_err_clear(&err);
	struct oci_config *c = oci_config_parse(js, strlen(js), "b/config.json", &err);
	oci_config_free(c);
	int r = !c && strstr(err.msg, want) && strstr(err.msg, "b/config.json") && !strchr(err.msg, '\n');
	if (!r)
		diag("got: %s", c ? "(parsed)" : err.msg);
	return r;
}

static void t_config(void)
{
	struct oci_config *c = oci_config_parse(full, sizeof(full) - 1, "config.json", &err);
	ok(c != NULL, "full config parses (%s)", c ? "" : err.msg);
	if (!c)
		return;
	ok(!strcmp(c->root_path, "rootfs") && c->root_readonly, "root");
	ok(c->process.present && c->process.args.n == 3 && !strcmp(c->process.args.v[2], "sleep 1"), "args");
	ok(c->process.uid == 1 && c->process.gid == 2 && c->process.additional_gids.n == 2, "user");
	ok(c->process.no_new_privileges && c->process.cap_bounding.n == 1 && c->process.cap_permitted.n == 0,
	   "caps, noNewPrivileges");
	ok(c->process.n_rlimits == 1 && c->process.rlimits[0].hard == 1024 &&
	       c->process.rlimits[0].soft == 512,
	   "rlimits");
	ok(c->n_mounts == 2 && !strcmp(c->mounts[1].source, "/srv") && c->mounts[1].options.n == 2, "mounts");
	ok(c->hooks[OCI_HOOK_POSTSTART].n == 1 && c->hooks[OCI_HOOK_POSTSTART].v[0].timeout == 5, "hooks");
	ok(!strcmp(oci_config_annotation(c, "a"), "b"), "annotations");
	ok(oci_config_ns(c, "pid") && !oci_config_ns(c, "pid")->path &&
	       !strcmp(oci_config_ns(c, "network")->path, "/run/netns/x") && !oci_config_ns(c, "user"),
	   "namespaces");
	ok(c->n_uid_mappings == 1 && c->uid_mappings[0].host_id == 1000, "uid mappings");
	ok(c->masked_paths.n == 1 && c->readonly_paths.n == 1 && !strcmp(c->cgroups_path, "/oci-x"), "paths");
	ok(c->resources.memory_limit == 1048576 && c->resources.cpu_shares == 512 &&
	       c->resources.pids_limit == 64 && c->resources.cpu_quota == -1,
	   "resources");
	ok(c->n_sysctl == 1 && !strcmp(c->sysctl[0].value, "1"), "sysctl");
	int f = -1;
	ok(oci_fault_from_annotations(c->annotations, c->n_annotations, &f, &err) == 0 &&
	       f == FI_RESTORE_ROOT_ONLY,
	   "cr.fault annotation");
	oci_config_free(c);
}

static void t_bad(void)
{
	ok(bad("{", "invalid JSON"), "truncated JSON");
	ok(bad("[]", "not an object"), "not an object");
	ok(bad("{\"process\":{}}", "field 'ociVersion': required"), "missing ociVersion");
	ok(bad("{\"ociVersion\":1}", "field 'ociVersion': expected a string"), "wrong type");
	ok(bad("{\"ociVersion\":\"1\",\"process\":{\"cwd\":\"/\",\"args\":[\"a\",3]}}", "'process.args[1]'"),
	   "args element");
	ok(bad("{\"ociVersion\":\"1\",\"process\":{\"args\":[]}}", "'process.cwd': required"),
	   "cwd required");
	ok(bad("{\"ociVersion\":\"1\",\"mounts\":[{\"type\":\"x\"}]}", "'mounts[0].destination'"),
	   "mount dest");
	ok(bad("{\"ociVersion\":\"1\",\"linux\":{\"namespaces\":[{\"type\":\"foo\"}]}}", "unknown namespace"),
	   "ns type");
	ok(bad("{\"ociVersion\":\"1\",\"linux\":{\"uidMappings\":[{\"containerID\":-1,\"hostID\":0,\"size\":"
	       "1}]}}",
	       "'linux.uidMappings[0].containerID'"),
	   "negative id");
	ok(bad("{\"ociVersion\":\"1\",\"annotations\":{\"k\":1}}", "'annotations.k'"), "annotation type");
	ok(bad("{\"ociVersion\":\"1\",\"root\":{\"readonly\":\"yes\"}}", "'root.path'"),
	   "root.path required");
	char deep[400];
	memset(deep, '[', sizeof(deep));
	deep[0] = '{', deep[1] = '"', deep[2] = 'a', deep[3] = '"', deep[4] = ':';
	deep[sizeof(deep) - 1] = '\0';
	ok(bad(deep, "nested deeper"), "deep nesting refused");
	int f = 0;
	struct oci_kv kv = {"cr.fault", "no-such-point"};
	ok(oci_fault_from_annotations(&kv, 1, &f, &err) < 0 &&
	       strstr(err.msg, "annotation cr.fault=no-such-point"),
	   "unknown cr.fault names the annotation: %s", err.msg);
}

static void t_state_registry(void)
{
	char dir[] = "/tmp/oci-unit-XXXXXX";
	ok(mkdtemp(dir) != NULL, "tmp dir");
	struct oci_kv an[] = {{"cr.fault", "dump-early"}};
	struct oci_state s = {.id = "oci-u1",
			      .status = "running",
			      .pid = 42,
			      .bundle = "/b",
			      .runtime = "crun",
			      .annotations = an,
			      .n_annotations = 1,
			      .created = 7};
	ok(oci_reg_put(dir, &s, &err) == 0, "registry put");
	struct oci_state *g = oci_reg_get(dir, "oci-u1", &err);
	ok(g && g->pid == 42 && !strcmp(g->bundle, "/b") && !strcmp(g->runtime, "crun") && g->created == 7 &&
	       !strcmp(oci_state_annotation(g, "cr.fault"), "dump-early"),
	   "registry get round trip");
	oci_state_free(g);
	ok(!oci_reg_get(dir, "oci-none", &err) && err.errnum == ENOENT, "unknown id: ENOENT");
	ok(!oci_reg_get(dir, "../x", &err) && strstr(err.msg, "container id"), "bad id refused");
	ok(oci_reg_del(dir, "oci-u1", &err) == 0 && !oci_reg_get(dir, "oci-u1", &err), "registry delete");
	/* runc's state.json */
	char p[256];
	snprintf(p, sizeof(p), "%s/oci-r", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/oci-r/state.json", dir);
	FILE *f = fopen(p, "w");
	fputs("{\"id\":\"oci-r\",\"init_process_pid\":99,\"config\":{\"labels\":[\"bundle=/"
	      "bb\",\"cr.fault=x=y\"]}}",
	      f);
	fclose(f);
	struct oci_state *r = oci_runc_state(dir, "oci-r", &err);
	ok(r && r->pid == 99 && !strcmp(r->bundle, "/bb") &&
	       !strcmp(oci_state_annotation(r, "cr.fault"), "x=y"),
	   "runc state: pid, bundle, annotations from labels");
	oci_state_free(r);
	unlink(p);
	snprintf(p, sizeof(p), "%s/oci-r", dir);
	rmdir(p);
	rmdir(dir);
	char *js = oci_state_json(&s, false, &err);
	struct oci_state *b = js ? oci_state_parse(js, strlen(js), "s", &err) : NULL;
	ok(b && !strcmp(b->id, "oci-u1") && b->pid == 42, "state JSON written and read back");
	oci_state_free(b);
	free(js);
	static const char nob[] = "{\"ociVersion\":\"1\",\"id\":\"x\",\"status\":\"running\"}";
	ok(!oci_state_parse(nob, sizeof(nob) - 1, "st", &err) &&
	       strstr(err.msg, "st: field 'bundle': required"),
	   "state without bundle: %s", err.msg);
}

int main(void)
{
	t_config();
	t_bad();
	t_state_registry();
	return done_testing();
}
