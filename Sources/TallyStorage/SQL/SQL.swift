/// A SQL statement with its values kept apart from its text, written with string interpolation:
///
/// ```swift
/// let sql: SQL = "SELECT name FROM account WHERE owner = \(owner) AND id = \(id)"
/// ```
///
/// Every interpolated value becomes a bound parameter (never text), so no value can change what a
/// statement does. `\(raw:)` inserts trusted text (a table name from code), `\(list:)` a
/// comma-separated list of parameters for `IN (...)`, and another `SQL` nests as a fragment.
/// The dialect renders placeholders as it needs them: `?` for SQLite, `$1` for PostgreSQL.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Piece: Sendable {
        case text(String)
        case value(SQLValue)
        /// Text that differs by dialect (a function name, a type).
        case dialect(@Sendable (SQLDialect) -> String)
    }

    private(set) var pieces: [Piece]

    public init(stringLiteral value: String) {
        pieces = [.text(value)]
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// Text chosen by dialect, for the few places SQLite and PostgreSQL spell a thing differently.
    public static func dialect(_ render: @escaping @Sendable (SQLDialect) -> String) -> SQL {
        SQL(pieces: [.dialect(render)])
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            pieces.append(.text(literal))
        }

        /// A bound value.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            pieces.append(.value(value.sqlValue))
        }

        /// A value that may be absent, bound as NULL when it is.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            pieces.append(.value(value?.sqlValue ?? .null))
        }

        /// A point in time, bound as a timestamp.
        public mutating func appendInterpolation(timestamp milliseconds: Int64) {
            pieces.append(.value(.timestamp(milliseconds)))
        }

        /// A point in time that may be absent.
        public mutating func appendInterpolation(timestamp milliseconds: Int64?) {
            pieces.append(.value(milliseconds.map(SQLValue.timestamp) ?? .null))
        }

        /// Trusted text from code, such as a table name. Never a value from a request.
        public mutating func appendInterpolation(raw text: String) {
            pieces.append(.text(text))
        }

        /// Bound values separated by commas, for `IN (...)`. Empty lists are the caller's to avoid.
        public mutating func appendInterpolation(list values: [some SQLBindable]) {
            for (index, value) in values.enumerated() {
                if index > 0 { pieces.append(.text(", ")) }
                pieces.append(.value(value.sqlValue))
            }
        }

        /// Another statement's text and values, nested here.
        public mutating func appendInterpolation(_ fragment: SQL) {
            pieces.append(contentsOf: fragment.pieces)
        }
    }

    /// Joins fragments with `separator` between them.
    public static func joined(_ fragments: [SQL], separator: String) -> SQL {
        var pieces: [Piece] = []
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { pieces.append(.text(separator)) }
            pieces.append(contentsOf: fragment.pieces)
        }
        return SQL(pieces: pieces)
    }

    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(pieces: lhs.pieces + rhs.pieces)
    }

    /// The text with placeholders in `dialect`'s style, and the values in order.
    public func rendered(for dialect: SQLDialect) -> (text: String, values: [SQLValue]) {
        var text = ""
        var values: [SQLValue] = []
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .dialect(let render): text += render(dialect)
            case .value(let value):
                values.append(value)
                text += dialect.placeholder(values.count, for: value)
            }
        }
        return (text, values)
    }

    /// The statement as SQLite would run it, for logs and errors (values are not shown).
    public var description: String { rendered(for: .sqlite).text }
}
