// SPDX-License-Identifier: GPL-2.0
/*
 * --prometheus HOST:PORT: the exposition over HTTP, with libmicrohttpd's
 * own polling thread. Built only with HAVE_MHD (the Makefile's default
 * where pkg-config finds libmicrohttpd and the build is not static:
 * Debian's libmicrohttpd.a needs GnuTLS, and GnuTLS's p11-kit ships no
 * static library). The library is opened when --prometheus is given, not
 * linked: it brings GnuTLS and eight more libraries into every start,
 * 85 ms of each under emulation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/prom.h"
#include "lib/util.h"

#ifdef HAVE_MHD

#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <dlfcn.h>
#include <microhttpd.h>

/* Bounds on what clients can hold: connections, idle seconds, header bytes. */
#define PROM_CONNECTIONS 16
#define PROM_IDLE_S 10
#define PROM_CONN_MEMORY (32 * 1024)
/* "[" IPv6 with a zone id "]:" port: far below this. */
#define HOSTPORT_MAX 128
#define MHD_MSG_MAX 160

#ifndef MHD_SONAME
#define MHD_SONAME "libmicrohttpd.so.12"
#endif

static struct mhd_api {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
} mhd;

#define MHD_SYM(field, name)                           \
	{                                              \
#name, offsetof(struct mhd_api, field) \
	}

static int mhd_open(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		MHD_SYM(start_daemon, MHD_start_daemon),
		MHD_SYM(stop_daemon, MHD_stop_daemon),
		MHD_SYM(create_response_from_buffer, MHD_create_response_from_buffer),
		MHD_SYM(add_response_header, MHD_add_response_header),
		MHD_SYM(queue_response, MHD_queue_response),
		MHD_SYM(destroy_response, MHD_destroy_response),
		MHD_SYM(lookup_connection_value, MHD_lookup_connection_value),
	};
	void *lib, *fn;
	size_t i;

	if (mhd.start_daemon)
		return 0;
	lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		p_err("--prometheus needs %s: %s; --textfile PATH works without it", MHD_SONAME,
		      dlerror());
		return -ENOENT;
	}
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		fn = dlsym(lib, syms[i].name);
		if (!fn) {
			p_err("--prometheus: %s has no %s", MHD_SONAME, syms[i].name);
			memset(&mhd, 0, sizeof(mhd));
			dlclose(lib);
			return -ENOENT;
		}
		memcpy((char *)&mhd + syms[i].off, &fn, sizeof(fn));
	}
	return 0; /* kept open: the daemon's thread runs its code */
}

struct prom_server {
	struct MHD_Daemon *daemon;
	int fd; /* bound and listening; the daemon owns it once started */
	char hostport[HOSTPORT_MAX + 1];
	prom_render_fn render;
	void *ctx;
	pthread_t starter;
	char start_msg[MHD_MSG_MAX]; /* libmicrohttpd's first complaint while starting */
};

static void __attribute__((format(printf, 2, 0))) mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct prom_server *srv = cls;
	char msg[MHD_MSG_MAX];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	/* Only the starting thread writes start_msg: the server thread may log too. */
	if (pthread_equal(pthread_self(), srv->starter) && !srv->start_msg[0])
		memcpy(srv->start_msg, msg, n + 1);
	p_dbg("prometheus: %s", msg);
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned int status,
				  const char *body)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = mhd.create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = mhd.queue_response(conn, status, resp);
	mhd.destroy_response(resp);
	return ret;
}

/* The exposition is rendered whole into memory MHD frees once it is sent. */
static enum MHD_Result reply_metrics(struct prom_server *srv, struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	f = open_memstream(&buf, &len);
	if (!f)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	rc = srv->render(srv->ctx, f);
	if (fclose(f) || rc < 0) {
		free(buf);
		p_dbg("prometheus: rendering the metrics failed (%d)", rc);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "ksnoop could not render its metrics\n");
	}
	resp = mhd.create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(buf);
		return MHD_NO;
	}
	mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, PROM_CONTENT_TYPE);
	ret = mhd.queue_response(conn, MHD_HTTP_OK, resp);
	mhd.destroy_response(resp);
	return ret;
}

static bool has_body(struct MHD_Connection *conn)
{
	return mhd.lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH) ||
	       mhd.lookup_connection_value(conn, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

/*
 * No request body is ever read: a request with one is answered on the
 * first call, with the headers (MHD then discards the body and closes
 * the connection). One without is answered on the second, which keeps
 * the connection alive for the next scrape.
 */
static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	static char headers_seen;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	if (!*req_cls && !has_body(conn)) {
		*req_cls = &headers_seen;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	if (strcmp(url, "/metrics"))
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "ksnoop serves /metrics\n");
	return reply_metrics(cls, conn);
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* host into addr with port: a numeric address of family only. */
static int numeric_addr(const char *shown, const char *host, int family, int port,
			struct sockaddr_storage *addr)
{
	struct addrinfo hints = {
		.ai_family = family,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_PASSIVE,
	};
	struct addrinfo *res;

	if (getaddrinfo(host, NULL, &hints, &res) || res->ai_addrlen > sizeof(*addr)) {
		p_err("--prometheus '%s': '%s' is not a numeric %s (no names: ksnoop binds exactly the address given)",
		      shown, host,
		      family == AF_INET6 ? "IPv6 address"
					 : "IPv4 address (IPv6 goes in brackets, [::1]:9100)");
		return -EINVAL;
	}
	memset(addr, 0, sizeof(*addr));
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (family == AF_INET6)
		((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)addr)->sin_port = htons(port);
	return 0;
}

/* "127.0.0.1:9100" or "[::1]:9100" into addr. */
static int parse_hostport(const char *hostport, struct sockaddr_storage *addr)
{
	char host[HOSTPORT_MAX + 1], clip[CLIP_BUF];
	const char *shown = str_clip(hostport, clip), *end, *port;
	long long num;
	int family;

	if (strnlen(hostport, HOSTPORT_MAX + 1) > HOSTPORT_MAX) {
		p_err("--prometheus '%s': longer than %d bytes", shown, HOSTPORT_MAX);
		return -EINVAL;
	}
	if (hostport[0] == '[') {
		family = AF_INET6;
		end = strchr(hostport, ']');
		if (!end || end[1] != ':') {
			p_err("--prometheus '%s': want [IPv6]:PORT, e.g. [::1]:9100", shown);
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(end - hostport - 1), hostport + 1);
		port = end + 2;
	} else {
		family = AF_INET;
		end = strrchr(hostport, ':');
		if (!end) {
			p_err("--prometheus '%s': want HOST:PORT, e.g. 127.0.0.1:9100", shown);
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(end - hostport), hostport);
		port = end + 1;
	}
	if (!host[0]) {
		p_err("--prometheus '%s': no address; give the one to listen on, e.g. 127.0.0.1 (0.0.0.0 is every one, and exposes kernel data to the network)",
		      shown);
		return -EINVAL;
	}
	if (!all_digits(port) || parse_long(port, 1, 65535, &num)) {
		p_err("--prometheus '%s': the port '%s' is not a number from 1 to 65535", shown,
		      port);
		return -EINVAL;
	}
	return numeric_addr(shown, host, family, (int)num, addr);
}

/* A listening socket on addr: bind errors are the user's to see. */
static int listen_on(const char *shown, const struct sockaddr_storage *addr)
{
	socklen_t len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						    : sizeof(struct sockaddr_in);
	int fd, one = 1, err;

	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* A restart must not wait out the last run's TIME_WAIT connections. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (addr->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)addr, len) || listen(fd, PROM_CONNECTIONS))
		goto fail;
	return fd;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	p_err("--prometheus '%s': cannot listen: %s", shown, strerror(err));
	return -err;
}

struct prom_server *prom_server__listen(const char *hostport)
{
	struct sockaddr_storage addr;
	struct prom_server *srv;
	char clip[CLIP_BUF];
	int fd;

	if (mhd_open() || parse_hostport(hostport, &addr))
		return NULL;
	fd = listen_on(str_clip(hostport, clip), &addr);
	if (fd < 0)
		return NULL;
	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		close(fd);
		p_err("--prometheus: out of memory");
		return NULL;
	}
	srv->fd = fd;
	snprintf(srv->hostport, sizeof(srv->hostport), "%s", hostport);
	return srv;
}

int prom_server__serve(struct prom_server *srv, prom_render_fn render, void *ctx)
{
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	char clip[CLIP_BUF];
	sigset_t all, old;

	srv->render = render;
	srv->ctx = ctx;
	srv->starter = pthread_self();
	/* The server thread inherits the mask: SIGINT must reach the tracer's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	srv->daemon = mhd.start_daemon(flags, 0, NULL, NULL, answer, srv,
				       MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
				       MHD_OPTION_LISTEN_SOCKET, srv->fd,
				       MHD_OPTION_CONNECTION_LIMIT, (unsigned int)PROM_CONNECTIONS,
				       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)PROM_IDLE_S,
				       MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)PROM_CONN_MEMORY,
				       MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!srv->daemon) {
		p_err("--prometheus '%s': cannot serve: %s", str_clip(srv->hostport, clip),
		      srv->start_msg[0] ? srv->start_msg : "libmicrohttpd did not start");
		return -EINVAL;
	}
	return 0;
}

struct prom_server *prom_server__start(const char *hostport, prom_render_fn render, void *ctx)
{
	struct prom_server *srv = prom_server__listen(hostport);

	if (srv && prom_server__serve(srv, render, ctx)) {
		prom_server__stop(srv);
		return NULL;
	}
	return srv;
}

void prom_server__stop(struct prom_server *srv)
{
	if (!srv)
		return;
	/* MHD_stop_daemon closes the listening socket it was given. */
	if (srv->daemon)
		mhd.stop_daemon(srv->daemon);
	else
		close(srv->fd);
	free(srv);
}

#else /* !HAVE_MHD */

struct prom_server *prom_server__listen(const char *hostport)
{
	(void)hostport;
	p_err("--prometheus: this ksnoop was built without libmicrohttpd (HAVE_MHD=0: a static build cannot link it); --textfile PATH still works");
	return NULL;
}

int prom_server__serve(struct prom_server *srv, prom_render_fn render, void *ctx)
{
	(void)srv;
	(void)render;
	(void)ctx;
	return -EOPNOTSUPP;
}

struct prom_server *prom_server__start(const char *hostport, prom_render_fn render, void *ctx)
{
	(void)render;
	(void)ctx;
	return prom_server__listen(hostport);
}

void prom_server__stop(struct prom_server *srv)
{
	(void)srv;
}

#endif
