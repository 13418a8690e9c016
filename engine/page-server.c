/* crshim page-server: receives the pages of dump/pre-dump --page-server (image/page-xfer.c). */
#define LOG_PREFIX "page-server: "
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "crshim.h"
#include "base/log.h"
#include "image/page-xfer.h"

int eng_page_server_listen(struct cr_opts *o, int *lfd, int *port, struct cr_err *err)
{
	if (!o->images_dir)
		return cr_fail_errno(err, EINVAL, "page-server needs -D/--images-dir DIR");
	if (o->imgdir_fd < 0) {
		o->imgdir_fd = open(o->images_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (o->imgdir_fd < 0)
			return cr_fail_sys(err, "open images dir %s", o->images_dir);
	}
	if (ps_listen(o->ps_address, o->ps_port, lfd, port, err))
		return -1;
	pr_info("listening on %s:%d, images into %s\n", o->ps_address ? o->ps_address : "*", *port,
		o->images_dir);
	return 0;
}

int eng_page_server_serve(struct cr_opts *o, int lfd, struct cr_err *err)
{
	return ps_serve_one(lfd, o->imgdir_fd, err);
}
