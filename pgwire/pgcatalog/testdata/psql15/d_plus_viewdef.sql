SELECT pg_catalog.pg_get_viewdef('{{OID}}'::pg_catalog.oid, true);
