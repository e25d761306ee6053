/* interrupt.c: the stop flag behind Ctrl-C, set from a sigaction handler. */
#include "interrupt.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t sr_stop_signal = 0;

/* The quick step in progress (interrupt.h), or NULL. Lock-free atomics: the handler may run
 * on any thread (OpenMP's too), and reads this with one load. */
static _Atomic(const char *) sr_quick_what;

/* Async-signal-safe: poll, write and _exit only, the line built in a local buffer. */
static void sr_quick_exit(int sig, const char *what)
{
    char line[256];
    size_t n = 0;
    const char *parts[] = { "stencilray: interrupted (", sig == SIGTERM ? "SIGTERM" : "SIGINT", ") while ", what,
                            "; nothing written\n" };
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        for (const char *c = parts[k]; *c && n < sizeof line - 1; c++) line[n++] = *c;
    if (line[n - 1] != '\n') line[n++] = '\n';
    struct pollfd p = { 2, POLLOUT, 0 };
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) && !(p.revents & (POLLERR | POLLNVAL))) {
        const ssize_t put = write(2, line, n);
        (void)put;   /* nothing more to do if stderr refuses it */
    }
    _exit(128 + sig);
}

static void sr_on_signal(int sig)
{
    /* Async-signal-safe: one store, or the quick exit. SA_RESETHAND has already put back the
     * default action, so a second Ctrl-C terminates at once if the render does not stop by
     * itself. */
    sr_stop_signal = sig;
    const char *what = atomic_load(&sr_quick_what);
    if (what) sr_quick_exit(sig, what);
}

void sr_interrupt_quick_begin(const char *what)
{
    atomic_store(&sr_quick_what, what);
    const int sig = (int)sr_stop_signal;
    if (sig) sr_quick_exit(sig, what);   /* asked before the step began: it need not run */
}

void sr_interrupt_quick_end(void) { atomic_store(&sr_quick_what, NULL); }

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
