import Foundation
import TallyProtocol

extension ServiceCatalog {
    /// The JSON Schemas of every command: the repository's `schemas/`, embedded in the binary by
    /// `ops/schemas/embed.py` (`Schemas.generated.swift`), since a gateway is deployed without the
    /// repository. The gateway serves them in `system.describe`; `ContractTests` checks that they
    /// are the files of `schemas/`, which it checks the services against.
    public static let schemas: SchemaLibrary = {
        do {
            return try SchemaLibrary(json: Data(embeddedSchemasJSON.utf8))
        } catch {
            // The contract tests decode them on every run: this is a build made from a broken file.
            preconditionFailure("Schemas.generated.swift does not hold a JSON object of schemas: \(error)")
        }
    }()
}
