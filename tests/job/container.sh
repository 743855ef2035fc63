#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# An emulated container for gpudoctor's tests, started as
#   unshare --pid --fork --mount-proc --mount tests/job/container.sh COMMAND...
# In its own pid and mount namespaces (nothing leaks to the host: the mounts
# are private) /dev is replaced by a small tree: the host's null, zero,
# random, urandom and shm, and regular files named nvidia0, nvidiactl and
# nvidia-uvm standing in for the NVIDIA device files a container is given.
# Then COMMAND runs, as pid 1's child, where NVML (simulated) lists no process.
set -eu
dev=$(mktemp -d)
mount -t tmpfs -o mode=755 gpudoctor-dev "$dev"
for n in null zero full random urandom tty; do
    [ -e "/dev/$n" ] || continue
    touch "$dev/$n"
    mount --bind "/dev/$n" "$dev/$n"
done
mkdir "$dev/shm"
mount --bind /dev/shm "$dev/shm"
ln -s /proc/self/fd "$dev/fd"
for n in nvidia0 nvidiactl nvidia-uvm; do
    : >"$dev/$n"
done
mount --rbind "$dev" /dev
umount -l "$dev" # reachable as /dev now; the empty directory goes
rmdir "$dev"
exec "$@"
