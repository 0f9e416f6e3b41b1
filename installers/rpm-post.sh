#!/bin/sh
# RPM %post: install the system protection level (see postinst.sh).
/usr/bin/airlock system install --bin-dir /usr/bin
