package bench

import "github.com/jackc/pgx/v5/pgproto3"

// protoCases are differential cases whose units pgx does not send by
// default, written as protocol messages (Step.Raw): a Bind without its
// Execute, a Parse in a unit that executes another statement, a Parse the
// server refuses, SQL's PREPARE under a protocol statement's name, a
// portal bound in one unit and executed in another, a declared parameter
// type. A review of 4 December (the protocol) found each: each lost a
// behaviour before its fix.
func protoCases() []Case {
	kv := "CREATE TABLE a (id int PRIMARY KEY, v int); CREATE TABLE b (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); INSERT INTO b VALUES (1, 0);"
	return []Case{
		{Name: "proto-bind-snapshot-rc", Setup: kv, Actors: [][]Step{
			{simple("BEGIN"),
				raw(false, &pgproto3.Parse{Query: "SELECT v FROM a WHERE id = 1"}, &pgproto3.Bind{}),
				raw(false, &pgproto3.Execute{}),
				simple("COMMIT")},
			{simple("UPDATE a SET v = 1 WHERE id = 1")}}},
		{Name: "proto-parse-snapshot-in-executing-unit", Setup: kv, Actors: [][]Step{
			{simple("BEGIN ISOLATION LEVEL REPEATABLE READ"),
				raw(false, &pgproto3.Parse{Name: "s0", Query: "SELECT 1"}, &pgproto3.Parse{Query: "SET application_name = 'x'"}, &pgproto3.Bind{}, &pgproto3.Execute{}),
				simple("SELECT v FROM a WHERE id = 1"),
				simple("COMMIT")},
			{simple("SELECT 1"), simple("SELECT 1"), simple("UPDATE a SET v = 1 WHERE id = 1")}}},
		{Name: "proto-reparse-duplicate", Setup: kv, Actors: [][]Step{
			{raw(false, &pgproto3.Parse{Name: "s1", Query: "SELECT v FROM a WHERE id = 1"}, &pgproto3.Describe{ObjectType: 'S', Name: "s1"}),
				raw(true, &pgproto3.Parse{Name: "s1", Query: "SELECT v FROM b WHERE id = 1"}),
				raw(false, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{})},
			{simple("UPDATE a SET v = 1 WHERE id = 1")}}},
		{Name: "proto-sql-reprepare", Setup: kv, Actors: [][]Step{
			{raw(false, &pgproto3.Parse{Name: "s1", Query: "SELECT v FROM a WHERE id = 1"}),
				simple("DEALLOCATE s1; PREPARE s1 AS SELECT v FROM b WHERE id = 1"),
				simple("SELECT 1"),
				raw(false, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{})},
			{simple("UPDATE b SET v = 1 WHERE id = 1")}}},
		{Name: "proto-portal-param", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0), (2, 0);", Actors: [][]Step{
			{simple("BEGIN"),
				raw(false, &pgproto3.Parse{Name: "u", Query: "UPDATE t SET v = v + 1 WHERE id = $1", ParameterOIDs: []uint32{23}},
					&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "u", Parameters: [][]byte{[]byte("1")}}),
				raw(false, &pgproto3.Bind{PreparedStatement: "u", Parameters: [][]byte{[]byte("2")}}, &pgproto3.Execute{Portal: "p1"}),
				simple("COMMIT")},
			{simple("UPDATE t SET v = v * 10 WHERE id = 1")}}},
		{Name: "proto-param-float8-key", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0);", Actors: [][]Step{
			{raw(false, &pgproto3.Parse{Query: "UPDATE t SET v = v + 1 WHERE id = $1", ParameterOIDs: []uint32{701}},
				&pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}}}, &pgproto3.Execute{})},
			{simple("UPDATE t SET v = v * 10 WHERE id = 1")}}},
		{Name: "proto-set-transaction-isolation", Setup: kv, Actors: [][]Step{
			{simple("BEGIN"), simple("SET transaction_isolation = 'repeatable read'"), simple("SELECT v FROM b WHERE id = 1"), simple("SELECT v FROM a WHERE id = 1"), simple("COMMIT")},
			{simple("SELECT 1"), simple("SELECT 1"), simple("UPDATE a SET v = 1 WHERE id = 1")}}},
		{Name: "sess-sql-reprepare-commented", Setup: kv, Actors: [][]Step{
			{raw(false, &pgproto3.Parse{Name: "s1", Query: "SELECT v FROM a WHERE id = 1"}),
				simple("/* pool */ DEALLOCATE s1; /* pool */ PREPARE s1 AS SELECT v FROM b WHERE id = 1"),
				simple("SELECT 1"),
				raw(false, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{})},
			{simple("UPDATE b SET v = 1 WHERE id = 1")}}},
	}
}
