/* --record FILE.jsonl on check and watch: the recorder sink, its messages on stderr. */
#include "cli.h"
#include "gpudoctor/session.h"
#include "report/recorder.h"

#include <stdio.h>

static void record_log(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "\ngpudoctor: %s\n", msg);
}

int gd_cli_record(gd_session *s, const char *path, gd_recorder **out, char *err, size_t errlen)
{
    *out = gd_recorder_open(path, record_log, NULL, err, errlen);
    if (!*out)
        return -1;
    gd_sink sink = gd_recorder_sink(*out);
    if (gd_session_add_sink(s, &sink) != 0) {
        gd_recorder_close(*out);
        *out = NULL;
        snprintf(err, errlen, "--record: too many sinks");
        return -1;
    }
    return 0;
}
