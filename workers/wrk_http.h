/*
 * HTTP POSTs of JSON-RPC bodies to one endpoint through libcurl's multi
 * interface on the worker's libev loop: keep-alive, HTTP/2 when offered,
 * a connect timeout, a per-request deadline and a cap on the answer.
 */
#ifndef CW_WRK_HTTP_H
#define CW_WRK_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

struct ev_loop;

/*
 * The glue between one curl multi handle and a libev loop, shared by
 * wrk_http and by wrk_ws (whose connect-only transfers need a multi of
 * their own).  done is called for every finished transfer, outside any
 * curl callback; it may add handles, and it may release the glue, which
 * then goes away once the loop is out of it.
 */
struct wrk_multi;
typedef void	wrk_multi_done_cb(void *owner, CURL *, CURLcode);
typedef void	wrk_multi_destroy_cb(void *owner);

struct wrk_multi *wrk_multi_new(struct ev_loop *, wrk_multi_done_cb *,
	    wrk_multi_destroy_cb *, void *owner);
CURLM	*wrk_multi_handle(struct wrk_multi *);
/*
 * Frees the multi, after calling destroy so that the owner cleans up its
 * easy handles, now or, inside enter/leave, at the last leave.
 */
void	 wrk_multi_release(struct wrk_multi *);
/* Brackets an owner's own watcher callbacks that may end in a release. */
void	 wrk_multi_enter(struct wrk_multi *);
void	 wrk_multi_leave(struct wrk_multi *);

struct wrk_http_conf {
	const char	*url;		/* http:// or https://, may carry user:pass@ */
	uint32_t	 connect_timeout_ms;
	size_t		 max_response;	/* bytes; past it the answer is dropped */
	unsigned	 max_conns;	/* connections to the host at once; 0: 4 */
	const char	*ca_file;	/* PEM CAs to trust instead; NULL: system */
};

/*
 * What came back, before any JSON is looked at: wrk_rpc_classify_http
 * turns it into an outcome.  body is NUL-terminated and is only valid
 * during the callback.
 */
struct wrk_http_reply {
	CURLcode	 curl_code;	/* CURLE_OK when an HTTP answer came */
	long		 status;	/* HTTP status, 0 without an answer */
	int		 too_large;	/* the answer passed max_response */
	const char	*body;
	size_t		 len;
	const char	*error;		/* curl's words for a failure, or "" */
	uint64_t	 latency_ms;	/* from wrk_http_post to completion */
	uint64_t	 retry_after_ms; /* its Retry-After (0: none), <= 1 d */
};
typedef void	wrk_http_cb(void *arg, const struct wrk_http_reply *);

struct wrk_http *wrk_http_new(struct ev_loop *, const struct wrk_http_conf *);
/*
 * Requests still in flight are dropped without their callbacks.  Safe
 * inside a callback of this endpoint.
 */
void	 wrk_http_free(struct wrk_http *);

/*
 * POST body (copied: the caller may reuse it at once) with
 * "Content-Type: application/json".  cb runs exactly once, from the
 * loop, never from inside wrk_http_post.  deadline_ms bounds the whole
 * request, DNS and connect included.  -1 only when curl refuses the
 * request outright.
 */
int	 wrk_http_post(struct wrk_http *, const char *body, size_t len,
	    uint32_t deadline_ms, wrk_http_cb *cb, void *arg);

/* Requests handed to curl and not yet answered. */
unsigned wrk_http_inflight(const struct wrk_http *);

/* TCP connections curl opened so far (keep-alive shows as few). */
long	 wrk_http_connects(const struct wrk_http *);

#endif
