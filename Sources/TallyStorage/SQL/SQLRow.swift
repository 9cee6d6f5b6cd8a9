/// One row of a result: values by column name, read as the Swift type asked for.
public struct SQLRow: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, as `T`. A missing column or a value that does not read as `T` is a
    /// `SQLDecodingError`: stored data the service cannot read, never the client's doing.
    public subscript<T: SQLDecodable>(_ column: String) -> T {
        get throws {
            guard let index = columns.firstIndex(of: column) else {
                throw SQLDecodingError(expected: "a column named \(column)", found: .null, column: column)
            }
            do {
                return try T(sqlValue: values[index])
            } catch {
                var error = error
                error.column = column
                throw error
            }
        }
    }

    /// The value of the first column, as `T`: for `SELECT COUNT(*)` and the like.
    public func first<T: SQLDecodable>() throws -> T {
        guard let value = values.first else { throw SQLDecodingError(expected: "a column", found: .null) }
        return try T(sqlValue: value)
    }
}
