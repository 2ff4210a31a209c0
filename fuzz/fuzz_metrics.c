/*
 * chainwatch-metrics on what chainwatchd answers on the control socket
 * to "metrics" (metrics/mtr_gather.c, included for its static parser):
 * the answer taken into a snapshot, which is then rendered as the
 * Prometheus exposition and the /health document, as a scrape does.
 * (HTTP requests themselves are parsed by libmicrohttpd; the handler
 * only compares the method and the path.)
 */
#include "config.h"

#include "fuzz.h"

#include "../metrics/mtr_gather.c"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_metrics");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mtr_snap	 s;
	struct buf	 out;
	json_error_t	 je;
	json_t		*a;
	char		 err[512];

	if ((a = json_loadb((const char *)data, size, 0, &je)) == NULL)
		return 0;
	memset(&s, 0, sizeof(s));
	s.now = 1764547200000;
	s.sup_up = sup_answer(&s, a, err, sizeof(err)) == 0;
	json_decref(a);
	buf_init(&out);
	mtr_expo(&s, &out);
	buf_reset(&out);
	(void)mtr_health(&s, &out);
	buf_free(&out);
	mtr_snap_free(&s);
	return 0;
}
