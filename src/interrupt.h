/* interrupt.h: Ctrl-C (SIGINT) and SIGTERM during a long render. The handler only sets a
 * flag; the frame driver polls it between samples and bounces (the CPU backend also inside
 * a stage), so a render stops within a fraction of a second and the CLI decides what to
 * write. A second signal kills the process the default way, for when something is stuck.
 * A read or write blocked on a pipe or a terminal is interrupted (EINTR), not resumed. */
#ifndef SR_INTERRUPT_H
#define SR_INTERRUPT_H

/* Install the handlers for SIGINT and SIGTERM (idempotent). Returns 0, or -1 with errno. */
int sr_interrupt_install(void);

/* The signal that asked us to stop (SIGINT or SIGTERM), or 0 while none has. Safe to call
 * from any thread, as often as wanted (a read of a volatile sig_atomic_t). */
int sr_interrupt_pending(void);

/* After a read or write failed with errno `err`: 1 when a signal interrupted it without
 * asking us to stop (try it again), 0 otherwise (a stop is pending: give up with
 * SR_INTERRUPTED; or a real error). The handlers are installed without SA_RESTART, so a
 * blocked read or write returns EINTR when SIGINT or SIGTERM arrives. */
int sr_interrupt_retry(int err);

/* After a stop: 1 when a message can go to standard error without waiting, else 0. A stop
 * may have interrupted a write to a pipe nobody reads; the message must not block again. */
int sr_interrupt_can_report(void);

/* Clear the flag (tests; the CLI never needs to). */
void sr_interrupt_reset(void);

/* For tests: behave as if `sig` had arrived. */
void sr_interrupt_raise(int sig);

#endif
