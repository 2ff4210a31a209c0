/*
 * The INI configuration (src/conf.c), as chainwatchd, chainwatch and
 * chainwatch-metrics read it: parsed from text, its errors collected,
 * and what it holds dumped as chainwatchd -n shows it.
 */
#include "config.h"

#include <stdio.h>

#include "conf.h"
#include "fuzz.h"

static FILE	*null_fp;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_log_init("fuzz_conf");
	if ((null_fp = fopen("/dev/null", "w")) == NULL)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf	*conf;
	char		*text;

	text = fuzz_cstr(data, size);
	conf = conf_load_string("fuzz.conf", text);
	if (conf != NULL && conf->n_errors == 0)
		conf_dump(conf, null_fp);
	conf_free(conf);
	free(text);
	return 0;
}
