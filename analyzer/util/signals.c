/* SPDX-License-Identifier: MIT */
/* signals.c - temporary files vs. stop signals; see signals.h. */
#include "signals.h"

#include <string.h>
#include <unistd.h>

static char unlink_path[2][4096];
static volatile sig_atomic_t unlink_armed;
static volatile sig_atomic_t stop_signal;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* unlink() and raise() are async-signal-safe; SA_RESETHAND makes the raise fatal. */
static void unlink_and_die(int sig)
{
	if (unlink_armed) {
		unlink(unlink_path[0]);
		if (unlink_path[1][0])
			unlink(unlink_path[1]);
	}
	raise(sig);
}

static void note_stop(int sig)
{
	stop_signal = sig;
}

static void on_stop_signals(void (*handler)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

void sig_unlink_on_stop(const char *path, const char *also)
{
	unlink_armed = 0;
	if (!path || strlen(path) >= sizeof(unlink_path[0]) ||
	    (also && strlen(also) >= sizeof(unlink_path[1]))) {
		on_stop_signals(SIG_DFL, 0);
		return;
	}
	strcpy(unlink_path[0], path);
	strcpy(unlink_path[1], also ? also : "");
	unlink_armed = 1;
	on_stop_signals(unlink_and_die, SA_RESETHAND);
}

volatile sig_atomic_t *sig_catch_stop(void)
{
	stop_signal = 0;
	/* no SA_RESTART: a blocking read returns EINTR instead of waiting on */
	on_stop_signals(note_stop, 0);
	return &stop_signal;
}

void sig_end_stop(void)
{
	int sig = stop_signal;

	on_stop_signals(SIG_DFL, 0);
	if (sig)
		raise(sig); /* die of the signal, as the shell expects of Ctrl-C */
}
