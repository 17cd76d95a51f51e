/* SPDX-License-Identifier: MIT */
/*
 * dumpsys.c - standin-dumpsys: what framerec runs instead of /system/bin/dumpsys in tests
 * (framerec --dumpsys PATH). Invoked exactly as framerec invokes the real one,
 *   standin-dumpsys SurfaceFlinger --list
 *   standin-dumpsys SurfaceFlinger --latency NAME
 * it asks the stand-in SurfaceFlinger (sf_server.h) listening at $STANDIN_SF_SOCKET and
 * prints its answer, which is AOSP's text (compositor.h). As the real dumpsys: a service
 * it cannot reach is "Can't find service: NAME" on stderr and exit status 0 with nothing
 * on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sf_server.h"

static int ask(const char *path, const char *req)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char buf[4096];
	if (strlen(path) >= sizeof(a.sun_path))
		return -1;
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return -1;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *sock = getenv("STANDIN_SF_SOCKET");
	char req[SF_SERVER_REQ_MAX];

	if (argc < 3 || strcmp(argv[1], "SurfaceFlinger")) {
		fprintf(stderr, "usage: standin-dumpsys SurfaceFlinger --list | --latency NAME\n");
		return 1;
	}
	if (!strcmp(argv[2], "--list") && argc == 3)
		snprintf(req, sizeof(req), "list\n");
	else if (!strcmp(argv[2], "--latency") && argc == 4 && !strchr(argv[3], '\n'))
		snprintf(req, sizeof(req), "latency %s\n", argv[3]);
	else if (!strcmp(argv[2], "--latency") && argc == 3)
		snprintf(req, sizeof(req), "latency \n");
	else {
		fprintf(stderr, "standin-dumpsys: only --list and --latency [NAME]\n");
		return 1;
	}
	if (!sock || ask(sock, req)) {
		fprintf(stderr, "Can't find service: SurfaceFlinger\n");
		return 0;
	}
	return 0;
}
