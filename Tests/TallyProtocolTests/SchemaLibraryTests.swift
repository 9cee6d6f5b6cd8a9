import Foundation
import Testing

@testable import TallyProtocol

@Suite struct SchemaLibraryTests {
    static let prefix = SchemaLibrary.idPrefix
    static func id(_ path: String) -> JSONValue { .string(prefix + path) }

    let library = SchemaLibrary(documents: [
        "commands/a.get.result.json": ["$id": Self.id("commands/a.get.result.json"), "$ref": "a.create.args.json#/$defs/item"],
        "commands/a.create.args.json": [
            "$id": Self.id("commands/a.create.args.json"),
            "$defs": ["item": ["$ref": "../shared/money.json"], "note": ["const": ["$ref": "../shared/not-a-reference.json"]]],
        ],
        "shared/money.json": ["$id": Self.id("shared/money.json"), "$ref": "#/$defs/self"],
        "shared/not-a-reference.json": ["$id": Self.id("shared/not-a-reference.json")],
    ])

    @Test func referencesAreFollowedThroughEachOtherButNotIntoData() throws {
        let root = try #require(library.documents["commands/a.get.result.json"])
        let found = library.referenced(from: [root])
        #expect(found.keys.sorted() == ["\(Self.prefix)commands/a.create.args.json", "\(Self.prefix)shared/money.json"])
    }

    @Test func schemasGivenAsRootsAreNotRepeated() throws {
        let roots = try ["commands/a.get.result.json", "commands/a.create.args.json"].map { try #require(library.documents[$0]) }
        #expect(library.referenced(from: roots).keys.sorted() == ["\(Self.prefix)shared/money.json"])
    }

    @Test func aCommandsSchemasAreFoundByItsName() {
        #expect(library.args(of: "a.create")?["$id"] == Self.id("commands/a.create.args.json"))
        #expect(library.result(of: "a.create") == nil)
    }
}
