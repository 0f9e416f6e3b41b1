#!/bin/sh
# Debian postinst: install the system protection level (service user, /var/lib/airlock,
# root-owned /etc/airlock, the hardened systemd unit, Claude Code's managed hooks) and, where
# systemd runs, start the guard service. Idempotent; `airlock system install` says what it did.
set -e
case "$1" in
  configure|"")
    /usr/bin/airlock system install --bin-dir /usr/bin
    ;;
esac
exit 0
