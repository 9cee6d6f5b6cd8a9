@testable import TallyPostgres
import Testing

/// Multi-statement DDL, split for a protocol that takes one statement at a time.
@Suite struct SQLScriptTests {
    @Test func splitsAtSemicolonsThatEndStatementsOnly() {
        let script = """
            CREATE TABLE a (note TEXT DEFAULT 'x; y', "odd;name" INT); -- a comment; still a comment
            /* a block; comment */ CREATE FUNCTION f() RETURNS INT AS $body$ SELECT 1; $body$ LANGUAGE sql;
            INSERT INTO a (note) VALUES ($$it's; fine$$);;
            SELECT $1
            """
        #expect(SQLScript.statements(script) == [
            #"CREATE TABLE a (note TEXT DEFAULT 'x; y', "odd;name" INT)"#,
            "-- a comment; still a comment\n/* a block; comment */ CREATE FUNCTION f() RETURNS INT AS $body$ SELECT 1; $body$ LANGUAGE sql",
            "INSERT INTO a (note) VALUES ($$it's; fine$$)",
            "SELECT $1",
        ])
    }
}
