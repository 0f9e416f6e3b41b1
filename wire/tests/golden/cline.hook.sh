#!/bin/sh
# airlock-managed hook: `airlock unwire cline` removes it.
exec '/opt/Airlock Tools/bin/airlock' hook cline
