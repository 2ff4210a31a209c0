/*
 * A plain main() for a fuzz target: feeds each file named (or each file
 * of each directory named) to LLVMFuzzerTestOneInput once, so that gcc
 * builds without libFuzzer replay the corpora and the crash reproducers.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static unsigned	replayed;

static int
replay_file(const char *path)
{
	FILE		*fp;
	uint8_t		*buf = NULL;
	size_t		 len = 0, cap = 0, n;

	if ((fp = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap == 0 ? 4096 : cap * 2;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	if (ferror(fp)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(fp);
		free(buf);
		return -1;
	}
	fclose(fp);
	/* An exact-size copy, so that ASan sees reads past the input. */
	uint8_t *in = malloc(len > 0 ? len : 1);
	if (in == NULL)
		abort();
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	replayed++;
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a directory, in name order, so runs are repeatable. */
static int
replay_dir(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL, path[4096];
	size_t		 n = 0, cap = 0;
	struct stat	 st;
	int		 rc = 0;

	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			if ((names = realloc(names, cap * sizeof(*names))) ==
			    NULL)
				abort();
		}
		if ((names[n++] = strdup(de->d_name)) == NULL)
			abort();
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    replay_file(path) == -1)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat	st;
	int		rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR ...\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == -1) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode) ? replay_dir(argv[i]) == -1 :
		    replay_file(argv[i]) == -1)
			rc = 1;
	}
	printf("%s: replayed %u inputs\n", argv[0], replayed);
	return rc;
}
