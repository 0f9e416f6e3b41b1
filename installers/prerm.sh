#!/bin/sh
# Debian prerm: on removal, stop the guard service and remove the unit, the level marker and the
# managed hooks. Users' stores under /var/lib/airlock are kept (purge them by hand).
set -e
case "$1" in
  remove|purge|deconfigure)
    /usr/bin/airlock system uninstall --bin-dir /usr/bin || echo "airlock: uninstalling the system level failed" >&2
    ;;
esac
exit 0
