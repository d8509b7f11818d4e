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
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <dlfcn.h>
#include <microhttpd.h>

/*
 * Bounds on what clients can hold. PROM_CLIENTS connections: when one more
 * comes, the one that has waited longest for its request (make_room) is
 * shut down, so idle clients cannot keep a scrape out. Each request has PROM_REQUEST_S
 * from the accept, or from the last answer, until its header is complete,
 * and PROM_ANSWER_S to take its answer: deadlines that trickled bytes do
 * not move, unlike libmicrohttpd's idle timeout. libmicrohttpd itself
 * takes up to PROM_CONN_MAX, the room for connections shut down and not
 * yet closed; at that limit, or out of descriptors, it stops accepting
 * until one closes. So both shrink to the descriptors free less
 * PROM_FD_SPARE (libmicrohttpd's own, the tracer's files), the clients to
 * half: out of descriptors, nothing would close before a deadline.
 * Headers are PROM_CONN_MEMORY at most.
 */
#define PROM_CLIENTS 16
#define PROM_CONN_MAX (4 * PROM_CLIENTS)
#define PROM_FD_SPARE 8
#define PROM_REQUEST_S 5
#define PROM_ANSWER_S 10
#define PROM_REAP_MS 250
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
	__typeof__(MHD_get_connection_info) *get_connection_info;
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
		MHD_SYM(get_connection_info, MHD_get_connection_info),
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

/* A connection libmicrohttpd has accepted, as the deadlines see it. */
struct prom_conn {
	bool used;
	bool answering; /* its request's header is in */
	bool shut;	/* shut down: libmicrohttpd closes it next */
	int fd;
	long long since_ns; /* accepted, or last answered, or header in */
	long long deadline_ns;
};

struct prom_server {
	struct MHD_Daemon *daemon;
	pthread_mutex_t lock; /* conns, stopping: the server and reaper threads */
	pthread_cond_t wake;
	pthread_t reaper;
	bool reaping;
	bool stopping;
	struct prom_conn conns[PROM_CONN_MAX];
	unsigned int conn_max; /* libmicrohttpd's limit */
	int clients;	       /* shut the longest waiting beyond this */
	int fd;		       /* bound and listening; the daemon owns it once started */
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

/* ---- connections and their deadlines ------------------------------------- */

static void conn_phase(struct prom_conn *c, bool answering)
{
	c->answering = answering;
	c->since_ns = clock_ns(CLOCK_MONOTONIC);
	c->deadline_ns = c->since_ns + (answering ? PROM_ANSWER_S : PROM_REQUEST_S) * 1000000000LL;
}

/*
 * shutdown(2), not close(2): libmicrohttpd reads the end and closes the
 * descriptor itself, on its thread. Under srv->lock, which its close waits
 * for (on_connection), so fd is still this connection's.
 */
static void conn_shut(struct prom_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->shut = true;
}

static bool conn_live(const struct prom_conn *c)
{
	return c->used && !c->shut;
}

/*
 * Which connections go first: those waiting for a request with nothing
 * unread (a new client's request may not be read yet: it goes last of
 * them), then the others waiting, then those being answered.
 */
static int conn_rank(const struct prom_conn *c)
{
	int unread = 0;

	if (c->answering)
		return 2;
	return ioctl(c->fd, FIONREAD, &unread) == 0 && unread > 0;
}

/* Over srv->clients with fresh: the first by conn_rank, then the oldest, goes. */
static void make_room(struct prom_server *srv, const struct prom_conn *fresh)
{
	struct prom_conn *c, *victim = NULL;
	int live = 0, rank, victim_rank = 0;

	for (c = srv->conns; c < srv->conns + PROM_CONN_MAX; c++) {
		if (!conn_live(c))
			continue;
		live++;
		if (c == fresh)
			continue;
		rank = conn_rank(c);
		if (!victim || rank < victim_rank ||
		    (rank == victim_rank && c->since_ns < victim->since_ns)) {
			victim = c;
			victim_rank = rank;
		}
	}
	if (live > srv->clients && victim)
		conn_shut(victim);
}

static struct prom_conn *conn_begin(struct prom_server *srv, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info;
	struct prom_conn *c;

	info = mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!info)
		return NULL;
	for (c = srv->conns; c < srv->conns + PROM_CONN_MAX; c++) {
		if (c->used)
			continue;
		*c = (struct prom_conn){ .used = true, .fd = info->connect_fd };
		conn_phase(c, false);
		make_room(srv, c);
		return c;
	}
	/* libmicrohttpd takes no more than PROM_CONN_MAX: not reached */
	shutdown(info->connect_fd, SHUT_RDWR);
	return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode what)
{
	struct prom_server *srv = cls;
	struct prom_conn *c = *socket_ctx;

	pthread_mutex_lock(&srv->lock);
	if (what == MHD_CONNECTION_NOTIFY_STARTED)
		*socket_ctx = conn_begin(srv, conn);
	else if (c)
		c->used = false;
	pthread_mutex_unlock(&srv->lock);
}

/* The connection's request header is in (answering), or its answer is done. */
static void conn_request(struct prom_server *srv, struct MHD_Connection *conn, bool answering)
{
	const union MHD_ConnectionInfo *info;
	struct prom_conn *c;

	info = mhd.get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = info ? info->socket_context : NULL;
	if (!c)
		return;
	pthread_mutex_lock(&srv->lock);
	if (conn_live(c))
		conn_phase(c, answering);
	pthread_mutex_unlock(&srv->lock);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode why)
{
	(void)req_cls;
	(void)why;
	conn_request(cls, conn, false);
}

/* Every PROM_REAP_MS, the connections past their deadline are shut down. */
static void *reap(void *arg)
{
	struct prom_server *srv = arg;
	struct prom_conn *c;
	struct timespec ts;
	long long now;

	pthread_mutex_lock(&srv->lock);
	while (!srv->stopping) {
		now = clock_ns(CLOCK_MONOTONIC);
		for (c = srv->conns; c < srv->conns + PROM_CONN_MAX; c++)
			if (conn_live(c) && now >= c->deadline_ns)
				conn_shut(c);
		now += PROM_REAP_MS * 1000000LL;
		ts.tv_sec = now / 1000000000LL;
		ts.tv_nsec = now % 1000000000LL;
		pthread_cond_timedwait(&srv->wake, &srv->lock, &ts);
	}
	pthread_mutex_unlock(&srv->lock);
	return NULL;
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
	if (!*req_cls)
		conn_request(cls, conn, true);
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
	int fd, one = 1, defer = PROM_REQUEST_S, err;

	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/*
	 * A restart must not wait out the last run's TIME_WAIT connections.
	 * Connections that send nothing stay in the kernel for
	 * PROM_REQUEST_S, off the PROM_CLIENTS.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer)) ||
	    (addr->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)addr, len) || listen(fd, SOMAXCONN))
		goto fail;
	return fd;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	p_err("--prometheus '%s': cannot listen: %s", shown, strerror(err));
	return -err;
}

/* Descriptors this process can still open: the soft limit less those open. */
static long fds_free(void)
{
	long open = -1; /* the directory's own */
	struct rlimit rl;
	struct dirent *de;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return PROM_CONN_MAX + PROM_FD_SPARE;
	d = opendir("/proc/self/fd");
	if (!d) /* without /proc, assume room */
		return errno == EMFILE ? 0 : PROM_CONN_MAX + PROM_FD_SPARE;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			open++;
	closedir(d);
	return (long)rl.rlim_cur - open;
}

/* The connection limits, from the descriptors free: 0, or -EMFILE after one "Error: ..." line. */
static int size_limits(struct prom_server *srv)
{
	long room = fds_free() - PROM_FD_SPARE;
	char clip[CLIP_BUF];

	if (room >= 2) {
		srv->conn_max = min(room, PROM_CONN_MAX);
		srv->clients = min(srv->conn_max / 2, PROM_CLIENTS);
		return 0;
	}
	p_err("--prometheus '%s': cannot serve: %ld file descriptors free, it needs %d (ulimit -n)",
	      str_clip(srv->hostport, clip), room + PROM_FD_SPARE, PROM_FD_SPARE + 2);
	return -EMFILE;
}

/* The reaper's timed wait is on the monotonic clock: no jumps. */
static void init_wake(pthread_cond_t *wake)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(wake, &attr);
	pthread_condattr_destroy(&attr);
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
	pthread_mutex_init(&srv->lock, NULL);
	init_wake(&srv->wake);
	snprintf(srv->hostport, sizeof(srv->hostport), "%s", hostport);
	return srv;
}

/*
 * poll(2), not epoll: libmicrohttpd then accepts one connection a turn and
 * reads the others between, so a new client's request is read before
 * further arrivals can make it the oldest of the clients; epoll accepts up
 * to 11 a turn first, and scrapes were shut unread under a flood.
 */
int prom_server__serve(struct prom_server *srv, prom_render_fn render, void *ctx)
{
	unsigned int flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	char clip[CLIP_BUF];
	sigset_t all, old;
	int err = size_limits(srv);

	if (err)
		return err;
	srv->render = render;
	srv->ctx = ctx;
	srv->starter = pthread_self();
	/* The server thread inherits the mask: SIGINT must reach the tracer's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	srv->daemon = mhd.start_daemon(
		flags, 0, NULL, NULL, answer, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, srv,
		MHD_OPTION_LISTEN_SOCKET, srv->fd, MHD_OPTION_CONNECTION_LIMIT, srv->conn_max,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)PROM_ANSWER_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)PROM_CONN_MEMORY,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, srv, MHD_OPTION_END);
	if (srv->daemon && (err = pthread_create(&srv->reaper, NULL, reap, srv)))
		snprintf(srv->start_msg, sizeof(srv->start_msg), "no thread: %s", strerror(err));
	srv->reaping = srv->daemon && !err;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!srv->reaping) {
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
	if (srv->reaping) {
		pthread_mutex_lock(&srv->lock);
		srv->stopping = true;
		pthread_cond_signal(&srv->wake);
		pthread_mutex_unlock(&srv->lock);
		pthread_join(srv->reaper, NULL);
	}
	/* MHD_stop_daemon closes the listening socket it was given. */
	if (srv->daemon)
		mhd.stop_daemon(srv->daemon);
	else
		close(srv->fd);
	pthread_cond_destroy(&srv->wake);
	pthread_mutex_destroy(&srv->lock);
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
