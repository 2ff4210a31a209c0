/*
 * Small things every chainwatch program shares: exit codes, checked
 * allocation, clocks, URL redaction.
 */
#ifndef CW_UTIL_H
#define CW_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes, in the s6 tradition: each one means one thing. */
#define CW_EXIT_OK		0
#define CW_EXIT_CONFIG		1	/* the configuration is invalid */
#define CW_EXIT_SETUP		78	/* worker setup failed: do not respawn */
#define CW_EXIT_USAGE		100	/* bad command line */
#define CW_EXIT_INTERNAL	101	/* a broken invariant: a bug */
#define CW_EXIT_SYSTEM		111	/* a system call or resource failed */

#define nitems(a)	(sizeof(a) / sizeof((a)[0]))

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);

/* Milliseconds on the monotonic clock, and on the wall clock. */
uint64_t now_mono_ms(void);
uint64_t now_wall_ms(void);
/* now, or *last if the clock stepped back; *last becomes it. */
uint64_t clock_forward(uint64_t *last, uint64_t now);
void	 mem_setup(int one_arena);
void	 mem_setup_children(void);
void	 mem_give_back(uint64_t now_ms);
uint64_t mem_in_use(void);

/*
 * Copy url into out with its secrets replaced: the password of the
 * userinfo ("https://u:secret@h/" -> "https://u:***@h/") and the value of
 * every query parameter whose name holds a secret word, in any case
 * ("?apikey=s&n=1" -> "?apikey=***&n=1").  The words are key, token,
 * secret, pass, auth, sig and credential, and those url_secret_words
 * added.  A URL without secrets is copied unchanged.
 */
void	url_redact(const char *url, char *out, size_t outlen);
/*
 * More secret words, separated by spaces or commas (the secret_params
 * key), replacing those added before; "" adds none.
 */
void	url_secret_words(const char *list);
#define URL_WORDS_MAX	512

#endif
