#include "common/message.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/escape.h"

void ol_vmessage(const char *tool, const char *kind, const char *fmt, va_list ap)
{
	char *text = NULL;
	struct ol_buf b = { 0 };
	int n = vasprintf(&text, fmt, ap);

	if (n < 0 || ol_escape_terminal(&b, text, (size_t)n))
		fprintf(stderr, "%s: %s%s(out of memory formatting a message)\n", tool,
			kind ? kind : "", kind ? ": " : "");
	else
		fprintf(stderr, "%s: %s%s%s\n", tool, kind ? kind : "", kind ? ": " : "",
			(char *)b.data);
	free(text);
	ol_buf_free(&b);
}

void ol_message(const char *tool, const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ol_vmessage(tool, kind, fmt, ap);
	va_end(ap);
}

void ol_message_diag(const char *tool, const struct ol_diag *d)
{
	char msg[2048];

	ol_diag_format(d, msg, sizeof(msg));
	ol_message(tool, "error", "%s", msg);
}
