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
    /// Keys come in a fixed order (`id`, `ok`, `result`) so replies read the same every time.
    public static func success<R: Encodable>(id: String?, result: R) throws -> Data {
        var body = head(id: id, ok: true)
        body.append(contentsOf: #""result":"#.utf8)
        try TallyJSON.encode(result, into: &body)
        body.append(UInt8(ascii: "}"))
        return Data(body)
    }

    /// Encodes an error reply. Cannot fail.
    public static func failure(id: String?, error: TallyError) -> Data {
        var body = head(id: id, ok: false)
        body.append(contentsOf: #""error":"#.utf8)
        error.write(into: &body)
        body.append(UInt8(ascii: "}"))
        return Data(body)
    }

    private static func head(id: String?, ok: Bool) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(512)
        body.append(UInt8(ascii: "{"))
        if let id {
            body.append(contentsOf: #""id":"#.utf8)
            TallyJSON.writeString(id, into: &body)
            body.append(UInt8(ascii: ","))
        }
        body.append(contentsOf: (ok ? #""ok":true,"# : #""ok":false,"#).utf8)
        return body
    }

    public static func decode(_ data: Data) throws -> Reply {
        try TallyJSON.decode(Reply.self, from: data)
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
