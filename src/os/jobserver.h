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
 * handler if offlink is stopped.
 *
 * Only a pipe or a FIFO is a jobserver: MAKEFLAGS may name anything (a
 * regular file, whose bytes would be read as tokens and written back in
 * another order; a log file, which would be appended to; a FIFO that can
 * be written but not read, whose blocking open would hang), so the
 * descriptors or the path are checked with fstat/stat and opened without
 * blocking, and anything else is refused (and the link uses its own
 * parallelism). */
#ifndef OFFLINK_OS_JOBSERVER_H
#define OFFLINK_OS_JOBSERVER_H

#include <stdbool.h>
#include <stddef.h>

struct ol_jobserver {
	int rfd, wfd;         /* -1 when there is no jobserver */
	bool close_r, close_w;/* descriptors offlink opened */
	char tokens[256];     /* the tokens held, given back as they were */
	size_t held;
	char what[160];       /* "pipe 3,4", "fifo /tmp/GMfifo123": for -v; or
			       * why one was refused */
};

enum ol_jobserver_state { OL_JOBSERVER_NONE, OL_JOBSERVER_OK, OL_JOBSERVER_REFUSED };

/* From makeflags (the MAKEFLAGS value, may be NULL): OK and js set up when
 * it names a jobserver offlink can use; REFUSED (js->what says why) when
 * it names one that is not a pipe or FIFO offlink can open; NONE. */
enum ol_jobserver_state ol_jobserver_open(struct ol_jobserver *js, const char *makeflags);
/* Take one token if one is free now. */
bool ol_jobserver_try_take(struct ol_jobserver *js);
/* Give one token back. */
void ol_jobserver_give(struct ol_jobserver *js);
/* Give every token back and close what was opened. */
void ol_jobserver_close(struct ol_jobserver *js);
/* Async-signal-safe: give every token back (the process is ending). */
void ol_jobserver_give_all_from_signal(void);

#endif
