/* PCIe facts from sysfs. */
#include "gpudoctor/pcie.h"

#include <stdlib.h>

int gd_pcie_collect(gd_facts *f)
{
    (void)f;
    return 0;
}

void gd_pcie_facts_free(gd_pcie_facts *p)
{
    free(p);
}
