import Foundation
import PostgresNIO
import TallyStorage

/// `SQLValue`s on PostgreSQL's wire, both ways, each in the column type `SQLDialect.postgres`
/// gives it: integers `BIGINT`, money `NUMERIC(39,0)` (sent as decimal text that the placeholder
/// casts, `$1::numeric`, read back from the binary numeric form), timestamps `TIMESTAMPTZ`,
/// bytes `BYTEA`.
enum PostgresValues {
    /// Milliseconds from 1970-01-01 (Tally's epoch) to 2000-01-01 (PostgreSQL's).
    static let postgresEpochMilliseconds: Int64 = 946_684_800_000

    static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            // Untyped: the server infers the type from where the parameter stands.
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .text(let text): bindings.append(text)
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            case .bool(let bool): bindings.append(bool)
            case .money(let money): bindings.append(String(money))
            case .timestamp(let milliseconds): bindings.append(Timestamp(milliseconds: milliseconds))
            }
        }
        return bindings
    }

    /// A cell as the `SQLValue` that Tally's decoders read.
    static func value(_ cell: PostgresCell) -> SQLValue {
        guard var bytes = cell.bytes else { return .null }
        if cell.format == .text {
            // Only results of the simple-query protocol (migrations' multi-statement DDL) arrive as text.
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        }
        switch cell.dataType {
        case .int8: return bytes.readInteger(as: Int64.self).map(SQLValue.integer) ?? .null
        case .int4, .oid: return bytes.readInteger(as: Int32.self).map { .integer(Int64($0)) } ?? .null
        case .int2: return bytes.readInteger(as: Int16.self).map { .integer(Int64($0)) } ?? .null
        case .bool: return .bool(bytes.readInteger(as: UInt8.self) == 1)
        case .bytea: return .blob(Data(bytes.readableBytesView))
        case .timestamptz, .timestamp:
            guard let microseconds = bytes.readInteger(as: Int64.self) else { return .null }
            // Floor division, so instants before 2000 read back as they were written.
            let (quotient, remainder) = microseconds.quotientAndRemainder(dividingBy: 1000)
            return .timestamp(quotient - (remainder < 0 ? 1 : 0) + postgresEpochMilliseconds)
        case .numeric:
            let text = numericText(&bytes) ?? "NaN"
            return Int128(text).map(SQLValue.money) ?? .text(text)
        case .float8: return bytes.readInteger(as: UInt64.self).map { .text(String(Double(bitPattern: $0))) } ?? .null
        case .float4: return bytes.readInteger(as: UInt32.self).map { .text(String(Float(bitPattern: $0))) } ?? .null
        default:
            // text, varchar, name, and anything else Tally would only read as text.
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        }
    }

    /// PostgreSQL's binary NUMERIC (base-10000 digits with a weight, sign and display scale) as
    /// decimal text. Exact at any size, so money past 64 bits reads back as written.
    static func numericText(_ buffer: inout ByteBuffer) -> String? {
        guard let count = buffer.readInteger(as: Int16.self), let weight = buffer.readInteger(as: Int16.self),
            let sign = buffer.readInteger(as: UInt16.self), let scale = buffer.readInteger(as: Int16.self)
        else { return nil }
        if sign == 0xC000 { return "NaN" }
        var digits: [Int16] = []
        for _ in 0..<count {
            guard let digit = buffer.readInteger(as: Int16.self) else { return nil }
            digits.append(digit)
        }
        // The integer part: groups 0...weight; the fraction: the groups after, cut to `scale` digits.
        var integer = ""
        if weight >= 0 {
            for index in 0...Int(weight) {
                let group = index < digits.count ? digits[index] : 0
                integer += index == 0 ? String(group) : String(repeating: "0", count: 4 - String(group).count) + String(group)
            }
        } else {
            integer = "0"
        }
        // Fraction group k is digit (weight + 1 + k); groups not sent are zero.
        var fraction = ""
        var group = 0
        while fraction.count < Int(scale) {
            let index = Int(weight) + 1 + group
            let value = index >= 0 && index < digits.count ? digits[index] : 0
            fraction += String(repeating: "0", count: 4 - String(value).count) + String(value)
            group += 1
        }
        fraction = String(fraction.prefix(Int(scale)))
        let negative = sign == 0x4000 && (integer.contains { $0 != "0" } || fraction.contains { $0 != "0" })
        return (negative ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// A point in time bound as `TIMESTAMPTZ`: microseconds since 2000-01-01 UTC, exact (no
    /// floating-point `Date` on the way).
    struct Timestamp: PostgresNonThrowingEncodable {
        let milliseconds: Int64
        static var psqlType: PostgresDataType { .timestamptz }
        static var psqlFormat: PostgresFormat { .binary }

        func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
            byteBuffer.writeInteger((milliseconds - PostgresValues.postgresEpochMilliseconds) * 1000, as: Int64.self)
        }
    }
}
