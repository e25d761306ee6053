/* interrupt.h: Ctrl-C (SIGINT) and SIGTERM during a long render. The handler only sets a
 * flag; the frame driver polls it between samples and bounces (the CPU backend also inside
 * a stage), so a render stops within a fraction of a second and the CLI decides what to
 * write. A second signal kills the process the default way, for when something is stuck. */
#ifndef SR_INTERRUPT_H
#define SR_INTERRUPT_H

/* Install the handlers for SIGINT and SIGTERM (idempotent). Returns 0, or -1 with errno. */
int sr_interrupt_install(void);

/* The signal that asked us to stop (SIGINT or SIGTERM), or 0 while none has. Safe to call
 * from any thread, as often as wanted (a read of a volatile sig_atomic_t). */
int sr_interrupt_pending(void);

/* Clear the flag (tests; the CLI never needs to). */
void sr_interrupt_reset(void);

/* For tests: behave as if `sig` had arrived. */
void sr_interrupt_raise(int sig);

#endif
