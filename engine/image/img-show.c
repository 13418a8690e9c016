/* `crshim show`: decode image files to JSON, generically through the protobuf-c descriptors.
 * The JSON is written by hand (an encoder only) into a memory buffer and printed only if every
 * file decoded, so a corrupt image gives an error and no partial document. */
#define LOG_PREFIX "show: "
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "crshim.h"
#include "image/image.h"
#include "base/log.h"
#include "stats.pb-c.h"

struct jw {
	FILE *f;
	int depth;
};

static void jw_nl(struct jw *w)
{
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4  ? 4
		     : s[0] >= 0xe0		   ? 3
		     : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
						   : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* A JSON string; bytes that are not valid UTF-8 are written as \u00XX. */
static void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		size_t u = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
		if (u) {
			fwrite(s + i, 1, u, f);
			i += u - 1;
		} else if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c >= 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fputc(c, f);
		}
	}
	fputc('"', f);
}

static void json_hex(FILE *f, const ProtobufCBinaryData *b)
{
	fputc('"', f);
	for (size_t i = 0; i < b->len; i++)
		fprintf(f, "%02x", b->data[i]);
	fputc('"', f);
}

static void json_double(FILE *f, double d)
{
	if (isfinite(d))
		fprintf(f, "%.17g", d);
	else
		fputs("null", f);
}

size_t img_pb_elem_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return 8;
	case PROTOBUF_C_TYPE_DOUBLE:
		return sizeof(double);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4; /* int32, sint32, sfixed32, uint32, fixed32, float, enum */
	}
}

static void show_msg(struct jw *w, const ProtobufCMessage *m);

static void show_enum(FILE *f, const ProtobufCEnumDescriptor *d, int v)
{
	const ProtobufCEnumValue *ev = d ? protobuf_c_enum_descriptor_get_value(d, v) : NULL;
	if (ev)
		json_str(f, ev->name);
	else
		fprintf(f, "%d", v);
}

/* One value of field f stored at p. */
static void show_value(struct jw *w, const ProtobufCFieldDescriptor *fd, const void *p)
{
	FILE *f = w->f;
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		fprintf(f, "%" PRId32, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		fprintf(f, "%" PRIu32, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		fprintf(f, "%" PRId64, *(const int64_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		fprintf(f, "%" PRIu64, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
		json_double(f, *(const float *)p);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		json_double(f, *(const double *)p);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		fputs(*(const protobuf_c_boolean *)p ? "true" : "false", f);
		break;
	case PROTOBUF_C_TYPE_ENUM:
		show_enum(f, fd->descriptor, *(const int *)p);
		break;
	case PROTOBUF_C_TYPE_STRING:
		json_str(f, *(char *const *)p ? *(char *const *)p : "");
		break;
	case PROTOBUF_C_TYPE_BYTES:
		json_hex(f, p);
		break;
	case PROTOBUF_C_TYPE_MESSAGE:
		if (*(ProtobufCMessage *const *)p)
			show_msg(w, *(ProtobufCMessage *const *)p);
		else
			fputs("null", f);
		break;
	}
}

static void show_repeated(struct jw *w, const ProtobufCFieldDescriptor *fd, const char *arr, size_t n)
{
	bool nested = fd->type == PROTOBUF_C_TYPE_MESSAGE;
	size_t sz = img_pb_elem_size(fd->type);
	fputc('[', w->f);
	w->depth++;
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(nested ? "," : ", ", w->f);
		if (nested)
			jw_nl(w);
		show_value(w, fd, arr + i * sz);
	}
	w->depth--;
	if (nested)
		jw_nl(w);
	fputc(']', w->f);
}

static bool field_present(const char *base, const ProtobufCFieldDescriptor *fd)
{
	if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		return *(const uint32_t *)(base + fd->quantifier_offset) == fd->id;
	if (fd->label != PROTOBUF_C_LABEL_OPTIONAL)
		return true;
	if (fd->type == PROTOBUF_C_TYPE_MESSAGE || fd->type == PROTOBUF_C_TYPE_STRING)
		return *(void *const *)(base + fd->offset) != NULL;
	return *(const protobuf_c_boolean *)(base + fd->quantifier_offset);
}

static void show_msg(struct jw *w, const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;
	bool first = true;

	fputc('{', w->f);
	w->depth++;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		bool rep = fd->label == PROTOBUF_C_LABEL_REPEATED;
		size_t n = rep ? *(const size_t *)(base + fd->quantifier_offset) : 0;
		if (rep ? n == 0 : !field_present(base, fd))
			continue;
		fputs(first ? "" : ",", w->f);
		first = false;
		jw_nl(w);
		json_str(w->f, fd->name);
		fputs(": ", w->f);
		if (rep)
			show_repeated(w, fd, *(char *const *)(base + fd->offset), n);
		else
			show_value(w, fd, base + fd->offset);
	}
	if (m->n_unknown_fields) {
		fputs(first ? "" : ",", w->f);
		first = false;
		jw_nl(w);
		fprintf(w->f, "\"_unknown_fields\": %u", m->n_unknown_fields);
	}
	w->depth--;
	if (!first)
		jw_nl(w);
	fputc('}', w->f);
}

/* The records of one protobuf image as a JSON array. */
static int show_records(struct jw *w, int dirfd, const char *name, struct cr_err *e)
{
	struct img_reader *r;
	ProtobufCMessage *m;
	int ret, n = 0;
	if (img_open_name(dirfd, name, &r, e))
		return -1;
	fputc('[', w->f);
	w->depth++;
	while ((ret = img_read(r, &m, e)) > 0) {
		fputs(n++ ? "," : "", w->f);
		jw_nl(w);
		show_msg(w, m);
		protobuf_c_message_free_unpacked(m, NULL);
	}
	img_close(r);
	w->depth--;
	if (n)
		jw_nl(w);
	fputc(']', w->f);
	return ret < 0 ? -1 : 0;
}

/* A raw page file: verified through its pagemap, shown as a summary. */
static int show_pages(struct jw *w, int dirfd, int k, int id, struct cr_err *e)
{
	struct page_map pm;
	if (k == IMG_PAGES ? pm_load(dirfd, id, &pm, e)
	    : k == IMG_IPC_SHM_PAGES
		? pm_load_kinds(dirfd, IMG_IPC_SHM_PAGEMAP, IMG_IPC_SHM_PAGES, id, &pm, e)
		: pm_load_kinds(dirfd, IMG_SHMEM_PAGEMAP, IMG_SHMEM_PAGES, id, &pm, e))
		return -1;
	fprintf(w->f, "{\"size\": %" PRIu64 ", \"blocks\": %zu}", pm.total_size, pm.nr);
	pm_free(&pm);
	return 0;
}

static bool stats_name(const char *name)
{
	return !strcmp(name, "stats-dump") || !strcmp(name, "stats-restore");
}

/* CRIU's stats-dump / stats-restore (shim/stats.c writes them): magic 0x55105940, magic 0x57093306, a u32
 * size, one stats_entry. */
static int show_stats(struct jw *w, int dirfd, const char *name, struct cr_err *e)
{
	uint8_t buf[4096];
	__cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cr_fail_sys(e, "open %s", name);
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return cr_fail_sys(e, "read %s", name);
	uint32_t hdr[3];
	if (n < 12 || (memcpy(hdr, buf, 12), le32toh(hdr[0]) != 0x55105940u) ||
	    le32toh(hdr[1]) != 0x57093306u || le32toh(hdr[2]) != (uint32_t)(n - 12))
		return cr_fail_errno(e, EBADMSG, "%s: not a stats file (bad magic or size)", name);
	StatsEntry *se = stats_entry__unpack(NULL, (size_t)(n - 12), buf + 12);
	if (!se)
		return cr_fail_errno(e, EBADMSG, "%s: bad stats entry", name);
	fputc('[', w->f);
	w->depth++;
	jw_nl(w);
	show_msg(w, &se->base);
	w->depth--;
	jw_nl(w);
	fputc(']', w->f);
	stats_entry__free_unpacked(se, NULL);
	return 0;
}

static int show_file(struct jw *w, int dirfd, const char *name, struct cr_err *e)
{
	if (stats_name(name))
		return show_stats(w, dirfd, name, e);
	int id, k = img_kind_of(name, &id);
	if (k < 0)
		return cr_fail_errno(e, EINVAL, "%s: not a crshim image file name", name);
	if (k == IMG_PAGES || k == IMG_SHMEM_PAGES || k == IMG_IPC_SHM_PAGES)
		return show_pages(w, dirfd, k, id, e);
	return show_records(w, dirfd, name, e);
}

static int image_filter(const struct dirent *de)
{
	int id;
	return img_kind_of(de->d_name, &id) >= 0 || stats_name(de->d_name);
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int show_dir(struct jw *w, const char *path, int dirfd, struct cr_err *e)
{
	struct dirent **list;
	int n = scandirat(dirfd, ".", &list, image_filter, name_cmp), ret = 0;
	if (n < 0)
		return cr_fail_sys(e, "read dir %s", path);
	if (n == 0)
		ret = cr_fail_errno(e, ENOENT, "%s: no image files", path);
	fputc('{', w->f);
	w->depth++;
	for (int i = 0; i < n; i++) {
		if (!ret) {
			fputs(i ? "," : "", w->f);
			jw_nl(w);
			json_str(w->f, list[i]->d_name);
			fputs(": ", w->f);
			ret = show_file(w, dirfd, list[i]->d_name, e);
		}
		free(list[i]);
	}
	free(list);
	w->depth--;
	jw_nl(w);
	fputc('}', w->f);
	return ret;
}

/* Split path into the dir to open and the file name in it. */
static int open_parent(const char *path, const char **name, struct cr_err *e)
{
	const char *slash = strrchr(path, '/');
	if (!slash) {
		*name = path;
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	*name = slash + 1;
	char dir[4096];
	int n = snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return cr_fail_errno(e, ENAMETOOLONG, "%s", path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		cr_fail_sys(e, "open %s", dir);
	return fd;
}

static int show_path(struct jw *w, const char *path, struct cr_err *e)
{
	struct stat st;
	if (stat(path, &st))
		return cr_fail_sys(e, "%s", path);
	if (S_ISDIR(st.st_mode)) {
		__cleanup_close int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return cr_fail_sys(e, "open %s", path);
		return show_dir(w, path, fd, e);
	}
	const char *name;
	__cleanup_close int fd = open_parent(path, &name, e);
	if (fd < 0)
		return -1;
	return show_file(w, fd, name, e);
}

int img_show(const char *path, FILE *out, struct cr_err *e)
{
	char *buf = NULL;
	size_t len = 0;
	struct jw w = {open_memstream(&buf, &len), 0};
	if (!w.f)
		return cr_fail_sys(e, "show: out of memory");
	int ret = show_path(&w, path, e);
	fputc('\n', w.f);
	if (fclose(w.f) && !ret)
		ret = cr_fail_sys(e, "show: out of memory");
	if (!ret && fwrite(buf, 1, len, out) != len)
		ret = cr_fail_sys(e, "show: write output");
	if (!ret)
		pr_debug("%s: %zu bytes of JSON\n", path, len);
	free(buf);
	return ret;
}
