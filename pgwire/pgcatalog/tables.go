package pgcatalog

import (
	"bufio"
	"embed"
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

//go:embed seed
var seedFS embed.FS

// Well-known OIDs (as in Postgres 15).
const (
	nspCatalog = 11
	nspPublic  = 2200
	nspInfo    = 13207
	nspSystem  = 16383 // streamsql_catalog: the system tables
	userOID    = 10
	dbOID      = 5
	heapAM     = 2
	btreeAM    = 403
	collDef    = 100
	firstOID   = 16384
)

var (
	seedOnce   sync.Once
	seedErr    error
	tableCols  map[string][]colDef // "pg_catalog.pg_class" → columns
	seedRows   map[string][][]any  // "pg_type" → rows
	seedTypNam map[uint32]string
	startedAt  = time.Now().UTC()
)

// loadSeed reads the column lists (captured from a Postgres 15 server's
// pg_attribute) and the seed rows (COPY text of pg_type, pg_am, ...).
func loadSeed() error {
	seedOnce.Do(func() {
		tableCols = map[string][]colDef{}
		seedRows = map[string][][]any{}
		seedTypNam = map[uint32]string{}
		b, err := seedFS.ReadFile("seed/columns.txt")
		if err != nil {
			seedErr = err
			return
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			name, list, ok := strings.Cut(line, ": ")
			if !ok {
				seedErr = fmt.Errorf("seed/columns.txt: bad line %q", line)
				return
			}
			var cols []colDef
			for _, c := range strings.Split(list, ", ") {
				cn, tn, _ := strings.Cut(c, " ")
				t, ok := lookupType(tn)
				if !ok {
					seedErr = fmt.Errorf("seed/columns.txt: %s.%s: unknown type %q", name, cn, tn)
					return
				}
				cols = append(cols, colDef{name: cn, t: t})
			}
			tableCols[name] = cols
		}
		ents, err := seedFS.ReadDir("seed")
		if err != nil {
			seedErr = err
			return
		}
		for _, e := range ents {
			tn, ok := strings.CutSuffix(e.Name(), ".tsv")
			if !ok {
				continue
			}
			cols := tableCols["pg_catalog."+tn]
			f, err := seedFS.Open("seed/" + e.Name())
			if err != nil {
				seedErr = err
				return
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				fields := strings.Split(sc.Text(), "\t")
				if len(fields) != len(cols) {
					seedErr = fmt.Errorf("seed/%s: %d fields, want %d", e.Name(), len(fields), len(cols))
					return
				}
				row := make([]any, len(cols))
				for i, fv := range fields {
					if fv != `\N` {
						row[i] = parseText(copyUnescape(fv), cols[i].t)
					}
				}
				seedRows[tn] = append(seedRows[tn], row)
			}
			_ = f.Close()
		}
		for _, r := range seedRows["pg_type"] {
			seedTypNam[uint32(r[0].(int64))] = r[1].(string)
		}
	})
	return seedErr
}

func seedTypeName(t uint32) (string, bool) {
	n, ok := seedTypNam[t]
	return n, ok
}

func copyUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r").Replace(s)
}

// parseText converts a value's text form to the evaluator's value.
func parseText(s string, t uint32) any {
	switch classOf(t) {
	case 'i':
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		return s
	case 'f':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return s
	case 'b':
		b, _ := types.ParseBool(s)
		return b
	case 'a', 'v':
		arr := parseArray(s)
		el := typeInfos[t].elem
		for i, e := range arr {
			if e != nil {
				arr[i] = parseText(e.(string), el)
			}
		}
		return arr
	}
	return s
}

// objInfo is an Object with its OIDs: the relation, its row type, its
// key's index and constraint.
type objInfo struct {
	Object
	name               string // lower-cased
	key                string // name, qualified outside public (byName)
	nsp                int64  // its namespace's OID
	schema             string // its namespace's name
	oid, typ, idx, con int64
	relkind            string
	keyNums            []any // attnums of the key columns
}

// catData is one call's view of the catalog.
type catData struct {
	s      Session
	objs   []*objInfo // by name
	byOID  map[int64]*objInfo
	byName map[string]*objInfo
	procs  []row // pg_proc's rows of the SQL functions (sqlProcRows)
}

func newCatData(objs []Object, s Session) *catData {
	cd := &catData{s: s, byOID: map[int64]*objInfo{}, byName: map[string]*objInfo{}}
	var fns []Object
	for _, o := range objs {
		if o.Kind == "function" {
			fns = append(fns, o)
			continue
		}
		oi := &objInfo{Object: o, name: strings.ToLower(o.Name), nsp: nspPublic, schema: "public"}
		oi.key = oi.name
		if o.Schema == SystemSchema {
			oi.nsp, oi.schema, oi.key = nspSystem, SystemSchema, SystemSchema+"."+oi.name
			oi.relkind = "r"
		}
		switch {
		case oi.nsp == nspSystem:
		case o.Kind == "materialized view" || o.Kind == "view":
			oi.relkind = "m"
		case o.Kind == "sink":
			oi.relkind = "f"
		default:
			oi.relkind = "r"
		}
		for _, k := range o.Key {
			for i, c := range o.Columns {
				if strings.EqualFold(c.Name, k) {
					oi.keyNums = append(oi.keyNums, int64(i+1))
				}
			}
		}
		cd.objs = append(cd.objs, oi)
	}
	sort.Slice(cd.objs, func(i, j int) bool { return cd.objs[i].key < cd.objs[j].key })
	for _, oi := range cd.objs {
		h := fnv.New32a()
		h.Write([]byte(oi.key))
		base := firstOID + int64(h.Sum32()%((1<<31-firstOID)/4))*4
		for cd.byOID[base] != nil {
			base += 4
			if base >= 1<<31 {
				base = firstOID
			}
		}
		oi.oid, oi.typ, oi.idx, oi.con = base, base+1, base+2, base+3
		cd.byOID[base] = oi
		cd.byOID[base+2] = oi
		cd.byName[oi.key] = oi
	}
	cd.procs = sqlProcRows(fns)
	return cd
}

func (cd *catData) schema() string {
	if cd.s.Schema != "" {
		return cd.s.Schema
	}
	return "public"
}

func (cd *catData) hasKey(oi *objInfo) bool { return len(oi.keyNums) > 0 }

// catalogTableOIDs are the OIDs of the catalog tables clients name in
// 'pg_class'::regclass (pg_description.classoid and the like).
var catalogTableOIDs = map[string]int64{
	"pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259, "pg_database": 1262,
	"pg_am": 2601, "pg_attrdef": 2604, "pg_constraint": 2606, "pg_description": 2609, "pg_index": 2610,
	"pg_inherits": 2611, "pg_namespace": 2615, "pg_rewrite": 2618, "pg_trigger": 2620, "pg_policy": 3256,
	"pg_collation": 3456, "pg_foreign_table": 3118, "pg_extension": 3079, "pg_statistic_ext": 3381,
	"pg_publication": 6104, "pg_tablespace": 1213, "pg_authid": 1260, "pg_language": 2612,
}

func (cd *catData) relName(oid int64) string {
	for n, o := range catalogTableOIDs {
		if o == oid {
			return n
		}
	}
	if oi := cd.byOID[oid]; oi != nil {
		name := quoteIdent(oi.name)
		if oid == oi.idx {
			name = quoteIdent(oi.name + "_pkey")
		}
		if oi.nsp != nspPublic {
			name = oi.schema + "." + name
		}
		return name
	}
	return strconv.FormatInt(oid, 10)
}

// relByName resolves a relation name as regclass input does.
func (cd *catData) relByName(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{"public.", "\"public\"."} {
		s = strings.TrimPrefix(s, p)
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(s), SystemSchema+"."); ok {
		if oi := cd.byName[SystemSchema+"."+strings.Trim(rest, `"`)]; oi != nil {
			return oi.oid, true
		}
	}
	if strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) && len(s) > 1 {
		s = strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	} else {
		s = strings.ToLower(s)
	}
	if oi := cd.byName[s]; oi != nil {
		return oi.oid, true
	}
	if oid, ok := catalogTableOIDs[strings.TrimPrefix(s, "pg_catalog.")]; ok {
		return oid, true
	}
	if n, ok := strings.CutSuffix(s, "_pkey"); ok {
		if oi := cd.byName[n]; oi != nil && cd.hasKey(oi) {
			return oi.idx, true
		}
	}
	return 0, false
}

func (cd *catData) nspName(oid int64) string {
	switch oid {
	case nspCatalog:
		return "pg_catalog"
	case nspPublic:
		return "public"
	case nspInfo:
		return "information_schema"
	case nspSystem:
		return SystemSchema
	}
	return strconv.FormatInt(oid, 10)
}

func (cd *catData) nspByName(s string) (int64, bool) {
	switch strings.ToLower(strings.Trim(s, `"`)) {
	case "pg_catalog":
		return nspCatalog, true
	case "public":
		return nspPublic, true
	case "information_schema":
		return nspInfo, true
	case SystemSchema:
		return nspSystem, true
	}
	return 0, false
}

func (cd *catData) keyCols(oi *objInfo) string {
	var names []string
	for _, n := range oi.keyNums {
		names = append(names, quoteIdent(strings.ToLower(oi.Columns[n.(int64)-1].Name)))
	}
	return strings.Join(names, ", ")
}

func (cd *catData) indexDef(oid, col int64) any {
	oi := cd.byOID[oid]
	if oi == nil || oid != oi.idx {
		return nil
	}
	if col > 0 {
		if int(col) > len(oi.keyNums) {
			return ""
		}
		return quoteIdent(strings.ToLower(oi.Columns[oi.keyNums[col-1].(int64)-1].Name))
	}
	return fmt.Sprintf("CREATE UNIQUE INDEX %s ON public.%s USING btree (%s)", quoteIdent(oi.name+"_pkey"), quoteIdent(oi.name), cd.keyCols(oi))
}

func (cd *catData) constraintDef(oid int64) any {
	oi := cd.byOID[oid-1]
	if oi == nil || oid != oi.con {
		return nil
	}
	return "PRIMARY KEY (" + cd.keyCols(oi) + ")"
}

var viewBody = regexp.MustCompile(`(?is)^\s*create\s+(?:materialized\s+)?(?:view|sink)\s+(?:if\s+not\s+exists\s+)?\S+\s+(?:\([^)]*\)\s+)?as\s+(.*?);?\s*$`)

func (cd *catData) viewDef(oid int64) any {
	oi := cd.byOID[oid]
	if oi == nil || oid != oi.oid || oi.relkind != "m" {
		return nil
	}
	if m := viewBody.FindStringSubmatch(oi.Definition); m != nil {
		return " " + m[1] + ";"
	}
	return oi.Definition
}

func (cd *catData) settings() map[string]string {
	m := map[string]string{
		"server_version": cd.version(), "server_version_num": "150000", "server_encoding": "UTF8",
		"client_encoding": "UTF8", "datestyle": "ISO, MDY", "timezone": "UTC", "intervalstyle": "postgres",
		"integer_datetimes": "on", "standard_conforming_strings": "on", "max_identifier_length": "63",
		"search_path": `"$user", public`, "application_name": "", "extra_float_digits": "1",
		"default_transaction_read_only": "off", "transaction_read_only": "off", "is_superuser": "on",
		"lc_collate": "C.UTF-8", "lc_ctype": "C.UTF-8", "max_index_keys": "32", "block_size": "8192",
		"transaction_isolation": "read committed", "default_transaction_isolation": "read committed",
	}
	for k, v := range cd.s.Settings {
		m[strings.ToLower(k)] = v
	}
	return m
}

func (cd *catData) setting(name string) (string, bool) {
	v, ok := cd.settings()[strings.ToLower(name)]
	return v, ok
}

func (cd *catData) version() string {
	if cd.s.Version != "" {
		return cd.s.Version
	}
	return ServerVersion
}

func (s Session) startTime() string { return startedAt.Format("2006-01-02 15:04:05.999999+00") }

// table builds the virtual table schema.name ("" schema: pg_catalog).
func (cd *catData) table(schema, name string) (*relation, error) {
	if schema == "" {
		schema = "pg_catalog"
	}
	full := schema + "." + name
	cols, ok := tableCols[full]
	if !ok {
		return nil, errf(sqlerr.UndefinedTable, "relation %q does not exist", full)
	}
	r := &relation{cols: append(append([]colDef(nil), cols...), colDef{name: "tableoid", t: types.OIDOid, system: true})}
	tableoid := catalogTableOIDs[name]
	for _, m := range cd.rows(full) {
		row := make([]any, len(cols)+1)
		row[len(cols)] = tableoid
		for i, c := range cols {
			v, ok := m[c.name]
			if !ok {
				switch classOf(c.t) {
				case 'b':
					v = false
				case 'i', 'f':
					if c.t != types.OIDInt4 || schema != "information_schema" {
						v = int64(0)
					}
					if classOf(c.t) == 'f' {
						v = float64(0)
					}
				}
			}
			row[i] = v
		}
		r.rows = append(r.rows, row)
	}
	if seed, ok := seedRows[name]; ok && schema == "pg_catalog" {
		for _, row := range seedCopy(name, seed, cd) {
			r.rows = append(r.rows, append(row, tableoid))
		}
	}
	return r, nil
}

func seedCopy(name string, seed [][]any, cd *catData) [][]any {
	out := make([][]any, len(seed))
	for i, r := range seed {
		out[i] = append([]any(nil), r...)
		if name == "pg_namespace" {
			out[i][2] = int64(userOID)
			out[i][3] = nil
		}
	}
	return out
}

type row = map[string]any

// rows returns the generated rows of a virtual table by column name
// (missing columns take false/0/NULL by type). Seeded tables add their
// seed rows after these.
func (cd *catData) rows(full string) []row {
	var out []row
	user := cd.s.User
	switch full {
	case "pg_catalog.pg_class":
		for _, oi := range cd.objs {
			am := int64(heapAM)
			if oi.relkind == "f" {
				am = 0
			}
			out = append(out, row{"oid": oi.oid, "relname": oi.name, "relnamespace": oi.nsp, "reltype": oi.typ,
				"relowner": int64(userOID), "relam": am, "relfilenode": oi.oid, "relpages": int64(0), "reltuples": float64(-1),
				"relhasindex": cd.hasKey(oi), "relpersistence": "p", "relkind": oi.relkind, "relnatts": int64(len(oi.Columns)),
				"relispopulated": true, "relreplident": "d", "relfrozenxid": int64(0), "relminmxid": int64(0)})
			if cd.hasKey(oi) {
				out = append(out, row{"oid": oi.idx, "relname": oi.name + "_pkey", "relnamespace": oi.nsp,
					"relowner": int64(userOID), "relam": int64(btreeAM), "relfilenode": oi.idx, "reltuples": float64(-1),
					"relpersistence": "p", "relkind": "i", "relnatts": int64(len(oi.keyNums)), "relispopulated": true,
					"relreplident": "n"})
			}
		}
	case "pg_catalog.pg_attribute":
		for _, oi := range cd.objs {
			for i, c := range oi.Columns {
				out = append(out, cd.attr(oi, oi.oid, int64(i+1), c))
			}
			for i, n := range oi.keyNums {
				out = append(out, cd.attr(oi, oi.idx, int64(i+1), oi.Columns[n.(int64)-1]))
			}
		}
	case "pg_catalog.pg_type":
		for _, oi := range cd.objs {
			out = append(out, row{"oid": oi.typ, "typname": oi.name, "typnamespace": oi.nsp, "typowner": int64(userOID),
				"typlen": int64(-1), "typbyval": false, "typtype": "c", "typcategory": "C", "typisdefined": true, "typdelim": ",",
				"typrelid": oi.oid, "typsubscript": "-", "typinput": "record_in", "typoutput": "record_out", "typreceive": "record_recv",
				"typsend": "record_send", "typmodin": "-", "typmodout": "-", "typanalyze": "-", "typalign": "d", "typstorage": "x",
				"typbasetype": int64(0), "typtypmod": int64(-1)})
		}
	case "pg_catalog.pg_proc":
		out = append(procRows(), cd.procs...)
	case "pg_catalog.pg_index":
		for _, oi := range cd.objs {
			if !cd.hasKey(oi) {
				continue
			}
			zeros := make([]any, len(oi.keyNums))
			for i := range zeros {
				zeros[i] = int64(0)
			}
			out = append(out, row{"indexrelid": oi.idx, "indrelid": oi.oid, "indnatts": int64(len(oi.keyNums)),
				"indnkeyatts": int64(len(oi.keyNums)), "indisunique": true, "indisprimary": true, "indimmediate": true,
				"indisvalid": true, "indisready": true, "indislive": true, "indkey": oi.keyNums, "indcollation": zeros,
				"indclass": zeros, "indoption": zeros})
		}
	case "pg_catalog.pg_constraint":
		for _, oi := range cd.objs {
			if !cd.hasKey(oi) {
				continue
			}
			out = append(out, row{"oid": oi.con, "conname": oi.name + "_pkey", "connamespace": oi.nsp, "contype": "p",
				"convalidated": true, "conrelid": oi.oid, "conindid": oi.idx, "confupdtype": " ", "confdeltype": " ",
				"confmatchtype": " ", "conislocal": true, "connoinherit": true, "conkey": oi.keyNums})
		}
	case "pg_catalog.pg_database":
		out = append(out, row{"oid": int64(dbOID), "datname": cd.s.Database, "datdba": int64(userOID), "encoding": int64(6),
			"datlocprovider": "c", "datallowconn": true, "datconnlimit": int64(-1), "datfrozenxid": int64(716),
			"datminmxid": int64(1), "dattablespace": int64(1663), "datcollate": "C.UTF-8", "datctype": "C.UTF-8"})
	case "pg_catalog.pg_roles", "pg_catalog.pg_authid":
		out = append(out, row{"oid": int64(userOID), "rolname": user, "rolsuper": true, "rolinherit": true, "rolcreaterole": true,
			"rolcreatedb": true, "rolcanlogin": true, "rolreplication": false, "rolbypassrls": true, "rolconnlimit": int64(-1),
			"rolpassword": "********"})
	case "pg_catalog.pg_user":
		out = append(out, row{"usename": user, "usesysid": int64(userOID), "usecreatedb": true, "usesuper": true,
			"usebypassrls": true, "passwd": "********"})
	case "pg_catalog.pg_settings":
		s := cd.settings()
		names := make([]string, 0, len(s))
		for k := range s {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			out = append(out, row{"name": k, "setting": s[k], "category": "streamsql", "short_desc": "", "context": "user",
				"vartype": "string", "source": "session", "boot_val": s[k], "reset_val": s[k]})
		}
	case "pg_catalog.pg_foreign_table":
		for _, oi := range cd.objs {
			if oi.relkind == "f" {
				out = append(out, row{"ftrelid": oi.oid, "ftserver": cd.serverOID(oi), "ftoptions": optionArray(oi.Options)})
			}
		}
	case "pg_catalog.pg_foreign_server":
		seen := map[int64]bool{}
		for _, oi := range cd.objs {
			if oi.relkind != "f" || seen[cd.serverOID(oi)] {
				continue
			}
			seen[cd.serverOID(oi)] = true
			out = append(out, row{"oid": cd.serverOID(oi), "srvname": oi.Options["connector"], "srvowner": int64(userOID),
				"srvfdw": int64(firstOID - 2)})
		}
	case "pg_catalog.pg_foreign_data_wrapper":
		out = append(out, row{"oid": int64(firstOID - 2), "fdwname": "streamsql", "fdwowner": int64(userOID)})
	case "pg_catalog.pg_tables":
		for _, oi := range cd.objs {
			if oi.relkind == "r" {
				out = append(out, row{"schemaname": oi.schema, "tablename": oi.name, "tableowner": user, "hasindexes": cd.hasKey(oi)})
			}
		}
	case "pg_catalog.pg_matviews":
		for _, oi := range cd.objs {
			if oi.relkind == "m" {
				out = append(out, row{"schemaname": "public", "matviewname": oi.name, "matviewowner": user,
					"hasindexes": cd.hasKey(oi), "ispopulated": true, "definition": cd.viewDef(oi.oid)})
			}
		}
	case "pg_catalog.pg_indexes":
		for _, oi := range cd.objs {
			if cd.hasKey(oi) {
				out = append(out, row{"schemaname": oi.schema, "tablename": oi.name, "indexname": oi.name + "_pkey",
					"indexdef": cd.indexDef(oi.idx, 0)})
			}
		}
	case "information_schema.schemata":
		for _, n := range []string{"pg_catalog", "public", "information_schema", SystemSchema} {
			out = append(out, row{"catalog_name": cd.s.Database, "schema_name": n, "schema_owner": user})
		}
	case "information_schema.tables":
		for _, oi := range cd.objs {
			typ, ins := "BASE TABLE", "NO"
			switch oi.relkind {
			case "m":
				typ = "VIEW"
			case "f":
				typ = "FOREIGN"
			}
			if strings.EqualFold(oi.Options["connector"], "memory") || oi.Kind == "table" {
				ins = "YES"
			}
			out = append(out, row{"table_catalog": cd.s.Database, "table_schema": oi.schema, "table_name": oi.name,
				"table_type": typ, "is_insertable_into": ins, "is_typed": "NO"})
		}
	case "information_schema.columns":
		for _, oi := range cd.objs {
			for i, c := range oi.Columns {
				out = append(out, cd.infoColumn(oi, i, c))
			}
		}
	case "information_schema.views":
		for _, oi := range cd.objs {
			if oi.relkind == "m" {
				out = append(out, row{"table_catalog": cd.s.Database, "table_schema": oi.schema, "table_name": oi.name,
					"view_definition": cd.viewDef(oi.oid), "check_option": "NONE", "is_updatable": "NO",
					"is_insertable_into": "NO", "is_trigger_updatable": "NO", "is_trigger_deletable": "NO",
					"is_trigger_insertable_into": "NO"})
			}
		}
	case "information_schema.table_constraints":
		for _, oi := range cd.objs {
			if cd.hasKey(oi) {
				out = append(out, row{"constraint_catalog": cd.s.Database, "constraint_schema": oi.schema,
					"constraint_name": oi.name + "_pkey", "table_catalog": cd.s.Database, "table_schema": oi.schema,
					"table_name": oi.name, "constraint_type": "PRIMARY KEY", "is_deferrable": "NO", "initially_deferred": "NO",
					"enforced": "YES", "nulls_distinct": nil})
			}
		}
	case "information_schema.key_column_usage":
		for _, oi := range cd.objs {
			for i, n := range oi.keyNums {
				out = append(out, row{"constraint_catalog": cd.s.Database, "constraint_schema": oi.schema,
					"constraint_name": oi.name + "_pkey", "table_catalog": cd.s.Database, "table_schema": oi.schema,
					"table_name": oi.name, "column_name": strings.ToLower(oi.Columns[n.(int64)-1].Name),
					"ordinal_position": int64(i + 1)})
			}
		}
	}
	return out
}

func (cd *catData) serverOID(oi *objInfo) int64 {
	h := fnv.New32a()
	h.Write([]byte("server:" + oi.Options["connector"]))
	return firstOID + int64(h.Sum32()%((1<<31-firstOID)/4))*4 + 1 // never an object's OID (those are multiples of 4)
}

var secretKey = regexp.MustCompile(`(?i)password|secret|token|sasl|credential|(^|[._])key$`)

// optionArray is a relation's WITH options as Postgres keeps FDW options:
// {k=v,...}, sorted, with secrets masked.
func optionArray(opts map[string]string) []any {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		if k != "connector" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		v := opts[k]
		if secretKey.MatchString(k) {
			v = "********"
		}
		out = append(out, k+"="+v)
	}
	return out
}

func (cd *catData) attr(oi *objInfo, rel, num int64, c Column) row {
	t := types.OIDOf(c.Type)
	ti := typeInfos[t]
	storage, coll := "p", int64(0)
	if t == types.OIDText {
		storage, coll = "x", collDef
	}
	notNull := false
	for _, k := range oi.keyNums {
		notNull = notNull || k.(int64) == num && rel == oi.oid
	}
	return row{"attrelid": rel, "attname": strings.ToLower(c.Name), "atttypid": int64(t), "attstattarget": int64(-1),
		"attlen": int64(ti.length), "attnum": num, "attcacheoff": int64(-1), "atttypmod": typeMod(c),
		"attbyval": ti.length > 0 && ti.length <= 8, "attalign": "d", "attstorage": storage, "attcompression": "",
		"attnotnull": notNull, "attidentity": "", "attgenerated": "", "attislocal": true, "attcollation": coll}
}

func (cd *catData) infoColumn(oi *objInfo, i int, c Column) row {
	t := types.OIDOf(c.Type)
	udt := map[uint32]string{types.OIDBool: "bool", types.OIDInt8: "int8", types.OIDFloat8: "float8", types.OIDText: "text",
		types.OIDTimestamp: "timestamp", types.OIDInterval: "interval", types.OIDNumeric: "numeric", types.OIDDate: "date"}[t]
	nullable := "YES"
	for _, k := range oi.keyNums {
		if k.(int64) == int64(i+1) {
			nullable = "NO"
		}
	}
	r := row{"table_catalog": cd.s.Database, "table_schema": oi.schema, "table_name": oi.name,
		"column_name": strings.ToLower(c.Name), "ordinal_position": int64(i + 1), "is_nullable": nullable,
		"data_type": formatType(t, -1), "udt_catalog": cd.s.Database, "udt_schema": "pg_catalog", "udt_name": udt,
		"dtd_identifier": strconv.Itoa(i + 1), "is_self_referencing": "NO", "is_identity": "NO", "identity_cycle": "NO",
		"is_generated": "NEVER", "is_updatable": "NO"}
	switch c.Type {
	case types.Int:
		r["numeric_precision"], r["numeric_precision_radix"], r["numeric_scale"] = int64(64), int64(2), int64(0)
	case types.Float:
		r["numeric_precision"], r["numeric_precision_radix"] = int64(53), int64(2)
	case types.Decimal:
		r["numeric_precision_radix"] = int64(10)
		if c.Precision > 0 {
			r["numeric_precision"], r["numeric_scale"] = int64(c.Precision), int64(c.Scale)
		}
	case types.Timestamp, types.Interval:
		r["datetime_precision"] = int64(6)
	case types.Date:
		r["datetime_precision"] = int64(0)
	}
	return r
}
