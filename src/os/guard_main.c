/* offlink-guard <offlink's pid> <error pipe fd> <tool> <args...>: the
 * guard of one tool; offlink-guard --watch <socket fd>: the
 * link's watchdog (os/guard.h).  offlink runs it instead of a second copy
 * of itself when it is installed beside offlink. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/guard.h"

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--watch") == 0)
		ol_guard_watch((int)strtol(argv[2], NULL, 10));
	if (argc < 4)
		return 127;
	ol_guard_exec((pid_t)strtol(argv[1], NULL, 10), (int)strtol(argv[2], NULL, 10), argv + 3);
}
