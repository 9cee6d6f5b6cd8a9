/// A column's kind of value; each dialect picks its type (see `SQLDialect.typeName`).
public enum ColumnType: Sendable {
    /// The table's own id: a 64-bit integer primary key the engine assigns, growing and never reused.
    case identity
    case integer
    case text
    case blob
    case bool
    /// Minor units of money (`SQLValue.money`).
    case money
    /// A point in time (`SQLValue.timestamp`).
    case timestamp
}

/// One column of a `TableSchema`.
public struct ColumnSchema: Sendable {
    public var name: String
    public var type: ColumnType
    public var notNull: Bool
    /// A default, as SQL text both dialects read (`0`, `''`, `FALSE`).
    public var defaultSQL: String?
    /// A condition on the column, as SQL both dialects read (`length(owner) BETWEEN 1 AND 128`).
    public var check: String?
    /// Another table's id this column refers to, and whether deleting that row deletes this one.
    public var references: (table: String, cascade: Bool)?

    public init(
        _ name: String, _ type: ColumnType, notNull: Bool = true, default defaultSQL: String? = nil, check: String? = nil,
        references: (table: String, cascade: Bool)? = nil
    ) {
        self.name = name
        self.type = type
        self.notNull = notNull
        self.defaultSQL = defaultSQL
        self.check = check
        self.references = references
    }

    func definition(_ dialect: SQLDialect) -> String {
        var text = "\(name) \(dialect.typeName(type))"
        if notNull && type != .identity { text += " NOT NULL" }
        if let defaultSQL { text += " DEFAULT \(defaultSQL)" }
        if let check { text += " CHECK (\(check))" }
        if let references {
            text += " REFERENCES \(references.table)(id)"
            if references.cascade { text += " ON DELETE CASCADE" }
        }
        return text
    }
}

/// A table, written once for both engines.
public struct TableSchema: Sendable {
    public var name: String
    public var columns: [ColumnSchema]
    /// A composite primary key; leave empty when a column is `.identity`.
    public var primaryKey: [String]
    public var unique: [[String]]
    /// SQLite only: a table clustered on its primary key (PostgreSQL ignores it).
    public var withoutRowID: Bool

    public init(
        _ name: String, columns: [ColumnSchema], primaryKey: [String] = [], unique: [[String]] = [], withoutRowID: Bool = false
    ) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.unique = unique
        self.withoutRowID = withoutRowID
    }

    public func createStatement(_ dialect: SQLDialect) -> SQL {
        var parts = columns.map { $0.definition(dialect) }
        if !primaryKey.isEmpty { parts.append("PRIMARY KEY (\(primaryKey.joined(separator: ", ")))") }
        for columns in unique { parts.append("UNIQUE (\(columns.joined(separator: ", ")))") }
        var text = "CREATE TABLE \(name) (\n    \(parts.joined(separator: ",\n    "))\n)"
        if withoutRowID && dialect == .sqlite { text += " WITHOUT ROWID" }
        return SQL(stringLiteral: text)
    }
}

extension SQLSession {
    public func create(_ table: TableSchema) throws {
        try execute(table.createStatement(dialect))
    }

    /// `ALTER TABLE table ADD COLUMN ...`. A `NOT NULL` column needs a default, which the rows
    /// already stored take.
    public func addColumn(_ column: ColumnSchema, to table: String) throws {
        try execute(SQL(stringLiteral: "ALTER TABLE \(table) ADD COLUMN \(column.definition(dialect))"))
    }

    /// `CREATE [UNIQUE] INDEX name ON table (columns) [WHERE condition]`; the condition is SQL both dialects read.
    public func createIndex(_ name: String, on table: String, columns: [String], unique: Bool = false, where condition: String? = nil) throws {
        var text = "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(table) (\(columns.joined(separator: ", ")))"
        if let condition { text += " WHERE \(condition)" }
        try execute(SQL(stringLiteral: text))
    }
}
