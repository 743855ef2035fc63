/* Software stack facts: runtimes, frameworks, environment, kernel log. */
#include "gpudoctor/stack.h"

#include <stdlib.h>

int gd_stack_collect(gd_facts *f, const gd_stack_opts *o)
{
    (void)f;
    (void)o;
    return 0;
}

void gd_stack_facts_free(gd_stack_facts *s)
{
    free(s);
}
