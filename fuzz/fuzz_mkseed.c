/*
 * Writes the seeds that are binary: one IPC message of each type, packed
 * by src/proto.c's own packers (fuzz/corpus/msg), and the SCALE encoding
 * of each JSON header named, by src/header.c (fuzz/corpus/header_scale).
 * Usage: fuzz_mkseed msg DIR
 *        fuzz_mkseed scale DIR quantus|substrate HEADER.json ...
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header.h"
#include "msg.h"
#include "proto.h"

static void
put(const char *dir, const char *name, const uint8_t *sel,
    const void *p, size_t len)
{
	char	path[4096];
	FILE	*fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "wb")) == NULL ||
	    (sel != NULL && fwrite(sel, 1, 1, fp) != 1) ||
	    fwrite(p, 1, len, fp) != len || fclose(fp) != 0) {
		fprintf(stderr, "fuzz_mkseed: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void
put_msg(const char *dir, struct msgbuf *mb)
{
	struct msg	m;
	char		err[160], name[64];

	if (msg_parse(mb->sb.data, mb->sb.size, &m, err, sizeof(err)) == -1) {
		fprintf(stderr, "fuzz_mkseed: a packed message: %s\n", err);
		exit(1);
	}
	snprintf(name, sizeof(name), "%s.msgpack", msg_type_name(m.type));
	msg_free(&m);
	put(dir, name, NULL, mb->sb.data, mb->sb.size);
	msg_done(mb);
}

static void
fill(void *p, size_t len, uint8_t seed)
{
	uint8_t	*b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static void
seed_msgs(const char *dir)
{
	static struct proto_config	 c;
	static struct proto_head	 hd;
	static struct proto_sub		 sb;
	static struct proto_subscribe	 sbs;
	static struct proto_outcome	 oc;
	static struct proto_info	 in;
	static struct proto_req_headers	 rqh;
	static struct proto_res_headers	 rsh;
	static struct proto_req_storage	 rqs;
	static struct proto_res_storage	 rss;
	static struct proto_req_runtime	 rqr;
	static struct proto_res_runtime	 rsr;
	static struct proto_req_genesis	 rqg;
	static struct proto_res_genesis	 rsg;
	struct msgbuf			 mb;

	snprintf(c.chain, sizeof(c.chain), "quantus");
	snprintf(c.name, sizeof(c.name), "a1-planck");
	snprintf(c.rpc_url, sizeof(c.rpc_url), "https://a1.example:9944/");
	snprintf(c.ws_url, sizeof(c.ws_url), "wss://a1.example:9944/");
	snprintf(c.user, sizeof(c.user), "chainwatch");
	c.block_time = 12000;
	c.stall_factor = 3;
	c.subscribe = 1;
	c.connect_timeout = 5000;
	c.request_timeout = 10000;
	c.max_response = 16 << 20;
	c.max_inflight = 64;
	c.heartbeat = 5000;
	c.log_level = 2;
	proto_pack_config(&mb, 1, &c);
	put_msg(dir, &mb);

	msg_begin(&mb, MSG_HELLO, 1, 0);
	put_msg(dir, &mb);
	msg_begin(&mb, MSG_HEARTBEAT, 1, 1);
	msg_put_uint(&mb, "rss_kb", 5120);
	put_msg(dir, &mb);

	in.fits = 1;
	fill(in.genesis, 32, 1);
	snprintf(in.chain, sizeof(in.chain), "Quantus Dirac");
	snprintf(in.spec_name, sizeof(in.spec_name), "quantus-runtime");
	in.spec_version = 117;
	in.ss58_format = 189;
	in.best = 4242;
	in.latency_ms = 12;
	proto_pack_info(&mb, 1, &in);
	put_msg(dir, &mb);

	hd.kind = HEAD_NEW;
	hd.seen_ms = 1764547200000ull;
	fill(hd.h.hash, 32, 2);
	fill(hd.h.parent, 32, 3);
	hd.h.number = 4242;
	hd.h.has_miner = 1;
	fill(hd.h.miner, 32, 4);
	proto_pack_head(&mb, 1, &hd);
	put_msg(dir, &mb);

	sb.live = 1;
	sb.reconnects = 2;
	snprintf(sb.why, sizeof(sb.why), "subscribed");
	proto_pack_sub(&mb, 1, &sb);
	put_msg(dir, &mb);

	sbs.on = 1;
	proto_pack_subscribe(&mb, 1, &sbs);
	put_msg(dir, &mb);

	snprintf(oc.what, sizeof(oc.what), "poll");
	oc.outcome = OUTCOME_HTTP_5XX;
	oc.latency_ms = 31;
	snprintf(oc.why, sizeof(oc.why), "HTTP 503");
	proto_pack_outcome(&mb, 1, &oc);
	put_msg(dir, &mb);

	rqh.id = 7;
	rqh.deadline_ms = 10000;
	rqh.by = BY_NUMBER;
	rqh.n = 3;
	for (size_t i = 0; i < rqh.n; i++)
		rqh.numbers[i] = 4240 + i;
	proto_pack_req_headers(&mb, 1, &rqh);
	put_msg(dir, &mb);

	rsh.id = 7;
	rsh.n = 2;
	fill(rsh.items[0].h.hash, 32, 5);
	fill(rsh.items[0].h.parent, 32, 6);
	rsh.items[0].h.number = 4240;
	rsh.items[1].outcome = OUTCOME_ABSENT;
	snprintf(rsh.items[1].why, sizeof(rsh.items[1].why), "null result");
	proto_pack_res_headers(&mb, 1, &rsh);
	put_msg(dir, &mb);

	rqs.id = 8;
	rqs.deadline_ms = 10000;
	rqs.n = 1;
	fill(rqs.items[0].at, 32, 7);
	rqs.items[0].key_len = 32;
	fill(rqs.items[0].key, 32, 8);
	proto_pack_req_storage(&mb, 1, &rqs);
	put_msg(dir, &mb);

	rss.id = 8;
	rss.n = 2;
	rss.items[0].value_len = 16;
	fill(rss.items[0].value, 16, 9);
	rss.items[1].outcome = OUTCOME_ABSENT;
	snprintf(rss.items[1].why, sizeof(rss.items[1].why), "state pruned");
	proto_pack_res_storage(&mb, 1, &rss);
	put_msg(dir, &mb);

	rqr.id = 9;
	rqr.deadline_ms = 10000;
	rqr.has_at = 1;
	fill(rqr.at, 32, 10);
	proto_pack_req_runtime(&mb, 1, &rqr);
	put_msg(dir, &mb);

	rsr.id = 9;
	snprintf(rsr.spec_name, sizeof(rsr.spec_name), "quantus-runtime");
	rsr.spec_version = 117;
	rsr.impl_version = 1;
	proto_pack_res_runtime(&mb, 1, &rsr);
	put_msg(dir, &mb);

	rqg.id = 10;
	rqg.deadline_ms = 10000;
	proto_pack_req_genesis(&mb, 1, &rqg);
	put_msg(dir, &mb);

	rsg.id = 10;
	fill(rsg.hash, 32, 11);
	proto_pack_res_genesis(&mb, 1, &rsg);
	put_msg(dir, &mb);
}

static void
seed_scale(const char *dir, const char *fmtname, char **files, int n)
{
	static struct header	 h;
	static uint8_t		 enc[HEADER_SCALE_MAX];
	enum chain_format	 fmt;
	json_t			*j;
	json_error_t		 je;
	char			 err[160], name[256];
	const char		*base;
	uint8_t			 sel;
	long			 len;

	if (chain_format_parse(fmtname, &fmt) == -1) {
		fprintf(stderr, "fuzz_mkseed: %s: not a format\n", fmtname);
		exit(1);
	}
	sel = fmt == FORMAT_SUBSTRATE ? 1 : 0;
	for (int i = 0; i < n; i++) {
		if ((j = json_load_file(files[i], 0, &je)) == NULL ||
		    header_from_json(fmt, j, &h, err, sizeof(err)) == -1 ||
		    (len = header_encode(fmt, &h, enc, sizeof(enc))) == -1) {
			fprintf(stderr, "fuzz_mkseed: %s: not a %s header\n",
			    files[i], fmtname);
			exit(1);
		}
		json_decref(j);
		base = strrchr(files[i], '/') != NULL ?
		    strrchr(files[i], '/') + 1 : files[i];
		snprintf(name, sizeof(name), "%.200s.scale", base);
		put(dir, name, &sel, enc, (size_t)len);
	}
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "msg") == 0)
		seed_msgs(argv[2]);
	else if (argc >= 4 && strcmp(argv[1], "scale") == 0)
		seed_scale(argv[2], argv[3], argv + 4, argc - 4);
	else {
		fprintf(stderr, "usage: fuzz_mkseed msg DIR\n"
		    "       fuzz_mkseed scale DIR quantus|substrate "
		    "HEADER.json ...\n");
		return 2;
	}
	return 0;
}
