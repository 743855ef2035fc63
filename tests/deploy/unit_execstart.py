#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""unit_execstart.py UNIT [ENVIRONMENT_FILE]: the unit's ExecStart as systemd
expands it, one word per line: the unit's Environment= first, then the
environment file's assignments over them; "$VAR" splits into words at
white space, "${VAR}" stays within its word (systemd.service, "Command
lines"). Only what the shipped unit uses: no quoting, no specifiers."""
import re
import shlex
import sys


def unit_settings(path):
    env, exec_start = {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith("Environment="):
            for word in shlex.split(line[len("Environment="):]):
                k, _, v = word.partition("=")
                env[k] = v
        elif line.startswith("ExecStart="):
            exec_start = line[len("ExecStart="):]
    return env, exec_start


def environment_file(path, env):
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        k, _, v = line.partition("=")
        env[k] = " ".join(shlex.split(v))


def expand(cmd, env):
    words = []
    for w in cmd.split():
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
        if m:
            words += env.get(m.group(1), "").split()
        else:
            words.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda g: env.get(g.group(1), ""), w))
    return words


env, cmd = unit_settings(sys.argv[1])
if cmd is None:
    sys.exit("%s has no ExecStart=" % sys.argv[1])
if len(sys.argv) > 2:
    environment_file(sys.argv[2], env)
print("\n".join(expand(cmd, env)))
