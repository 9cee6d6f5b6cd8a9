/// An error as clients see it: a canonical code, a message a person can act on, and, when one
/// input is to blame, the path of that field (`args.tip_percent`, `args.items[2].price`).
public struct TallyError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var field: String?

    public init(_ code: ErrorCode, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public static func invalidArgument(_ message: String, field: String? = nil) -> TallyError {
        TallyError(.invalidArgument, message, field: field)
    }

    public var description: String {
        field.map { "\(code.rawValue): \($0): \(message)" } ?? "\(code.rawValue): \(message)"
    }

    /// `{"code","field","message"}` in sorted key order, as `TallyJSON` writes it.
    func write(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"code":"#.utf8)
        TallyJSON.writeString(code.rawValue, into: &out)
        if let field {
            out.append(contentsOf: #","field":"#.utf8)
            TallyJSON.writeString(field, into: &out)
        }
        out.append(contentsOf: #","message":"#.utf8)
        TallyJSON.writeString(message, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}
