/* Unit tests of oci/ beside tests/unit/oci.c: the copy of config.json kept with the images (oci_json_copy),
 * the registry walk (oci_reg_each: id order, a broken entry reported and skipped, early stop), field type
 * errors and a NUL byte in the input: one line naming the file and the field, no result. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "oci.h"
#include "tap.h"

static struct cr_err err;
static char dir[] = "/tmp/oci-json-cov-XXXXXX";

static int bad(const char *js, size_t len, const char *want)
{
	cr_err_clear(&err);
	struct oci_config *c = oci_config_parse(js, len, "t/config.json", &err);
	oci_config_free(c);
	int r = !c && strstr(err.msg, want) && strstr(err.msg, "t/config.json") && !strchr(err.msg, '\n');
	if (!r)
		diag("got: %s", c ? "(parsed)" : err.msg);
	return r;
}

static void t_types(void)
{
#define BAD(js, want, name) ok(bad(js, sizeof(js) - 1, want), name)
	BAD("{\"ociVersion\":\"1\",\"process\":{\"cwd\":\"/\",\"terminal\":1}}",
	    "'process.terminal': expected true or false", "bool field given a number");
	BAD("{\"ociVersion\":\"1\",\"process\":{\"cwd\":\"/\",\"user\":{\"uid\":\"0\"}}}",
	    "'process.user.uid': expected an integer", "integer field given a string");
	BAD("{\"ociVersion\":\"1\",\"root\":[]}", "'root': expected an object",
	    "object field given an array");
	BAD("{\"ociVersion\":\"1\",\"mounts\":{}}", "'mounts': expected an array",
	    "array field given an object");
	/* every array of objects refuses an element that is none, naming its index */
#define P "{\"ociVersion\":\"1\","
	BAD(P
	    "\"process\":{\"cwd\":\"/\",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1,\"soft\":1},7]}}",
	    "'process.rlimits[1]': expected an object", "an rlimit that is no object");
	BAD(P
	    "\"process\":{\"cwd\":\"/\",\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":-1,\"soft\":1}]}}",
	    "'process.rlimits[0].hard'", "a negative hard rlimit");
	BAD(P "\"process\":{\"cwd\":\"/\",\"rlimits\":[{\"hard\":1,\"soft\":1}]}}",
	    "'process.rlimits[0].type'", "an rlimit without its type");
	BAD(P "\"process\":{\"cwd\":\"/\",\"capabilities\":{\"bounding\":[1]}}}",
	    "'process.capabilities.bounding", "a capability that is no string");
	BAD(P "\"mounts\":[\"/proc\"]}", "'mounts[0]': expected an object", "a mount that is no object");
	BAD(P "\"mounts\":[{\"destination\":\"/proc\"},{\"destination\":\"proc\"}]}",
	    "'mounts[1].destination': not an absolute path", "a relative mount destination");
	BAD(P "\"mounts\":[{\"type\":\"proc\"}]}", "'mounts[0].destination'", "a mount without destination");
	BAD(P "\"hooks\":{\"prestart\":[{\"path\":\"/bin/true\"},null]}}",
	    "'hooks.prestart[1]': expected an object", "a hook that is no object");
	BAD(P "\"hooks\":{\"poststop\":[{\"path\":\"/bin/true\",\"timeout\":0}]}}",
	    "'hooks.poststop[0].timeout'", "a hook timeout of 0");
	BAD(P "\"hooks\":{\"createRuntime\":{}}}", "'hooks.createRuntime': expected an array",
	    "a hook point that is no array");
	BAD(P "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"pid\"}]}}",
	    "'linux.namespaces[1].type': given twice", "a namespace type given twice");
	BAD(P "\"linux\":{\"namespaces\":[{\"type\":\"pidd\"}]}}",
	    "'linux.namespaces[0].type': unknown namespace type", "an unknown namespace type");
	BAD(P "\"linux\":{\"namespaces\":[\"pid\"]}}", "'linux.namespaces[0]': expected an object",
	    "a namespace that is no object");
	BAD(P "\"linux\":{\"uidMappings\":[{\"containerID\":0,\"hostID\":1000,\"size\":1},[]]}}",
	    "'linux.uidMappings[1]': expected an object", "an id map that is no object");
	BAD(P "\"linux\":{\"gidMappings\":[{\"containerID\":0,\"hostID\":-5,\"size\":1}]}}",
	    "'linux.gidMappings[0].hostID'", "a negative host gid");
	BAD(P "\"linux\":{\"resources\":{\"memory\":{\"limit\":-2}}}}", "'linux.resources.memory.limit'",
	    "a memory limit below -1");
	BAD(P "\"linux\":{\"resources\":{\"cpu\":{\"period\":\"x\"}}}}", "'linux.resources.cpu.period'",
	    "a cpu period that is no number");
	BAD(P "\"linux\":{\"resources\":{\"pids\":[]}}}", "'linux.resources.pids': expected an object",
	    "pids that is no object");
#undef P
	ok(!strcmp(oci_hook_point_name(OCI_HOOK_POSTSTOP), "poststop") &&
	       !strcmp(oci_hook_point_name(OCI_HOOK_N), "?"),
	   "hook point names; an out-of-range one is ?");
	static const char nul[] = "{\"ociVersion\":\"1\"}\0junk";
	ok(bad(nul, sizeof(nul) - 1, "NUL byte at offset 18"), "a NUL byte inside the buffer is refused");
}

static char *slurp(const char *p)
{
	size_t n;
	char *b = oci_read_file(p, &n, &err);
	char *s = b ? realloc(b, n + 1) : NULL;
	if (s)
		s[n] = '\0';
	else
		free(b);
	return s;
}

static void t_copy(void)
{
	static const char in[] =
	    "{\"ociVersion\":\"1.0.2\",\"process\":{\"cwd\":\"/\",\"args\":[\"sh\",\"-c\",\"x\"],"
	    "\"terminal\":false,\"user\":{\"uid\":7,\"gid\":8}},\"hostname\":\"h\\\"q\","
	    "\"root\":{\"path\":\"rootfs\"},\"annotations\":{\"k\":\"v\"},\"n\":null,"
	    "\"f\":1.5,\"t\":true}";
	char path[256];
	snprintf(path, sizeof(path), "%s/config.json", dir);
	cr_err_clear(&err);
	ok(oci_json_copy(in, sizeof(in) - 1, "in.json", path, &err) == 0, "copy written (%s)", err.msg);
	struct stat st;
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "copy is mode 0600");
	char *out = slurp(path);
	ok(out && strchr(out, '\n') && strcmp(out, in), "copy is reformatted (beautified)");
	/* what the copy holds parses to the same config */
	struct oci_config *c = out ? oci_config_parse(out, strlen(out), path, &err) : NULL;
	ok(c && c->process.args.n == 3 && !strcmp(c->process.args.v[2], "x") && c->process.uid == 7 &&
	       c->process.gid == 8 && !c->process.terminal && !strcmp(c->hostname, "h\"q") &&
	       !strcmp(oci_config_annotation(c, "k"), "v"),
	   "the copy parses back to the same values");
	like(out, "null", "null kept");
	like(out, "1.5", "number kept as written");
	like(out, "true", "true kept");
	oci_config_free(c);
	free(out);
	unlink(path);
	cr_err_clear(&err);
	ok(oci_json_copy("{\"a\":", 5, "in.json", path, &err) < 0 && strstr(err.msg, "in.json") &&
	       strstr(err.msg, "invalid JSON"),
	   "bad JSON: no copy, error names the input: %s", err.msg);
	snprintf(path, sizeof(path), "%s/no-such-dir/config.json", dir);
	cr_err_clear(&err);
	ok(oci_json_copy(in, sizeof(in) - 1, "in.json", path, &err) < 0 && err.errnum == ENOENT &&
	       strstr(err.msg, "no-such-dir"),
	   "unwritable target: error names it: %s", err.msg);
}

struct seen {
	char ids[8][32];
	int n, bad, stop_at;
	char bad_id[32];
};

static int each(const struct oci_state *s, void *arg)
{
	struct seen *v = arg;
	if (v->n < 8)
		snprintf(v->ids[v->n], sizeof(v->ids[0]), "%s", s->id);
	v->n++;
	return v->stop_at && v->n == v->stop_at ? 42 : 0;
}

static void bad_entry(const char *id, const struct cr_err *e, void *arg)
{
	struct seen *v = arg;
	v->bad++;
	snprintf(v->bad_id, sizeof(v->bad_id), "%s", id);
	(void)e;
}

static void t_each(void)
{
	char run[300], p[400];
	snprintf(run, sizeof(run), "%s/run", dir);
	struct seen v = {0};
	ok(oci_reg_each(run, each, &v, bad_entry, &err) == 0 && v.n == 0, "no run dir: nothing, no error");
	const char *ids[] = {"cov-b", "cov-a", "cov-c"};
	for (int i = 0; i < 3; i++) {
		struct oci_state s = {.id = ids[i], .status = "running", .pid = 100 + i, .bundle = "/b"};
		ok(oci_reg_put(run, &s, &err) == 0, "put %s", ids[i]);
	}
	snprintf(p, sizeof(p), "%s/cov-broken.json", run);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, "{", 1) == 1, "a broken entry");
	close(fd);
	snprintf(p, sizeof(p), "%s/notes.txt", run);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	close(fd);
	ok(oci_reg_each(run, each, &v, bad_entry, &err) == 0, "walk");
	ok(v.n == 3 && !strcmp(v.ids[0], "cov-a") && !strcmp(v.ids[1], "cov-b") && !strcmp(v.ids[2], "cov-c"),
	   "the three entries in id order (not the .txt)");
	ok(v.bad == 1 && !strcmp(v.bad_id, "cov-broken"), "the broken one reported by id");
	struct seen w = {.stop_at = 2};
	ok(oci_reg_each(run, each, &w, NULL, &err) == 42 && w.n == 2, "fn's non-zero return stops the walk");
	/* an entry whose id field is not its file name is refused */
	snprintf(p, sizeof(p), "%s/cov-a.json", run);
	char q[400];
	snprintf(q, sizeof(q), "%s/cov-x.json", run);
	ok(rename(p, q) == 0, "entry renamed");
	cr_err_clear(&err);
	struct oci_state *g = oci_reg_get(run, "cov-x", &err);
	ok(!g && strstr(err.msg, "field 'id'") && strstr(err.msg, "cov-a"), "id/name mismatch refused: %s",
	   err.msg);
	oci_state_free(g);
	cr_err_clear(&err);
	ok(oci_reg_del(run, "cov-none", &err) == 0, "delete of an unknown id: nothing to do");
	ok(oci_reg_del(run, "../cov-b", &err) < 0 && strstr(err.msg, "container id"),
	   "delete of a bad id refused");
	snprintf(p, sizeof(p), "%s/cov-b.json", run);
	ok(access(p, F_OK) == 0, "... and cov-b is still there");
	const char *left[] = {"cov-x.json", "cov-b.json", "cov-c.json", "cov-broken.json", "notes.txt"};
	for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", run, left[i]);
		unlink(p);
	}
	rmdir(run);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	t_types();
	t_copy();
	t_each();
	rmdir(dir);
	return done_testing();
}
