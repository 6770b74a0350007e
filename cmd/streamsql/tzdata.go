package main

// The time zone database is compiled in, so TIMESTAMPTZ, AT TIME ZONE and
// SET TIME ZONE find IANA zones in a static binary on a host (or
// container) without /usr/share/zoneinfo.
import _ "time/tzdata"
