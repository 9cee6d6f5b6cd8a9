import Foundation

/// A value bound into SQL or read back, in the forms both engines hold exactly.
///
/// Each case says what the value *is*, so each engine can store it in its best type: money is
/// `NUMERIC(39,0)` in PostgreSQL and decimal `TEXT` in SQLite (whose `INTEGER` has 64 bits, and
/// whose integer affinity would turn a larger number into a lossy `REAL`); a timestamp is
/// `TIMESTAMPTZ` in PostgreSQL and integer milliseconds in SQLite.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob(Data)
    case bool(Bool)
    /// Minor units of a currency: 128 bits, for balances up to 10^22 units and more.
    case money(Int128)
    /// Milliseconds since 1970-01-01 UTC.
    case timestamp(Int64)
}

/// A Swift value that binds into SQL.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

/// A Swift value that reads out of a column.
///
/// Decoding goes by the Swift type asked for, and accepts every form an engine may hand back for
/// it (SQLite has no boolean or timestamp type and gives integers; it gives money as text).
public protocol SQLDecodable {
    init(sqlValue: SQLValue) throws(SQLDecodingError)
}

public struct SQLDecodingError: Error, CustomStringConvertible, Sendable {
    public let expected: String
    public let found: SQLValue
    public var column: String?

    public init(expected: String, found: SQLValue, column: String? = nil) {
        self.expected = expected
        self.found = found
        self.column = column
    }

    public var description: String {
        "column \(column ?? "?") holds \(found), which does not read as \(expected)"
    }
}

extension SQLValue: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { self }
    public init(sqlValue: SQLValue) { self = sqlValue }
}

extension Int64: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(self) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        switch sqlValue {
        case .integer(let value), .timestamp(let value): self = value
        case .bool(let value): self = value ? 1 : 0
        case .money(let value) where Int128(Int64.min) <= value && value <= Int128(Int64.max): self = Int64(value)
        default: throw SQLDecodingError(expected: "a 64-bit integer", found: sqlValue)
        }
    }
}

extension Int: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) { self = Int(try Int64(sqlValue: sqlValue)) }
}

extension Int32: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        let wide = try Int64(sqlValue: sqlValue)
        guard let value = Int32(exactly: wide) else { throw SQLDecodingError(expected: "a 32-bit integer", found: sqlValue) }
        self = value
    }
}

extension Int128: SQLBindable, SQLDecodable {
    /// Int128 binds as money: it is what Tally uses 128-bit integers for.
    public var sqlValue: SQLValue { .money(self) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        switch sqlValue {
        case .money(let value): self = value
        case .integer(let value): self = Int128(value)
        case .text(let text):
            guard let value = Int128(text) else { throw SQLDecodingError(expected: "a whole number of minor units", found: sqlValue) }
            self = value
        default: throw SQLDecodingError(expected: "a whole number of minor units", found: sqlValue)
        }
    }
}

extension String: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .text(self) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        guard case .text(let text) = sqlValue else { throw SQLDecodingError(expected: "text", found: sqlValue) }
        self = text
    }
}

extension Bool: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .bool(self) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        switch sqlValue {
        case .bool(let value): self = value
        case .integer(let value): self = value != 0
        default: throw SQLDecodingError(expected: "a boolean", found: sqlValue)
        }
    }
}

extension Data: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .blob(self) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        switch sqlValue {
        case .blob(let data): self = data
        case .text(let text): self = Data(text.utf8)
        default: throw SQLDecodingError(expected: "bytes", found: sqlValue)
        }
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public init(sqlValue: SQLValue) throws(SQLDecodingError) {
        if case .null = sqlValue { self = nil } else { self = try Wrapped(sqlValue: sqlValue) }
    }
}

/// A point in time as a column holds it: milliseconds since 1970 (UTC). Binds as `.timestamp`,
/// so PostgreSQL keeps it as `TIMESTAMPTZ`.
public struct SQLTimestamp: SQLBindable, SQLDecodable, Hashable {
    public var milliseconds: Int64
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public var sqlValue: SQLValue { .timestamp(milliseconds) }
    public init(sqlValue: SQLValue) throws(SQLDecodingError) { milliseconds = try Int64(sqlValue: sqlValue) }
}
