import Foundation
import Logging
import TallyJSON
import Synchronization

/// Logs for log shippers: one JSON object per line on standard error, with the time, the level,
/// the logger's label, the message, the source and every metadata value as its own key
/// (`request_id`, `command`, `service`...), so one request can be followed from the gateway to
/// the worker, its events and their alerts by filtering on one field.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: @Sendable (Data) -> Void

    public init(label: String, output: @escaping @Sendable (Data) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.output = output
    }

    /// Writes whole lines to standard error, one at a time.
    public static let standardError: @Sendable (Data) -> Void = { line in
        writing.withLock { _ in FileHandle.standardError.write(line) }
    }

    private static let writing = Mutex(())

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: JSONField] = [:]
        for (key, value) in metadata { fields[key] = JSONField(value) }
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = JSONField(value) }
        for (key, value) in event.metadata ?? [:] { fields[key] = JSONField(value) }
        fields["time"] = .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        fields["level"] = .string(event.level.rawValue)
        fields["logger"] = .string(label)
        fields["message"] = .string(event.message.description)
        fields["source"] = .string(event.source)
        guard var line = try? TallyJSON.encode(fields) else { return }
        line.append(UInt8(ascii: "\n"))
        output(line)
    }
}

/// A metadata value as JSON: strings stay strings, lists and dictionaries nest, and a value
/// logged as itself (`.stringConvertible`) that is a number or a boolean is written as one, so a
/// log shipper can compare and sum `workers` or `count` without parsing text.
enum JSONField: Encodable {
    case string(String)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case number(Double)
    case boolean(Bool)
    case array([JSONField])
    case object([String: JSONField])

    init(_ value: Logger.MetadataValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .stringConvertible(let convertible): self = JSONField(convertible: convertible)
        case .array(let values): self = .array(values.map(JSONField.init))
        case .dictionary(let values): self = .object(values.mapValues(JSONField.init))
        }
    }

    /// A number or boolean as itself; anything else, and a number JSON cannot hold (NaN, an
    /// infinity, an integer wider than 64 bits), as its description.
    private init(convertible: any CustomStringConvertible & Sendable) {
        switch convertible {
        case let value as Bool: self = .boolean(value)
        case let value as any SignedInteger:
            self = Int64(exactly: value).map(JSONField.integer) ?? .string(convertible.description)
        case let value as any UnsignedInteger:
            self = UInt64(exactly: value).map(JSONField.unsignedInteger) ?? .string(convertible.description)
        case let value as any BinaryFloatingPoint:
            let number = Double(value)
            self = number.isFinite ? .number(number) : .string(convertible.description)
        default: self = .string(convertible.description)
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .unsignedInteger(let number): try container.encode(number)
        case .number(let number): try container.encode(number)
        case .boolean(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }
}
