/* A client of GNU make's jobserver.  Under `make -jN`, MAKEFLAGS names a
 * pipe or a fifo holding one token per free job slot; a recipe holds one
 * slot already and takes a token for each further process it runs at the
 * same time, giving it back when that process ends.  offlink's device
 * links so share make's N slots instead of starting one per CPU on top
 * of make's own jobs.
 *
 * Tokens are taken without blocking (a descriptor of offlink's own on the
 * pipe or fifo, never make's, is made non-blocking), so the pool waits for
 * its own children rather than for a token that may not come.  The
 * tokens held are given back when the pool is done, and by the signal
 * handler if offlink is stopped. */
#ifndef OFFLINK_OS_JOBSERVER_H
#define OFFLINK_OS_JOBSERVER_H

#include <stdbool.h>
#include <stddef.h>

struct ol_jobserver {
	int rfd, wfd;         /* -1 when there is no jobserver */
	bool close_r, close_w;/* descriptors offlink opened */
	char tokens[256];     /* the tokens held, given back as they were */
	size_t held;
	char what[80];        /* "pipe 3,4", "fifo /tmp/GMfifo123": for -v */
};

/* From makeflags (the MAKEFLAGS value, may be NULL): true and js set up
 * when it names a jobserver offlink can use. */
bool ol_jobserver_open(struct ol_jobserver *js, const char *makeflags);
/* Take one token if one is free now. */
bool ol_jobserver_try_take(struct ol_jobserver *js);
/* Give one token back. */
void ol_jobserver_give(struct ol_jobserver *js);
/* Give every token back and close what was opened. */
void ol_jobserver_close(struct ol_jobserver *js);
/* Async-signal-safe: give every token back (the process is ending). */
void ol_jobserver_give_all_from_signal(void);

#endif
