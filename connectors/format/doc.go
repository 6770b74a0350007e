// Package format decodes connector records into rows and encodes rows for
// sinks. It is shared by the file and Kafka connectors and imports only
// connectors (for option specs) and types.
//
// # Decoding
//
// NewDecoder(name, schema, opts) returns a Decoder for "json" or "csv".
// A Decoder is not safe for concurrent use (it reuses a parser and
// scratch buffers); each Decode returns a new Row that shares no memory
// with the record or with later rows, so callers may keep it.
//
// JSON: one object per record. Field names match column names
// case-insensitively (an exact match is tried first); unknown fields are
// ignored; missing fields and JSON null are NULL; a later duplicate field
// wins. Per column type:
//
//	BIGINT     integer number, or a string holding one ("42")
//	DOUBLE     any number, or a string holding one ("1.5", "NaN")
//	BOOLEAN    true/false, or the strings "true"/"false"
//	VARCHAR    a string; a number or boolean gives its JSON text, an
//	           object or array its compact JSON text
//	TIMESTAMP  'YYYY-MM-DD HH:MM:SS[.ffffff]', RFC 3339, or integer epoch
//	           milliseconds (a number, or a string of digits)
//	INTERVAL   '10 seconds', '00:00:10', '1 day 00:00:10', or integer
//	           microseconds
//	DECIMAL    any number, or a string holding one ("0.10", "1.5e3"), read
//	           exactly from its text and fitted to the column's (p, s):
//	           0.2 is 0.20 in a DECIMAL(12,2); a value beyond p is an error
//	DATE       'YYYY-MM-DD' (or timestamp text, whose day it takes)
//	JSONB      any value, whole (objects and arrays nested as they are);
//	           JSON null is NULL. In CSV the field is JSON text
//
// Flat objects are decoded by a single pass over the bytes; records with
// escaped keys, nested values for VARCHAR columns or bad syntax take the
// fastjson path, which applies the same rules (FuzzJSONScan checks that
// both agree).
//
// Anything else is an error that names the column, e.g.
// `column price: want BIGINT, got string "abc"`. Sources turn decode errors
// into connectors.DecodeError values (poison records), never into failures.
//
// CSV: one line per record (no trailing newline needed), fields separated
// by csv.delimiter (default ','), RFC 4180 quoting ("" inside quotes is a
// quote). As in Postgres' COPY CSV, an unquoted empty field is NULL and a
// quoted empty field ("") is the empty string. Without a header the fields
// are the schema's columns in order and the count must match. With
// csv.header = true the decoder implements HeaderSetter: the connector
// reads the input's first line and hands it to SetHeaderLine (or the split
// names to SetHeader); fields then map to columns by header name
// (case-insensitive), header names that are not columns are ignored and
// columns missing from the header are NULL. Decode before a header is set
// is an error. Field text is parsed as in JSON strings (TIMESTAMP also
// accepts a string of digits as epoch milliseconds; BOOLEAN also t/f/1/0).
//
// # Encoding
//
// AppendJSON appends a row as a JSON object with the column names as keys;
// AppendJSONCols does the same for a subset of columns (a sink's key).
// Timestamps are written as 'YYYY-MM-DD HH:MM:SS[.ffffff]' strings,
// dates as 'YYYY-MM-DD' strings, decimals as JSON numbers with every digit
// of their scale (0.30), JSONB values nested as they are, intervals as their text, non-finite doubles as the strings "NaN",
// "+Inf", "-Inf"; everything written decodes back to the same values.
package format
