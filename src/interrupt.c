/* interrupt.c: the stop flag behind Ctrl-C, set from a sigaction handler. */
#include "interrupt.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t sr_stop_signal = 0;

static void sr_on_signal(int sig)
{
    /* Async-signal-safe: one store. SA_RESETHAND has already put back the default action,
     * so a second Ctrl-C terminates at once if the render does not stop by itself. */
    sr_stop_signal = sig;
}

int sr_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sr_on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a read or write blocked on a pipe, a terminal or a slow file system
     * (or an open() of a FIFO) fails with EINTR instead of resuming, so a stop asked for
     * while the program waits is acted on (sr_interrupt_retry decides what to do next). */
    sa.sa_flags = SA_RESETHAND;
    if (sigaction(SIGINT, &sa, NULL) != 0) return -1;
    if (sigaction(SIGTERM, &sa, NULL) != 0) return -1;
    return 0;
}

int sr_interrupt_pending(void) { return (int)sr_stop_signal; }

int sr_interrupt_retry(int err) { return err == EINTR && !sr_stop_signal; }

int sr_interrupt_can_report(void)
{
    struct pollfd p = { 2, POLLOUT, 0 };
    return !ferror(stderr) && poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) && !(p.revents & (POLLERR | POLLNVAL));
}

void sr_interrupt_reset(void) { sr_stop_signal = 0; }

void sr_interrupt_raise(int sig) { sr_stop_signal = sig; }
