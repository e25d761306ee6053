/* fault.h: a test-only switch that makes a named stage fail the way a CUDA error would, so
 * the failure path (message, exit code 1, no output file, no hang) is tested on every
 * machine. Read from the environment once:
 *
 *   SR_FAULT=launch:STAGE[@N]   the N-th (default first) launch of STAGE fails at launch
 *                               (CUDA: the stage's kernel launched for real with 2048 threads
 *                               per block, which the driver refuses: cudaErrorInvalidValue)
 *   SR_FAULT=kernel:STAGE[@N]   the N-th launch of STAGE faults while it runs (CUDA: the
 *                               kernel is given a ray pool at address 0 and takes an illegal
 *                               address, a sticky error seen at the next synchronisation)
 *   SR_FAULT=alloc              allocating the ray pool fails (CUDA: a real cudaMalloc of an
 *                               impossible size; CPU: as if malloc returned NULL)
 *
 * STAGE is generate, intersect, shade, compact, megakernel or wave, as sr_kernel_name spells
 * them (fault.c lists the kernels). Launches are checked in one place, sr_backend_launch
 * (backend.h), which hands the fault to the backend's launch in sr_launch_args.fault;
 * allocations in each backend's upload. The CPU backend honours every form, reporting the
 * injected fault as a runtime error named like the CUDA one. */
#ifndef SR_FAULT_H
#define SR_FAULT_H

typedef enum sr_fault_kind { SR_FAULT_NONE = 0, SR_FAULT_LAUNCH, SR_FAULT_KERNEL, SR_FAULT_ALLOC } sr_fault_kind;

/* Count one event (a launch of `stage`, or an allocation for SR_FAULT_ALLOC with stage
 * NULL) and say whether the switch makes this one fail: returns the fault's kind, or
 * SR_FAULT_NONE. Without SR_FAULT set this is one branch. */
sr_fault_kind sr_fault_check(sr_fault_kind kind, const char *stage);

/* The switch's text ("launch:shade@2"), or "" when unset, for messages. */
const char *sr_fault_spec(void);

#endif
