SELECT r.rulename, trim(trailing ';' from pg_catalog.pg_get_ruledef(r.oid, true))
FROM pg_catalog.pg_rewrite r
WHERE r.ev_class = '{{OID}}' AND r.rulename != '_RETURN' ORDER BY 1;
