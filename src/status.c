#include "status.h"

#include <stdarg.h>
#include <stdio.h>

sr_status sr_fail(sr_error *err, sr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}
