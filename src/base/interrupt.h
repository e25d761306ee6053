/* interrupt.h: Ctrl-C (SIGINT) and SIGTERM during a long render. The handler sets a flag
 * (or, inside a quick-stop step, ends the program: below); the frame driver polls it between samples and bounces (the CPU backend also inside
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

/* A long step that writes nothing and cannot poll the flag: cJSON's parse of a large scene,
 * an image deflated in memory before its first byte is written. Between begin and end, a
 * stop signal ends the program from the handler at once: one line on stderr ("stencilray:
 * interrupted (SIGTERM) while WHAT; nothing written"; only if stderr can take it without
 * waiting), then _exit(128 + the signal). The caller promises that no output file, not even
 * a temporary, exists meanwhile. A stop already pending at begin ends it there. `what` must
 * stay valid until end (a string literal). Steps do not nest. */
void sr_interrupt_quick_begin(const char *what);
void sr_interrupt_quick_end(void);

/* Clear the flag (tests; the CLI never needs to). */
void sr_interrupt_reset(void);

/* For tests: behave as if `sig` had arrived. */
void sr_interrupt_raise(int sig);

#endif
