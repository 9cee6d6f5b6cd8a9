import Foundation

/// A reply: `{"id", "ok": true, "result"}` or `{"id", "ok": false, "error": {"code", "message", "field"}}`.
public struct Reply: Sendable {
    public var id: String?
    public var outcome: Result<JSONValue, TallyError>

    public init(id: String?, outcome: Result<JSONValue, TallyError>) {
        self.id = id
        self.outcome = outcome
    }

    public var isOK: Bool {
        if case .success = outcome { return true }
        return false
    }

    public var result: JSONValue? { try? outcome.get() }

    public var error: TallyError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }

    /// Encodes a successful reply around any encodable result, without building a `JSONValue` first.
    public static func success<R: Encodable>(id: String?, result: R) throws -> Data {
        try JSONEncoder.tally.encode(SuccessBody(id: id, result: result))
    }

    /// Encodes an error reply. Cannot fail.
    public static func failure(id: String?, error: TallyError) -> Data {
        (try? JSONEncoder.tally.encode(FailureBody(id: id, error: error))) ?? Data(#"{"ok":false}"#.utf8)
    }

    public static func decode(_ data: Data) throws -> Reply {
        try JSONDecoder().decode(Reply.self, from: data)
    }

    private struct SuccessBody<R: Encodable>: Encodable {
        let id: String?
        let ok = true
        let result: R
        enum CodingKeys: String, CodingKey { case id, ok, result }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(ok, forKey: .ok)
            try container.encode(result, forKey: .result)
        }
    }

    private struct FailureBody: Encodable {
        let id: String?
        let ok = false
        let error: TallyError
        enum CodingKeys: String, CodingKey { case id, ok, error }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(ok, forKey: .ok)
            try container.encode(error, forKey: .error)
        }
    }
}

extension Reply: Codable {
    enum CodingKeys: String, CodingKey { case id, ok, result, error }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        if try container.decode(Bool.self, forKey: .ok) {
            outcome = .success(try container.decodeIfPresent(JSONValue.self, forKey: .result) ?? .null)
        } else {
            outcome = .failure(try container.decode(TallyError.self, forKey: .error))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        switch outcome {
        case .success(let result):
            try container.encode(true, forKey: .ok)
            try container.encode(result, forKey: .result)
        case .failure(let error):
            try container.encode(false, forKey: .ok)
            try container.encode(error, forKey: .error)
        }
    }
}
