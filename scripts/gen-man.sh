#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the man page gpudoctor.1 from the binary's own help texts, so that
# the page and --help never disagree:  gen-man.sh BINARY > gpudoctor.1
set -euo pipefail
bin=${1:?usage: gen-man.sh BINARY}
# The help texts as they wrap at 72 columns: man indents them by 7, and the
# page then fits an 80-column terminal.
export COLUMNS=72
version=$("$bin" --version | sed -n 's/^gpudoctor //p')

# Help text as roff: no-fill, backslashes and hyphens escaped, a leading dot
# or quote protected.
roff() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cat <<HEAD
.TH GPUDOCTOR 1 "" "gpudoctor $version" "User Commands"
.SH NAME
gpudoctor \\- finds out why a GPU server trains AI models slower than it should
.SH SYNOPSIS
.nf
HEAD
for cmd in $("$bin" help --commands); do
    "$bin" help "$cmd" | sed -n '1,/^$/p' | sed '/^$/d' | sed 's/^usage: //; s/^       //' | roff
done
cat <<'MID'
.fi
.SH DESCRIPTION
.nf
MID
"$bin" --help | sed '1,2d' | roff
echo ".fi"
echo ".SH COMMANDS"
for cmd in $("$bin" help --commands); do
    echo ".SS gpudoctor $cmd"
    echo ".nf"
    "$bin" help "$cmd" | roff
    echo ".fi"
done
cat <<'TAIL'
.SH FILES
.TP
.I /etc/gpudoctor.conf
.TQ
.I $XDG_CONFIG_HOME/gpudoctor.conf
What \fBcheck\fR accepts: findings to ignore, severities, thresholds and
\fBfail_on\fR, in INI form (\fB\-\-config\fR \fIFILE\fR reads another file instead).
.SH ENVIRONMENT
.TP
.B NO_COLOR
no colour in the text reports.
.TP
.B COLUMNS
the width the text reports wrap at (else the terminal's, 80 when not a terminal).
.TP
.B GPUDOCTOR_NVML_LIBRARY, GPUDOCTOR_CUDA_LIBRARY
the NVIDIA libraries to load instead of libnvidia\-ml.so.1 and libcuda.so.1.
.TP
.B GPUDOCTOR_SIM_DIR
where the simulated libraries of \fB\-\-sim\fR are (else beside the binary, or in ../libexec/gpudoctor).
.TP
.B GPUDOCTOR_SIM_TIMESCALE
pace of a simulated machine, in scenario seconds per wall second; beside a live
job (\fBrun\fR, \fB\-\-pid\fR on this machine's /proc) a scenario always plays at wall speed.
.TP
.B GPUDOCTOR_ROOT
a directory laid out like / to read the software stack from.
.TP
.B GPUDOCTOR_SYS_ROOT
a directory laid out like /sys to read the PCI bus from (else /sys).
.SH EXIT STATUS
\fBcheck\fR: 0 no problem, 1 warnings, 2 critical findings, 3 could not check
(also on a machine without an NVIDIA GPU on its PCI bus: "no NVIDIA GPU on this machine").
\fBrun \-\-exit\-findings\fR and \fBfleet \-\-exit\-findings\fR use the codes of \fBcheck\fR.
Other commands: 0 success, 3 error.
TAIL
