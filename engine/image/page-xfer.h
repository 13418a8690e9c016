/* Page transfer over TCP: the client side that dump/pre-dump use with --page-server, and the page server
 * that receives the page files into its images dir. Wire protocol: page-xfer.md. */
#ifndef CRSHIM_PAGE_XFER_H
#define CRSHIM_PAGE_XFER_H
#include <stddef.h>
#include <stdint.h>
#include "base/err.h"

struct page_xfer;

/* A TCP connection to addr:port (IPv4 or IPv6 literal, or a host name), TCP_NODELAY. */
int px_dial(const char *addr, int port, int *sk, struct cr_err *e);
/* Connect to a page server at addr:port (IPv4 or IPv6 literal, or a host name) and say hello. */
int px_connect(const char *addr, int port, struct page_xfer **px, struct cr_err *e);
/* One file at a time: open, data (any number of chunks), close (size and checksum checked by the server). */
int px_open(struct page_xfer *px, const char *name, struct cr_err *e);
int px_data(struct page_xfer *px, const void *buf, size_t len, struct cr_err *e);
int px_close_file(struct page_xfer *px, struct cr_err *e);
/* The server drops the file being sent (a failed page writer). */
void px_abort_file(struct page_xfer *px);
/* Send the local file dirfd/name whole. */
int px_send_file(struct page_xfer *px, int dirfd, const char *name, struct cr_err *e);
/* The end of a successful dump: the server makes every file it received visible and answers; without it
 * (px_free after a failure, or a dropped connection) the server removes what it received. */
int px_finish(struct page_xfer *px, struct cr_err *e);
/* Bytes of payload sent so far. */
uint64_t px_sent(const struct page_xfer *px);
void px_free(struct page_xfer *px);

/* All of buf over a stream socket (MSG_NOSIGNAL): 0, or -1 (errno). */
int px_send_all(int sk, const void *buf, size_t len);
/* 1: all read, 0: EOF before the first byte, -1: error or EOF in the middle (errno EPIPE). */
int px_recv_all(int sk, void *buf, size_t len);

/* The server: listen on addr:port (port 0: the kernel chooses; *bound gets the port). */
int ps_listen(const char *addr, int port, int *lfd, int *bound, struct cr_err *e);
/* "host:port" of a peer's address. */
struct sockaddr_storage;
void ps_peer_name(const struct sockaddr_storage *ss, char *buf, size_t len);
/* Accept one client and receive its files into dirfd; returns when the client finished (0) or failed (-1). */
int ps_serve_one(int lfd, int dirfd, struct cr_err *e);

#endif
