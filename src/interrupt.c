/* interrupt.c: the stop flag behind Ctrl-C, set from a sigaction handler. */
#include "interrupt.h"

#include <signal.h>
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
    /* SA_RESTART: reads and writes in progress resume rather than fail with EINTR; the
     * driver polls the flag, it does not need interrupted system calls. */
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    if (sigaction(SIGINT, &sa, NULL) != 0) return -1;
    if (sigaction(SIGTERM, &sa, NULL) != 0) return -1;
    return 0;
}

int sr_interrupt_pending(void) { return (int)sr_stop_signal; }

void sr_interrupt_reset(void) { sr_stop_signal = 0; }

void sr_interrupt_raise(int sig) { sr_stop_signal = sig; }
