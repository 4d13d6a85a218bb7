// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's ftrace events for the scheduler's bare tracepoints
 * (sched_tp.h), instantiated the kernel's way: CREATE_TRACE_POINTS before
 * the header makes each TRACE_EVENT() its event in _ftrace_events, its
 * fields and print format, and the class probe that writes its record,
 * which the harness's probes of the bare tracepoints call for a trace.dat
 * (trace_probes.c). Their fast-assigns read the scheduler's structures as
 * those probes do.
 */
#include "internal.h"

#include "series.h"

#define CREATE_TRACE_POINTS
#include "sched_tp.h"
