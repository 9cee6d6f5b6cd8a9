import Foundation

/// Tally's JSON Schemas (the repository's `schemas/`), by path, as the gateway serves them in
/// `system.describe`: each command's args and result schema, and the files those refer to. The
/// `tally` binary carries them embedded (`ServiceCatalog.schemas`), since a gateway is deployed
/// without the repository.
public struct SchemaLibrary: Sendable {
    /// Every schema's `$id` is this prefix followed by its path under `schemas/`.
    public static let idPrefix = "https://tally.example/schemas/"

    /// Each schema by its path under `schemas/`: `commands/calc.tip.args.json`.
    public let documents: [String: JSONValue]

    public init(documents: [String: JSONValue] = [:]) {
        self.documents = documents
    }

    /// Reads a JSON object whose keys are paths and whose values are the schemas.
    public init(json: Data) throws {
        guard case .object(let documents) = try JSONReader.parse(json) else {
            throw TallyError(.internal, "the embedded schemas are not a JSON object")
        }
        self.documents = documents
    }

    public func args(of command: String) -> JSONValue? { documents["commands/\(command).args.json"] }
    public func result(of command: String) -> JSONValue? { documents["commands/\(command).result.json"] }

    /// Every schema of this library that `roots` refer to with `$ref`, directly or through one
    /// another, and that is not one of `roots`: what a validator needs in its registry besides
    /// them. Keyed by `$id`.
    public func referenced(from roots: [JSONValue]) -> [String: JSONValue] {
        let given = Set(roots.compactMap { $0["$id"]?.stringValue })
        var found: [String: JSONValue] = [:]
        var pending = roots
        while let schema = pending.popLast() {
            guard let base = schema["$id"]?.stringValue.flatMap(URL.init(string:)) else { continue }
            for reference in Self.references(in: schema) {
                guard let target = URL(string: reference, relativeTo: base)?.absoluteString.split(separator: "#").first.map(String.init),
                    target.hasPrefix(Self.idPrefix), !given.contains(target), found[target] == nil,
                    let document = documents[String(target.dropFirst(Self.idPrefix.count))]
                else { continue }
                found[target] = document
                pending.append(document)
            }
        }
        return found
    }

    /// Keywords whose values are data, not schemas: a `$ref` key inside them refers to nothing.
    private static let dataKeywords: Set<String> = ["const", "enum", "examples", "default"]

    /// Every `$ref` in a schema, in no particular order.
    private static func references(in node: JSONValue) -> [String] {
        switch node {
        case .object(let members):
            var found = members["$ref"]?.stringValue.map { [$0] } ?? []
            for (key, value) in members where !dataKeywords.contains(key) { found += references(in: value) }
            return found
        case .array(let elements): return elements.flatMap(references(in:))
        default: return []
        }
    }
}
