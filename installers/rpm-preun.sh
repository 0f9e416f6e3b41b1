#!/bin/sh
# RPM %preun: on the last removal ($1 = 0), remove the system level (see prerm.sh).
if [ "$1" = 0 ]; then
  /usr/bin/airlock system uninstall --bin-dir /usr/bin || echo "airlock: uninstalling the system level failed" >&2
fi
exit 0
